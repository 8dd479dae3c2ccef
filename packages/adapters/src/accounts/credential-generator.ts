import { randomBytes } from 'node:crypto';

/**
 * Fresh credentials for a new account, all from the OS CSPRNG and all within the protocol's
 * credential schemas (ApiKey, ApiSecret, Passphrase): base64url text, so they survive URLs, shells
 * and config files unquoted.
 */
export interface GeneratedCredentials {
  readonly accountId: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
}

export function generateCredentials(): GeneratedCredentials {
  return {
    accountId: `acct_${randomBytes(16).toString('hex')}`,
    // 144 bits: the key is an identifier, not a secret, but must not be guessable to enumerate.
    apiKey: `vk_${randomBytes(18).toString('base64url')}`,
    // 256 bits of secret.
    apiSecret: randomBytes(32).toString('base64url'),
    // 144 bits; a second factor kept apart from the secret (e.g. in the bot's config vs a vault).
    passphrase: randomBytes(18).toString('base64url'),
  };
}
