import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SEALED_RECORD_BYTES_MAX } from './limits.ts';
import { ensurePrivateDir, exists, fsyncDir, PRIVATE_FILE_MODE } from './private-files.ts';

/**
 * An append-only log of records sealed with AES-256-GCM under the key file's storage key, one
 * record per line (hex of iv, ciphertext, tag). The SDK keeps its order intents and note openings
 * here: they must survive a crash (each append is fdatasynced before it returns), and they are the
 * owner's trading details, so they are never written in clear. The log's name is bound in as
 * associated data, so a record cannot be moved from one log to another.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedLog<T> {
  readonly file: string;
  readonly #key: Buffer;
  readonly #aad: Buffer;
  #fd: number | null = null;

  constructor(file: string, key: Buffer, name: string) {
    if (key.length !== 32) throw new RangeError(`a storage key is 32 bytes, received ${key.length}`);
    this.file = file;
    this.#key = key;
    this.#aad = Buffer.from(`venue-sdk-log-v1\u0000${name}`);
  }

  /**
   * Every record in order. A torn last line (a crash during an append) is dropped, since that
   * append never returned; any other unreadable line means tampering or a wrong key, and throws.
   */
  readAll(): T[] {
    if (!exists(this.file)) return [];
    const lines = readFileSync(this.file, 'utf8').split('\n');
    const records: T[] = [];
    lines.forEach((line, index) => {
      if (line === '') return;
      try {
        records.push(decodeJson(this.#open(line)) as T);
      } catch (error) {
        const last = lines.slice(index + 1).every((rest) => rest === '');
        if (!last)
          throw new Error(`${this.file}: record ${index + 1} does not open (${(error as Error).message})`);
      }
    });
    return records;
  }

  /** Appends one record and returns once it is on disk. */
  append(record: T): void {
    const text = encodeJson(record);
    if (text.length > SEALED_RECORD_BYTES_MAX) {
      throw new RangeError(`a log record holds at most ${SEALED_RECORD_BYTES_MAX} bytes`);
    }
    const fd = this.#descriptor();
    writeSync(fd, `${this.#seal(text)}\n`);
    fdatasyncSync(fd);
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }

  #descriptor(): number {
    if (this.#fd === null) {
      const fresh = !exists(this.file);
      ensurePrivateDir(dirname(this.file));
      this.#fd = openSync(this.file, 'a', PRIVATE_FILE_MODE);
      if (fresh) fsyncDir(dirname(this.file));
    }
    return this.#fd;
  }

  #seal(text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(this.#aad);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex');
  }

  #open(line: string): string {
    const bytes = Buffer.from(line, 'hex');
    if (bytes.length < IV_BYTES + TAG_BYTES || bytes.length > SEALED_RECORD_BYTES_MAX * 2) {
      throw new Error('wrong length');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(this.#aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}

/**
 * JSON with exact bigints: a bigint is written as {"$u64": "<decimal>"}. The name is historical:
 * a minus sign is read back too (the wallet keys a match whose id it never learned by a negative
 * id, settlement-outputs.ts missedMatch).
 */
export function encodeJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { $u64: v.toString() } : v));
}

export function decodeJson(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const digits = (v as { $u64?: unknown }).$u64;
      if (keys.length === 1 && typeof digits === 'string' && /^-?\d{1,20}$/.test(digits))
        return BigInt(digits);
    }
    return v;
  });
}
