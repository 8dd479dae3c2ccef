/**
 * The one way the venue puts a whole file on disk: write it under a temporary name, fdatasync it,
 * rename it over the target, fsync the directory. A crash leaves the old file or the new one, never
 * part of one, and once the promise resolves the new one survives power loss. Everything goes
 * through the `JournalFiles` seam, so the simulator's disk decides what a crash keeps.
 * One writer per path: the temporary name is the target's plus TEMP_SUFFIX.
 */
import { dirname } from 'node:path';
import type { AppendFile, JournalFiles } from './files.ts';
import { TEMP_SUFFIX } from './record-format.ts';

/** Replaces (or creates) `path` with `bytes`, atomically and durably. */
export async function writeFileDurably(files: JournalFiles, path: string, bytes: Uint8Array): Promise<void> {
  await placeDurably(files, path, bytes, false);
}

/**
 * Creates `path` holding `bytes` (a header), atomically and durably, and returns it still open for
 * appends: the file either exists with its whole header or not at all.
 */
export async function createFileDurably(
  files: JournalFiles,
  path: string,
  bytes: Uint8Array,
): Promise<AppendFile> {
  return await placeDurably(files, path, bytes, true);
}

async function placeDurably(
  files: JournalFiles,
  path: string,
  bytes: Uint8Array,
  keepOpen: boolean,
): Promise<AppendFile> {
  const temp = `${path}${TEMP_SUFFIX}`;
  // A crash during an earlier write may have left its temp file; this write replaces it.
  await files.remove(temp).catch(() => undefined);
  const file = await files.create(temp);
  let open = true;
  try {
    await file.write(bytes);
    await file.datasync();
    if (!keepOpen) {
      open = false;
      await file.close();
    }
    await files.rename(temp, path);
  } catch (error) {
    // The target still holds its old bytes (or is absent); leave no half-written temp beside it.
    if (open) await file.close().catch(() => undefined);
    await files.remove(temp).catch(() => undefined);
    throw error;
  }
  try {
    await files.syncDirectory(dirname(path));
  } catch (error) {
    if (open) await file.close().catch(() => undefined);
    throw error;
  }
  return file;
}
