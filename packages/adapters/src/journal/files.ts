/**
 * The journal's only way to the disk. Production uses NODE_JOURNAL_FILES (real files, real fsync);
 * tests wrap it to make the Nth write or sync fail (packages/testing), never to fake the disk.
 */
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';

/** A file the journal appends to. `write` writes every byte or throws. */
export interface AppendFile {
  write(bytes: Uint8Array): Promise<void>;
  /** fdatasync: the bytes (and the file size) are on stable storage when it resolves. */
  datasync(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalFiles {
  /** Creates `path`, which must not exist, for appending. */
  create(path: string): Promise<AppendFile>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** fsync of a directory: makes creations, renames and removals inside it durable. */
  syncDirectory(path: string): Promise<void>;
  /** Creates the directory (and its parents) if missing. */
  makeDirectory(path: string): Promise<void>;
  list(directory: string): Promise<string[]>;
  read(path: string): Promise<Buffer>;
  /** Cuts the file to `length` bytes and fsyncs it. */
  truncate(path: string, length: number): Promise<void>;
}

export const NODE_JOURNAL_FILES: JournalFiles = {
  create: async (path) => {
    const handle = await open(path, 'wx');
    return {
      write: async (bytes) => {
        let done = 0;
        while (done < bytes.length) {
          const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
          done += bytesWritten;
        }
      },
      datasync: () => handle.datasync(),
      close: () => handle.close(),
    };
  },
  rename: (from, to) => rename(from, to),
  remove: (path) => unlink(path),
  syncDirectory: async (path) => {
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  makeDirectory: async (path) => {
    await mkdir(path, { recursive: true });
  },
  list: (directory) => readdir(directory),
  read: (path) => readFile(path),
  truncate: async (path, length) => {
    const handle = await open(path, 'r+');
    try {
      await handle.truncate(length);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};
