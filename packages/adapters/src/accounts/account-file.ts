/**
 * The accounts, kept durably beside the journal: one sealed file rewritten whole on every change
 * (accounts change rarely: an operator's action or a settings update). The file is replaced
 * atomically (temp file, fdatasync, rename, fsync of the directory), so a crash leaves either the old
 * or the new version, never a mix. It is sealed like the journal (AES-256-GCM under a key derived from
 * the enclave's sealing key and a fresh salt), so the disk holds no api_key, label or credential hash
 * in clear.
 */
import { join } from 'node:path';
import { assert } from '@venue/protocol';
import { ACCOUNTS_FILE_BYTES_MAX } from '../config/limits.ts';
import { writeFileDurably } from '../journal/durable-file.ts';
import { type JournalFiles, NODE_JOURNAL_FILES } from '../journal/files.ts';
import { fileKey, newSalt, open, SALT_BYTES, sealInto, TAG_BYTES } from '../journal/sealing.ts';
import type { Account, StoredAccount } from './account-registry.ts';

export const ACCOUNTS_FILE_NAME = 'accounts.sealed';
const MAGIC = 'VACC';
const VERSION = 1;
/** magic (4) + version u32 LE (4) + salt (32). */
const HEADER_BYTES = 8 + SALT_BYTES;

/**
 * A second home for the sealed file (the journal's JetStream object store): written after the local
 * file on every change, and read first at load, so a standby on another machine has the accounts.
 */
export interface AccountsMirror {
  put(bytes: Uint8Array): Promise<void>;
  get(): Promise<Uint8Array | null>;
}

export class AccountFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountFileError';
  }
}

export class AccountFile {
  readonly #directory: string;
  readonly #sealingKey: Uint8Array;
  readonly #files: JournalFiles;
  /** Saves run one at a time; a save asked for while one runs writes the state as of its turn. */
  #chain: Promise<void> = Promise.resolve();
  #mirror: AccountsMirror | null = null;

  constructor(directory: string, sealingKey: Uint8Array, files: JournalFiles = NODE_JOURNAL_FILES) {
    this.#directory = directory;
    this.#sealingKey = sealingKey;
    this.#files = files;
  }

  /** From now on every save also goes to `mirror`, and a load prefers the mirror's copy. */
  useMirror(mirror: AccountsMirror): void {
    this.#mirror = mirror;
  }

  /**
   * The stored accounts, or an empty list when the file does not exist yet (a first boot). With a
   * mirror holding a copy, that copy replaces the local file first: the mirror is written on every
   * change the primary acknowledged, so it is never older than a local file it differs from.
   */
  async load(): Promise<StoredAccount[]> {
    await this.#files.makeDirectory(this.#directory);
    const mirrored = this.#mirror === null ? null : await this.#mirror.get();
    if (mirrored !== null) {
      await writeFileDurably(this.#files, join(this.#directory, ACCOUNTS_FILE_NAME), Buffer.from(mirrored));
    }
    const names = await this.#files.list(this.#directory);
    for (const name of names) {
      if (name === `${ACCOUNTS_FILE_NAME}.tmp`) await this.#files.remove(join(this.#directory, name));
    }
    if (!names.includes(ACCOUNTS_FILE_NAME)) return [];
    const path = join(this.#directory, ACCOUNTS_FILE_NAME);
    const bytes = await this.#files.read(path);
    if (bytes.length < HEADER_BYTES + TAG_BYTES || bytes.length > ACCOUNTS_FILE_BYTES_MAX) {
      throw new AccountFileError(`${path} has an impossible size (${bytes.length} bytes)`);
    }
    if (bytes.toString('latin1', 0, 4) !== MAGIC || bytes.readUInt32LE(4) !== VERSION) {
      throw new AccountFileError(`${path} is not an accounts file of version ${VERSION}`);
    }
    const header = bytes.subarray(0, HEADER_BYTES);
    const plain = open(this.#key(header.subarray(8)), 0n, header, bytes.subarray(HEADER_BYTES));
    if (plain === null) {
      throw new AccountFileError(
        `${path} does not open under this enclave's sealing key (another measurement or platform, or the file was altered)`,
      );
    }
    return JSON.parse(plain.toString('utf8')) as StoredAccount[];
  }

  /** Stores `snapshot()`'s accounts durably; resolves once the new file is in place. */
  save(snapshot: () => readonly Account[]): Promise<void> {
    const next = this.#chain.then(() => this.#write(snapshot().map(storedOf)));
    this.#chain = next.catch(() => undefined);
    return next;
  }

  async #write(accounts: readonly StoredAccount[]): Promise<void> {
    const plain = Buffer.from(JSON.stringify(accounts), 'utf8');
    const salt = newSalt();
    const bytes = Buffer.allocUnsafe(HEADER_BYTES + plain.length + TAG_BYTES);
    bytes.write(MAGIC, 0, 'latin1');
    bytes.writeUInt32LE(VERSION, 4);
    salt.copy(bytes, 8);
    const written = sealInto(
      this.#key(salt),
      0n,
      bytes.subarray(0, HEADER_BYTES),
      plain,
      bytes,
      HEADER_BYTES,
    );
    assert(written === plain.length + TAG_BYTES, 'sealed accounts fill the buffer exactly');
    await writeFileDurably(this.#files, join(this.#directory, ACCOUNTS_FILE_NAME), bytes);
    await this.#mirror?.put(bytes);
  }

  #key(salt: Uint8Array): Buffer {
    return fileKey(this.#sealingKey, salt, 'accounts');
  }
}

function storedOf(account: Account): StoredAccount {
  return {
    accountId: account.accountId,
    apiKey: account.apiKey,
    role: account.role,
    ...(account.label === undefined ? {} : { label: account.label }),
    credential: account.credential,
    status: account.status,
    tokenGeneration: account.tokenGeneration,
    ...(account.tokensInvalidBeforeMs === undefined
      ? {}
      : { tokensInvalidBeforeMs: account.tokensInvalidBeforeMs }),
    settings: { ...account.settings },
  };
}
