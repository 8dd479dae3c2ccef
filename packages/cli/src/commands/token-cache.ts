import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writePrivateFileSync } from '@venue/sdk';

/**
 * The CLI's bearer-token cache (docs/operations.md "Token cache"). Every `venue` command is its own
 * process, and the venue meters logins per account (10, then one every 6 s), so a script that runs
 * many commands must not log in for each. One file per (venue origin, api key) keeps the last token,
 * sealed under a key derived from that account's own api_secret and passphrase: the file alone
 * yields nothing, and whoever holds the credentials could log in anyway, so the cache adds no
 * secret worth stealing. The file is owner-only (0600, folder 0700), created under an exclusive
 * temporary name, fsynced and renamed into place.
 *
 * A cached token is used only for the same boot of the same attested venue: the binding (session
 * id, certificate key, measurement, platform root) is sealed with it, and any change drops it.
 */

export const TOKEN_CACHE_FORMAT = 'venue-token-cache-v1';
export const TOKEN_CACHE_DIR_NAME = 'tokens';
/** Largest cache file read: a token and a few fields are well under 1 KiB; a bigger file is not ours. */
export const TOKEN_CACHE_FILE_BYTES_MAX = 8 * 1024;

const DIR_MODE = 0o700;
const SALT_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Who may reuse a token: one account on one venue origin (the api key names the account). */
export interface CacheOwner {
  readonly origin: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly passphrase: string;
}

/** The token as the SDK holds it (HeldToken), plus the boot it was issued by. */
export interface CachedToken {
  readonly token: string;
  readonly accountId: string;
  /** Local wall-clock ms of the exact expiry, counted from when the login was sent. */
  readonly expiresAtMs: number;
  /** Local wall-clock ms from which the token is renewed before use. */
  readonly renewAtMs: number;
  /** sha256 over the venue boot's session id and attestation (see bootBinding). */
  readonly binding: string;
}

/** What ties a token to one boot of one attested venue: a restart or a new attestation changes it. */
export interface BootFacts {
  readonly sessionId: string;
  readonly spkiSha256: string;
  readonly measurement: string;
  readonly platformKeyId: string;
}

export function bootBinding(facts: BootFacts): string {
  const text = [facts.sessionId, facts.spkiSha256, facts.measurement, facts.platformKeyId].join('\n');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The binding of the boot an attested client is connected to. */
export function bootBindingOf(client: {
  readonly sessionId: string;
  readonly spkiSha256: string;
  readonly report: { readonly measurement: string; readonly platform_key_id: string };
}): string {
  return bootBinding({
    sessionId: client.sessionId,
    spkiSha256: client.spkiSha256,
    measurement: client.report.measurement,
    platformKeyId: client.report.platform_key_id,
  });
}

export class TokenCache {
  readonly file: string;
  readonly #owner: CacheOwner;

  /** `dir` is the folder of the key file; the cache lives in its `tokens` sub-folder. */
  constructor(dir: string, owner: CacheOwner) {
    this.#owner = owner;
    const name = createHash('sha256')
      .update(`${TOKEN_CACHE_FORMAT}\0${owner.origin}\0${owner.apiKey}`, 'utf8')
      .digest('hex')
      .slice(0, 32);
    // The name is a digest, so a directory listing shows neither the venue nor the api key.
    this.file = join(dir, TOKEN_CACHE_DIR_NAME, `${name}.token`);
  }

  /**
   * The cached token if it belongs to this boot (`binding`) and is not yet due for renewal at
   * `nowMs`; otherwise null, and a file that cannot serve again (another boot, unreadable, opened
   * by other users, sealed under other credentials) is removed.
   */
  read(binding: string, nowMs: number): CachedToken | null {
    const cached = this.#open();
    if (cached === null) return null;
    if (cached.binding !== binding) {
      this.clear();
      return null;
    }
    return nowMs < cached.renewAtMs ? cached : null;
  }

  /** Stores `token` (replacing any earlier one) atomically, owner-only. */
  write(token: CachedToken): void {
    const dir = dirname(this.file);
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    // mkdir keeps the mode of a folder that already existed; the cache folder must be ours alone.
    if ((statSync(dir).mode & 0o077) !== 0) {
      throw new Error(`${dir} is open to other users; run chmod 700 on it (it holds login tokens)`);
    }
    writePrivateFileSync(this.file, this.#seal(token));
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }

  #open(): CachedToken | null {
    let text: string;
    try {
      const stat = statSync(this.file);
      if ((stat.mode & 0o077) !== 0 || stat.size > TOKEN_CACHE_FILE_BYTES_MAX) {
        this.clear();
        return null;
      }
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const cached = this.#unseal(text);
    if (cached === null) this.clear();
    return cached;
  }

  #key(salt: Buffer): Buffer {
    const { apiSecret, passphrase } = this.#owner;
    return Buffer.from(hkdfSync('sha256', `${apiSecret}\0${passphrase}`, salt, TOKEN_CACHE_FORMAT, 32));
  }

  /** The origin and api key are authenticated data: a file renamed to another account's slot fails. */
  #aad(): Buffer {
    return Buffer.from(`${TOKEN_CACHE_FORMAT}\0${this.#owner.origin}\0${this.#owner.apiKey}`, 'utf8');
  }

  #seal(token: CachedToken): string {
    const salt = randomBytes(SALT_BYTES);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key(salt), nonce);
    cipher.setAAD(this.#aad());
    const plain = Buffer.from(
      JSON.stringify({
        token: token.token,
        account_id: token.accountId,
        expires_at_ms: token.expiresAtMs,
        renew_at_ms: token.renewAtMs,
        binding: token.binding,
      }),
      'utf8',
    );
    const sealed = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return `${JSON.stringify({
      format: TOKEN_CACHE_FORMAT,
      salt: salt.toString('hex'),
      nonce: nonce.toString('hex'),
      sealed: sealed.toString('base64'),
    })}\n`;
  }

  /** Null for anything that is not a cache file sealed for this owner. */
  #unseal(text: string): CachedToken | null {
    try {
      const file = JSON.parse(text) as Record<string, unknown>;
      if (file['format'] !== TOKEN_CACHE_FORMAT) return null;
      const salt = Buffer.from(String(file['salt']), 'hex');
      const nonce = Buffer.from(String(file['nonce']), 'hex');
      const sealed = Buffer.from(String(file['sealed']), 'base64');
      if (salt.length !== SALT_BYTES || nonce.length !== NONCE_BYTES || sealed.length <= TAG_BYTES)
        return null;
      const decipher = createDecipheriv('aes-256-gcm', this.#key(salt), nonce);
      decipher.setAAD(this.#aad());
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const value = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
      const { token, account_id, expires_at_ms, renew_at_ms, binding } = value;
      if (
        typeof token !== 'string' ||
        typeof account_id !== 'string' ||
        typeof expires_at_ms !== 'number' ||
        typeof renew_at_ms !== 'number' ||
        typeof binding !== 'string'
      ) {
        return null;
      }
      return { token, accountId: account_id, expiresAtMs: expires_at_ms, renewAtMs: renew_at_ms, binding };
    } catch {
      // A wrong key (other credentials), a torn or edited file: the cache is a cache, log in again.
      return null;
    }
  }
}
