import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { fieldFromHex, fieldToHex, loadNoteHasher, randomFieldElement } from '@venue/notes';
import { isLowOrderX25519 } from '@venue/protocol';
import { assertOwnerOnly, writePrivateFileSync } from './private-files.ts';
import { TradingKeys, type TradingKeysOptions } from './signing.ts';

/**
 * The bot's local key file (spec 5 item 9): the three keys a trader holds, generated together and
 * stored in one JSON file that only its owner may read (0600, refused otherwise).
 * - trading key (Ed25519): signs orders and cancels; the venue sees its public half;
 * - spending key (a BN254 field element): owns notes; the venue never sees it, only
 *   owner_commitment = Poseidon(32, spending key);
 * - viewing key (X25519): fill memos are encrypted to its public half (spec 2.1 viewing_pubkey);
 * - storage key (32 random bytes): seals the SDK's local order and note logs, so order details
 *   are not on disk in clear.
 * Nothing here prints a secret: inspecting or serialising a KeyFile shows its public parts only.
 */

export const KEY_FILE_FORMAT = 'venue-key-file-v1';

/** PKCS#8 DER header of a raw 32-byte X25519 private key (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** What may be shown of a key file: public values only. */
export interface KeyFilePublicParts {
  readonly trading_key: string;
  readonly viewing_pubkey: string;
  readonly owner_commitment: string;
}

interface KeyFileJson {
  format: typeof KEY_FILE_FORMAT;
  trading_seed: string;
  spending_key: string;
  viewing_private_key: string;
  storage_key: string;
}

export class KeyFile {
  readonly path: string;
  readonly #json: KeyFileJson;
  readonly #viewing: KeyObject;
  readonly publicParts: KeyFilePublicParts;

  private constructor(path: string, json: KeyFileJson, ownerCommitment: string) {
    this.path = path;
    this.#json = json;
    this.#viewing = createPrivateKey({
      key: Buffer.concat([X25519_PKCS8_PREFIX, Buffer.from(json.viewing_private_key, 'hex')]),
      format: 'der',
      type: 'pkcs8',
    });
    const viewingPubkey = rawPublicKey(this.#viewing);
    if (isLowOrderX25519(viewingPubkey)) throw new Error(`${path}: the viewing key is a low-order point`);
    this.publicParts = {
      trading_key: TradingKeys.fromSeed(this.tradingSeed()).publicKey,
      viewing_pubkey: viewingPubkey,
      owner_commitment: ownerCommitment,
    };
  }

  /** Generates fresh keys and writes them to `path` (mode 0600). Refuses to replace an existing file. */
  static async create(path: string): Promise<KeyFile> {
    const { privateKey } = generateKeyPairSync('x25519');
    const der = privateKey.export({ format: 'der', type: 'pkcs8' });
    const json: KeyFileJson = {
      format: KEY_FILE_FORMAT,
      trading_seed: randomBytes(32).toString('hex'),
      spending_key: fieldToHex(randomFieldElement()),
      viewing_private_key: der.subarray(der.length - 32).toString('hex'),
      storage_key: randomBytes(32).toString('hex'),
    };
    writePrivateFileSync(path, `${JSON.stringify(json, null, 2)}\n`, true);
    return KeyFile.load(path);
  }

  /** Reads a key file; refuses one that others can read, and says which field is malformed. */
  static async load(path: string): Promise<KeyFile> {
    assertOwnerOnly(path);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`${path}: not a key file (${(error as Error).message})`);
    }
    const json = checkedJson(path, parsed);
    const hasher = await loadNoteHasher();
    const spendingKey = fieldFromHex(json.spending_key, 'spending_key');
    return new KeyFile(path, json, fieldToHex(hasher.ownerCommitment(spendingKey)));
  }

  /** The trading key with its nonce counters (pass durable counters from openNonceCounters). */
  tradingKeys(options: TradingKeysOptions = {}): TradingKeys {
    return TradingKeys.fromSeed(this.tradingSeed(), options);
  }

  /** The spending key. It owns every note: it goes to the prover and nowhere else. */
  spendingKey(): bigint {
    return fieldFromHex(this.#json.spending_key, 'spending_key');
  }

  /** The X25519 private viewing key, for decrypting fill memos. */
  viewingPrivateKey(): KeyObject {
    return this.#viewing;
  }

  /** The key that seals the SDK's local logs (AES-256-GCM). */
  storageKey(): Buffer {
    return Buffer.from(this.#json.storage_key, 'hex');
  }

  toJSON(): KeyFilePublicParts {
    return this.publicParts;
  }

  [inspect.custom](): string {
    return `KeyFile { path: '${this.path}', trading_key: '${this.publicParts.trading_key}' }`;
  }

  private tradingSeed(): Uint8Array {
    return new Uint8Array(Buffer.from(this.#json.trading_seed, 'hex'));
  }
}

function rawPublicKey(privateKey: KeyObject): string {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - 32).toString('hex');
}

function checkedJson(path: string, value: unknown): KeyFileJson {
  if (typeof value !== 'object' || value === null) throw new Error(`${path}: not a key file`);
  const fields = value as Record<string, unknown>;
  if (fields['format'] !== KEY_FILE_FORMAT) {
    throw new Error(`${path}: expected format "${KEY_FILE_FORMAT}"; create one with \`venue keys generate\``);
  }
  for (const name of ['trading_seed', 'spending_key', 'viewing_private_key', 'storage_key']) {
    if (typeof fields[name] !== 'string' || !/^[0-9a-f]{64}$/.test(fields[name] as string)) {
      throw new Error(`${path}: field ${name} must be 64 lowercase hex characters`);
    }
  }
  return fields as unknown as KeyFileJson;
}
