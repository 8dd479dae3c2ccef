import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { VenueError } from '@venue/protocol';
import type { Account } from '../accounts/account-registry.ts';
import type { CredentialHash } from '../accounts/credential-hash.ts';
import {
  LOGIN_FAILURE_ADDRESSES_MAX,
  LOGIN_FAILURES_PER_ADDRESS_BUCKET,
  TOKEN_ISSUANCE_BUCKET,
} from '../config/limits.ts';
import { hintsOf, TokenBucket } from '../rate-limit/token-bucket.ts';

/**
 * What the token endpoint charges, and to whom (docs/security.md, "Login allowances"). Three
 * separate things, so that knowing an api_key is never enough to lock its owner out:
 *
 * - A secret pair that passed scrypt once in this boot is remembered as an HMAC under a boot key.
 *   A later login with that account is then answered from the memo in microseconds: the same pair
 *   is correct, any other pair is wrong (credentials never change within a boot). Guessing at an
 *   account whose owner has logged in costs no scrypt run at all.
 * - The issuance allowance (per account) is charged only for logins that proved the secret.
 * - Failed scrypt runs are charged to the client address that asked. An address that has spent its
 *   failures is refused before any hashing; the owner, elsewhere, is not.
 *
 * Remembering an HMAC of the secret in memory is safe because the venue generates every secret
 * (256 + 144 random bits, credential-generator.ts): nobody can search that space, fast hash or not.
 * It never leaves memory and dies with the boot key.
 */
export class LoginAllowances {
  readonly #key = randomBytes(32);
  /** accountId -> the proven pair's HMAC, and the stored hash it was proven against. */
  readonly #proven = new Map<string, { credential: CredentialHash; mac: Buffer }>();
  readonly #issuance = new Map<string, TokenBucket>();
  readonly #failures = new Map<string, TokenBucket>();
  /** Shared by every address beyond LOGIN_FAILURE_ADDRESSES_MAX (kept while it is not full). */
  #overflow: TokenBucket | null = null;

  /**
   * True when the pair is the one proven earlier in this boot, false when a different pair was
   * proven (so this one is wrong), null when nothing is proven yet and scrypt must decide.
   */
  provenMatch(account: Account, apiSecret: string, passphrase: string): boolean | null {
    const proven = this.#proven.get(account.accountId);
    if (proven === undefined || proven.credential !== account.credential) return null;
    return timingSafeEqual(proven.mac, this.#mac(account, apiSecret, passphrase));
  }

  /** The pair passed scrypt: later logins of the account are answered from the memo. */
  remember(account: Account, apiSecret: string, passphrase: string): void {
    this.#proven.set(account.accountId, {
      credential: account.credential,
      mac: this.#mac(account, apiSecret, passphrase),
    });
  }

  /** Charges one issued token to the account; throws 429 1400 when its allowance is spent. */
  chargeIssuance(accountId: string, nowMs: number): void {
    let bucket = this.#issuance.get(accountId);
    if (bucket === undefined) {
      bucket = new TokenBucket(TOKEN_ISSUANCE_BUCKET, nowMs);
      this.#issuance.set(accountId, bucket);
    }
    const refusal = bucket.take(1, nowMs);
    if (refusal !== null) {
      throw new VenueError(
        'TOKEN_ALLOWANCE_EXHAUSTED',
        `token issuance allowance of this account is spent; retry in about ${seconds(refusal.retryAfterMs)} s (reuse a token for its whole hour)`,
        hintsOf(refusal),
      );
    }
  }

  /**
   * Reserves one failure of `address` before a scrypt run (throws 429 1405 when they are spent).
   * The caller refunds it unless the run happened and failed, so concurrent guesses from one address
   * can never run more checks than its allowance.
   */
  reserveFailure(address: string, nowMs: number): TokenBucket {
    const bucket = this.#failureBucket(addressKey(address), nowMs);
    const refusal = bucket.take(1, nowMs);
    if (refusal !== null) {
      throw new VenueError(
        'LOGIN_FAILURES_EXHAUSTED',
        `too many failed logins from this address; retry in about ${seconds(refusal.retryAfterMs)} s`,
        hintsOf(refusal),
      );
    }
    return bucket;
  }

  /** Drops full buckets: they hold nothing a fresh bucket would not. */
  sweep(nowMs: number): void {
    for (const table of [this.#issuance, this.#failures]) {
      for (const [key, bucket] of table) if (bucket.isFull(nowMs)) table.delete(key);
    }
    if (this.#overflow?.isFull(nowMs)) this.#overflow = null;
  }

  #failureBucket(key: string, nowMs: number): TokenBucket {
    const known = this.#failures.get(key);
    if (known !== undefined) return known;
    if (this.#failures.size >= LOGIN_FAILURE_ADDRESSES_MAX) {
      this.#overflow ??= new TokenBucket(LOGIN_FAILURES_PER_ADDRESS_BUCKET, nowMs);
      return this.#overflow;
    }
    const bucket = new TokenBucket(LOGIN_FAILURES_PER_ADDRESS_BUCKET, nowMs);
    this.#failures.set(key, bucket);
    return bucket;
  }

  #mac(account: Account, apiSecret: string, passphrase: string): Buffer {
    // 0x00 cannot occur in any of the three (printable ASCII schemas), so the input is unambiguous.
    return createHmac('sha256', this.#key)
      .update(`${account.accountId}\u0000${apiSecret}\u0000${passphrase}`, 'utf8')
      .digest();
  }
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The unit an address allowance is kept for: an IPv4 address, or the /64 prefix of an IPv6 one
 * (one host usually holds a whole /64, so single IPv6 addresses would be free to rotate).
 */
export function addressKey(address: string): string {
  const bare = address.split('%', 1)[0] ?? '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.toLowerCase().split('::', 2);
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array.from({ length: Math.max(0, 8 - headParts.length - tailParts.length) }, () => '0');
  const groups = tail === undefined ? headParts : [...headParts, ...zeros, ...tailParts];
  const prefix = groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, ''));
  return `${prefix.join(':')}::/64`;
}
