import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TradingKey } from '@venue/protocol';
import { loadSdk } from './lazy.ts';
import { CliError } from './output.ts';

/**
 * The operator's Ed25519 signing keys that are not a trader's: the oracle publisher key and the dev
 * chain's governance authority. One key per file, JSON, owner-only (0600), written atomically and
 * never over an existing file. The file holds the 32-byte seed; commands print only the public key.
 */
export const SIGNING_KEY_FORMAT = 'venue-signing-key-v1';
export type SigningKeyRole = 'oracle-publisher' | 'chain-authority';

interface SigningKeyJson {
  readonly format: typeof SIGNING_KEY_FORMAT;
  readonly role: SigningKeyRole;
  readonly public_key: string;
  readonly seed: string;
}

/** Creates a new key in `file` (refused when the file exists) and returns it. */
export async function createSigningKeyFile(file: string, role: SigningKeyRole): Promise<TradingKey> {
  const { generateTradingKey, seedOf } = await import('@venue/protocol');
  const key = generateTradingKey();
  const json: SigningKeyJson = {
    format: SIGNING_KEY_FORMAT,
    role,
    public_key: key.publicKey,
    seed: Buffer.from(seedOf(key)).toString('hex'),
  };
  try {
    (await loadSdk()).writePrivateFileSync(resolve(file), `${JSON.stringify(json, null, 2)}\n`, true);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return key;
}

/** Reads the key of `role` from `file`, refusing a file others can read or one of another role. */
export async function loadSigningKeyFile(
  file: string,
  role: SigningKeyRole,
  option: string,
): Promise<TradingKey> {
  const path = resolve(file);
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new CliError(
        `${option} ${file}: readable or writable by others (mode ${mode.toString(8)}); run chmod 600 on it`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CliError(
        `${option} ${file}: no such file; ${role === 'oracle-publisher' ? 'venue oracle keygen' : 'venue chain start'} creates it`,
      );
    }
    throw error;
  }
  let json: Partial<SigningKeyJson>;
  try {
    json = JSON.parse(text) as Partial<SigningKeyJson>;
  } catch {
    throw new CliError(`${option} ${file}: not JSON; expected a key file written by venue`);
  }
  if (
    json.format !== SIGNING_KEY_FORMAT ||
    typeof json.seed !== 'string' ||
    !/^[0-9a-f]{64}$/.test(json.seed)
  ) {
    throw new CliError(
      `${option} ${file}: not a ${SIGNING_KEY_FORMAT} key file (format, role, public_key, seed)`,
    );
  }
  if (json.role !== role) {
    throw new CliError(
      `${option} ${file}: holds the ${String(json.role)} key; this option takes the ${role} key`,
    );
  }
  const { tradingKeyFromSeed } = await import('@venue/protocol');
  const key = tradingKeyFromSeed(Buffer.from(json.seed, 'hex'));
  if (key.publicKey !== json.public_key) {
    throw new CliError(`${option} ${file}: public_key does not belong to the seed; the file is damaged`);
  }
  return key;
}
