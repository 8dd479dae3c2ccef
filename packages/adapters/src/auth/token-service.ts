import { createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { ACCOUNT_ROLES, type AccountRole, VenueError } from '@venue/protocol';
import { errors, jwtVerify, SignJWT } from 'jose';
import {
  ACCESS_TOKEN_IAT_SKEW_MS,
  ACCESS_TOKEN_LIFETIME_SECONDS,
  VERIFIED_TOKENS_CACHED_MAX,
} from '../config/limits.ts';

/**
 * Bearer tokens (spec 4.2, 5): compact JWS (HS256, through the `jose` library) under a 32-byte key
 * drawn at boot and held in enclave memory only, so a token of an earlier boot is simply invalid.
 * HMAC rather than a signature because only the venue itself ever verifies a token, and it does so
 * on every request: an HMAC check costs microseconds, an Ed25519 check about 170 µs.
 *
 * Claims: `sub` account id, `aud` role (`trader` or `admin`, so one role's token is useless on the
 * other's routes), `jti` random id (the revocation denylist key), `iat`/`exp` whole seconds, and
 * `gen`, the account's token generation at issue (bulk invalidation, see AccountRegistry).
 * Expiry is exact: a token is refused from the first millisecond of its `exp` second (spec 5 item 5).
 * A token issued in the future (`iat` more than ACCESS_TOKEN_IAT_SKEW_MS ahead) is refused as invalid:
 * this boot never issued it at the time it claims, so its lifetime would be longer than we grant.
 */
export interface TokenClaims {
  readonly accountId: string;
  readonly role: AccountRole;
  readonly tokenId: string;
  readonly generation: number;
  readonly expiresAtMs: number;
}

export interface IssuedToken {
  readonly accessToken: string;
  /** Whole seconds from now to the exact expiry, rounded down so a client never overestimates. */
  readonly expiresIn: number;
  readonly claims: TokenClaims;
}

const ISSUER = 'venue';
const ALGORITHM = 'HS256';

export class TokenService {
  readonly #key: KeyObject;
  /** Tokens whose signature and claims were verified, oldest first (bounded; see verify). */
  readonly #verified = new Map<string, TokenClaims>();
  /** jti -> expiry (ms) of revoked tokens; an entry is useless once its token has expired. */
  readonly #denylist = new Map<string, number>();

  constructor(key: KeyObject = createSecretKey(randomBytes(32))) {
    this.#key = key;
  }

  async issue(subject: { accountId: string; role: AccountRole; generation: number }, nowMs: number) {
    const issuedAt = Math.floor(nowMs / 1000);
    const expiresAt = issuedAt + ACCESS_TOKEN_LIFETIME_SECONDS;
    const tokenId = randomBytes(16).toString('base64url');
    const accessToken = await new SignJWT({ gen: subject.generation })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(subject.accountId)
      .setAudience(subject.role)
      .setJti(tokenId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.#key);
    const expiresAtMs = expiresAt * 1000;
    const issued: IssuedToken = {
      accessToken,
      expiresIn: Math.floor((expiresAtMs - nowMs) / 1000),
      claims: { ...subject, tokenId, expiresAtMs },
    };
    return issued;
  }

  /**
   * Checks signature, issuer, expiry and the denylist. Account state (suspension, generation) is
   * the caller's to check, because it lives in the account registry.
   */
  async verify(token: string, nowMs: number): Promise<TokenClaims> {
    // A bot sends the same token with every request for an hour: its signature is checked once
    // (jose's WebCrypto path costs about 200 µs), later uses only re-check expiry and revocation.
    const known = this.#verified.get(token);
    if (known !== undefined) {
      this.checkLive(known, nowMs);
      return known;
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        currentDate: new Date(nowMs),
        requiredClaims: ['sub', 'aud', 'jti', 'iat', 'exp', 'gen'],
        typ: 'JWT',
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) {
        throw new VenueError(
          'TOKEN_EXPIRED',
          'the bearer token has expired; request a new one at POST /auth/token',
        );
      }
      throw new VenueError(
        'INVALID_TOKEN',
        'the bearer token is not one this venue issued in this boot; request a new one at POST /auth/token',
      );
    }
    const claims = claimsOf(payload, nowMs);
    this.checkLive(claims, nowMs);
    if (this.#verified.size >= VERIFIED_TOKENS_CACHED_MAX) {
      const oldest = this.#verified.keys().next().value;
      if (oldest !== undefined) this.#verified.delete(oldest);
    }
    this.#verified.set(token, claims);
    return claims;
  }

  /**
   * Re-checks claims verified earlier (a stream session holds them for the token's life): expiry to
   * the millisecond, then the denylist.
   */
  checkLive(claims: TokenClaims, nowMs: number): void {
    if (nowMs >= claims.expiresAtMs) {
      throw new VenueError(
        'TOKEN_EXPIRED',
        'the bearer token has expired; request a new one at POST /auth/token',
      );
    }
    if (this.#denylist.has(claims.tokenId)) {
      throw new VenueError(
        'TOKEN_REVOKED',
        'the bearer token was revoked; request a new one at POST /auth/token',
      );
    }
  }

  /** spec 4.6: refused at once, remembered exactly as long as the token would have been accepted. */
  revoke(claims: TokenClaims): void {
    this.#denylist.set(claims.tokenId, claims.expiresAtMs);
  }

  get denylistSize(): number {
    return this.#denylist.size;
  }

  /** Forgets revoked tokens that have expired anyway (they fail as expired from now on). */
  sweep(nowMs: number): void {
    for (const [token, claims] of this.#verified) {
      if (claims.expiresAtMs <= nowMs) this.#verified.delete(token);
    }
    for (const [tokenId, expiresAtMs] of this.#denylist) {
      if (expiresAtMs <= nowMs) this.#denylist.delete(tokenId);
    }
  }
}

/** The payload was signed by us, so a shape problem here is a bug: still refused, never trusted. */
function claimsOf(payload: Record<string, unknown>, nowMs: number): TokenClaims {
  const { sub, aud, jti, gen, exp, iat } = payload;
  const role = ACCOUNT_ROLES.find((r) => r === aud);
  if (
    typeof sub !== 'string' ||
    role === undefined ||
    typeof jti !== 'string' ||
    typeof gen !== 'number' ||
    typeof exp !== 'number'
  ) {
    throw new VenueError('INVALID_TOKEN', 'the bearer token lacks the claims this venue issues');
  }
  // jose checks only that `iat` is a number; a time ahead of ours was never an issue time of ours.
  if (typeof iat !== 'number' || iat * 1000 > nowMs + ACCESS_TOKEN_IAT_SKEW_MS) {
    throw new VenueError(
      'INVALID_TOKEN',
      'the bearer token claims to be issued in the future; request a new one at POST /auth/token',
    );
  }
  return { accountId: sub, role, tokenId: jti, generation: gen, expiresAtMs: exp * 1000 };
}
