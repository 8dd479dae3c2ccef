import type { AppendFile, JournalFiles } from '@venue/adapters';
import type { SimRandom } from './random.ts';

/**
 * The simulator's disk: the journal's file seam (`JournalFiles`, adapters/src/journal/files.ts) over
 * memory, with the page cache made explicit. A write lands in the cache at once; an fdatasync asks
 * for the file's bytes written so far to become durable, and completes only when the simulator
 * says so (`completeSyncs`), so acknowledgements wait on a disk the seed drives. Directory entries
 * (create, rename, remove) are durable once `syncDirectory` ran.
 *
 * A crash keeps what was made durable plus, for each file, a seed-chosen prefix of the bytes that
 * were only cached: none of them, all of them, or a cut anywhere (a torn record). That is what a
 * real disk may leave after power loss, and exactly what journal recovery must cope with.
 */
interface SimFile {
  /** The file's bytes as written (kept as chunks: concatenating on every append is quadratic). */
  chunks: Buffer[];
  length: number;
  /** Bytes known to be on stable storage. */
  synced: number;
}

function bytesOf(file: SimFile): Buffer {
  if (file.chunks.length > 1) file.chunks = [Buffer.concat(file.chunks)];
  return file.chunks[0] ?? Buffer.alloc(0);
}

function fileOf(bytes: Buffer): SimFile {
  return { chunks: [bytes], length: bytes.length, synced: bytes.length };
}

interface PendingSync {
  readonly file: SimFile;
  /** The file's length when fdatasync was called: what it promises. */
  readonly upTo: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export class SimDisk implements JournalFiles {
  /** Current directory entries (what `list` and `read` see). */
  #names = new Map<string, SimFile>();
  /** Entries as of the last directory sync: what survives a crash. */
  #durableNames = new Map<string, SimFile>();
  #pending: PendingSync[] = [];
  /** When false (boot, checks), every fdatasync completes at once. */
  holdSyncs = false;
  /** The next fdatasync to complete fails with EIO instead (a failing disk). */
  failNextSync = false;
  syncsFailed = 0;

  get pendingSyncs(): number {
    return this.#pending.length;
  }

  /** Completes the oldest `count` pending fdatasyncs (all of them by default), in call order. */
  completeSyncs(count = Number.POSITIVE_INFINITY): void {
    while (count > 0 && this.#pending.length > 0) {
      count -= 1;
      const sync = this.#pending.shift() as PendingSync;
      if (this.failNextSync) {
        this.failNextSync = false;
        this.syncsFailed += 1;
        sync.reject(Object.assign(new Error('EIO: simulated fdatasync failure'), { code: 'EIO' }));
        continue;
      }
      sync.file.synced = Math.max(sync.file.synced, sync.upTo);
      sync.resolve();
    }
  }

  /**
   * Power loss: pending fdatasyncs never complete, unsynced directory changes are lost, and each
   * file keeps its durable bytes plus a random prefix of the rest. Returns the bytes dropped.
   */
  crash(random: SimRandom): { droppedBytes: number; torn: boolean } {
    this.#pending = [];
    let droppedBytes = 0;
    let torn = false;
    const survivors = new Map<string, SimFile>();
    for (const [name, file] of [...this.#durableNames].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const cached = file.length - file.synced;
      let kept = 0;
      if (cached > 0) {
        const roll = random.below(3);
        kept = roll === 0 ? 0 : roll === 1 ? cached : random.below(cached);
        torn ||= roll === 2;
      }
      droppedBytes += cached - kept;
      const length = file.synced + kept;
      survivors.set(name, fileOf(Buffer.from(bytesOf(file).subarray(0, length))));
    }
    this.#names = survivors;
    this.#durableNames = new Map(survivors);
    return { droppedBytes, torn };
  }

  /** A copy of what is on the disk now (cached bytes included), for read-only audits. */
  clone(): SimDisk {
    const copy = new SimDisk();
    const copies = new Map<SimFile, SimFile>();
    const copyOf = (file: SimFile) => {
      let copied = copies.get(file);
      if (copied === undefined) {
        copied = fileOf(Buffer.from(bytesOf(file)));
        copies.set(file, copied);
      }
      return copied;
    };
    copy.#names = new Map([...this.#names].map(([name, file]) => [name, copyOf(file)]));
    copy.#durableNames = new Map([...this.#durableNames].map(([name, file]) => [name, copyOf(file)]));
    return copy;
  }

  // ---- JournalFiles ----

  async create(path: string): Promise<AppendFile> {
    if (this.#names.has(path)) throw Object.assign(new Error(`EEXIST: ${path}`), { code: 'EEXIST' });
    const file: SimFile = { chunks: [], length: 0, synced: 0 };
    this.#names.set(path, file);
    let closed = false;
    return {
      write: async (bytes) => {
        if (closed) throw new Error(`write to closed file ${path}`);
        file.chunks.push(Buffer.from(bytes));
        file.length += bytes.length;
      },
      datasync: () => {
        if (!this.holdSyncs && !this.failNextSync) {
          file.synced = file.length;
          return Promise.resolve();
        }
        return new Promise<void>((resolve, reject) => {
          this.#pending.push({ file, upTo: file.length, resolve, reject });
          if (!this.holdSyncs) this.completeSyncs();
        });
      },
      close: async () => {
        closed = true;
      },
    };
  }

  async rename(from: string, to: string): Promise<void> {
    const file = this.#names.get(from);
    if (file === undefined) throw Object.assign(new Error(`ENOENT: ${from}`), { code: 'ENOENT' });
    this.#names.delete(from);
    this.#names.set(to, file);
  }

  async remove(path: string): Promise<void> {
    if (!this.#names.delete(path)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  }

  async syncDirectory(_path: string): Promise<void> {
    this.#durableNames = new Map(this.#names);
  }

  async makeDirectory(_path: string): Promise<void> {}

  async list(directory: string): Promise<string[]> {
    const prefix = `${directory}/`;
    return [...this.#names.keys()]
      .filter((name) => name.startsWith(prefix) && !name.slice(prefix.length).includes('/'))
      .map((name) => name.slice(prefix.length))
      .sort();
  }

  async read(path: string): Promise<Buffer> {
    const file = this.#names.get(path);
    if (file === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return Buffer.from(bytesOf(file));
  }

  async truncate(path: string, length: number): Promise<void> {
    const file = this.#names.get(path);
    if (file === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    const cut = fileOf(Buffer.from(bytesOf(file).subarray(0, length)));
    file.chunks = cut.chunks;
    file.length = cut.length;
    file.synced = cut.length; // truncate fsyncs the file
  }
}
