import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Files that only their owner may read: the key file, the sealed order and note logs, the nonce
 * reservations, the CLI's token cache. Written whole to a temporary name, fsynced, renamed over the
 * target and the folder fsynced, so a crash leaves either the old file or the new one, never half
 * of one. This is the client side's one durable write (the venue's is adapters' writeFileDurably,
 * which goes through the journal's file seam; docs/architecture.md says why there are two).
 */

/** Owner read/write only (the key file and the sealed logs). */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner only, for the folder that holds them. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates the folder (owner-only) if it is missing. An existing folder keeps its mode. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Writes `text` to `file` atomically and durably, mode 0600. `exclusive` refuses to replace a file.
 * On failure the target keeps what it held and the temporary file is removed.
 */
export function writePrivateFileSync(file: string, text: string, exclusive = false): void {
  ensurePrivateDir(dirname(file));
  if (exclusive && exists(file)) {
    throw new Error(`${file} already exists; refusing to overwrite it (move it away first)`);
  }
  const partial = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.partial`;
  // 'wx' is O_CREAT|O_EXCL: never write through a file or link someone else placed at that name.
  const fd = openSync(partial, 'wx', PRIVATE_FILE_MODE);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  fsyncDir(dirname(file));
}

/**
 * Refuses a secret file that others can read or write: a key that leaked to the group is no longer
 * the owner's alone, and the bot should stop rather than keep using it.
 */
export function assertOwnerOnly(file: string): void {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new Error(
      `${file} is readable or writable by others (mode ${mode.toString(8)}); run chmod 600 on it`,
    );
  }
}

export function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The rename is durable only once the folder entry is: fsync the folder too. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function stateFile(dir: string, name: string): string {
  return join(dir, name);
}
