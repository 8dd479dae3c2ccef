import Type, { type Static } from 'typebox';
import { Count, Strict, UnixMs } from './primitives.ts';

/**
 * Account credentials and bearer tokens (spec 4.2, 4.6, 5). The spec fixes the field names; the
 * formats below are ours. Every credential is bounded in length and charset so that a token request
 * can be refused on shape alone, before any KDF or database work (spec 4.2: an unknown key uses no
 * allowance, so the cheap checks must come first).
 */

/** Stable per-account id: `acct_` and 16 random bytes in lowercase hex. Never reused. */
export function AccountId(doc: { description?: string } = {}) {
  return Type.String({
    minLength: 37,
    maxLength: 37,
    pattern: '^acct_[0-9a-f]{32}$',
    'x-expected': '"acct_" followed by 32 lowercase hex characters',
    ...doc,
  });
}

/**
 * Public half of the login credential. URL-safe (base64url alphabet) because the admin routes
 * carry it in the path (spec 4.7 `/admin/accounts/{api_key}/...`).
 */
export function ApiKey(doc: { description?: string } = {}) {
  return Type.String({
    minLength: 16,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]{16,64}$',
    'x-expected': '16-64 characters of A-Z a-z 0-9 _ -',
    ...doc,
  });
}

/** Secret half of the login credential; the venue stores only a slow hash of it. */
export function ApiSecret(doc: { description?: string } = {}) {
  return Type.String({
    minLength: 32,
    maxLength: 128,
    pattern: '^[A-Za-z0-9_-]{32,128}$',
    'x-expected': '32-128 characters of A-Z a-z 0-9 _ -',
    ...doc,
  });
}

/** Third factor of the login credential: printable ASCII without spaces, 8-128 characters. */
export function Passphrase(doc: { description?: string } = {}) {
  return Type.String({
    minLength: 8,
    maxLength: 128,
    pattern: '^[\\x21-\\x7e]{8,128}$',
    'x-expected': '8-128 printable ASCII characters without spaces',
    ...doc,
  });
}

/** Largest access token we issue or accept, in characters (a compact JWS with our claims is ~400). */
export const ACCESS_TOKEN_LENGTH_MAX = 2048;

/** A compact JWS (three base64url segments), as issued by POST /auth/token (spec 4.2: JWT format). */
export function AccessToken(doc: { description?: string } = {}) {
  return Type.String({
    minLength: 5,
    maxLength: ACCESS_TOKEN_LENGTH_MAX,
    pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
    'x-expected': `a JWT: three base64url segments joined by dots, at most ${ACCESS_TOKEN_LENGTH_MAX} characters`,
    ...doc,
  });
}

/** spec 5 item 5: tokens live at most one hour. */
export const TOKEN_LIFETIME_SECONDS_MAX = 3600;

/** spec 4.2: POST /auth/token request. */
export const TokenRequestSchema = Strict(
  {
    api_key: ApiKey({ description: 'Provisioned by an admin (POST /admin/accounts).' }),
    api_secret: ApiSecret({ description: 'Shown once at provisioning; never logged.' }),
    passphrase: Passphrase({ description: 'Shown once at provisioning; never logged.' }),
  },
  { title: 'TokenRequest' },
);
export type TokenRequest = Static<typeof TokenRequestSchema>;

/** spec 4.2: POST /auth/token response. */
export const TokenResponseSchema = Strict(
  {
    access_token: AccessToken({
      description: 'Send as `Authorization: Bearer <token>` or in a login frame.',
    }),
    token_type: Type.Literal('Bearer'),
    expires_in: Count(TOKEN_LIFETIME_SECONDS_MAX, {
      description: 'Seconds from issue to the exact expiry (spec 5: no grace period).',
    }),
    account_id: AccountId({ description: 'Stable id of the account the token belongs to.' }),
  },
  { title: 'TokenResponse' },
);
export type TokenResponse = Static<typeof TokenResponseSchema>;

/**
 * spec 4.6, our choice of method and path: `DELETE /auth/token` revokes the token carried in the
 * Authorization header. It takes no body. The denylist entry lives until the token's own expiry,
 * which is `denylisted_until_ms`; after that the token is refused as expired anyway.
 */
export const RevokeTokenResponseSchema = Strict(
  {
    revoked: Type.Literal(true),
    denylisted_until_ms: UnixMs({
      description: 'Expiry of the revoked token; the denylist entry ends then.',
    }),
  },
  { title: 'RevokeTokenResponse' },
);
export type RevokeTokenResponse = Static<typeof RevokeTokenResponseSchema>;
