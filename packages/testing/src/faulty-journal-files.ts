/**
 * A fault-injecting wrapper around the journal's file operations: the real disk, except that the
 * Nth write or the Nth fdatasync (counted across every file) throws, as an EIO would. It is typed
 * structurally so that it wraps any implementation of the journal's `JournalFiles` seam.
 */

interface AppendFileLike {
  write(bytes: Uint8Array): Promise<void>;
  datasync(): Promise<void>;
  close(): Promise<void>;
}

interface JournalFilesLike {
  create(path: string): Promise<AppendFileLike>;
}

export interface FaultPlan {
  /** 1-based index of the write that fails (after the journal opened), or undefined for none. */
  failWrite?: number;
  /** 1-based index of the fdatasync that fails, or undefined for none. */
  failSync?: number;
}

export interface FaultyFiles<F> {
  readonly files: F;
  /** Starts counting (call after the journal opened, so its segment creation is not counted). */
  arm(plan: FaultPlan): void;
  readonly writes: number;
  readonly syncs: number;
}

export function faultyJournalFiles<F extends JournalFilesLike>(base: F): FaultyFiles<F> {
  let plan: FaultPlan | null = null;
  let writes = 0;
  let syncs = 0;
  const io = (what: string) => Object.assign(new Error(`EIO: injected ${what} failure`), { code: 'EIO' });
  const wrap = (file: AppendFileLike): AppendFileLike => ({
    write: async (bytes) => {
      if (plan !== null && ++writes === plan.failWrite) throw io('write');
      await file.write(bytes);
    },
    datasync: async () => {
      if (plan !== null && ++syncs === plan.failSync) throw io('fdatasync');
      await file.datasync();
    },
    close: () => file.close(),
  });
  const files = { ...base, create: async (path: string) => wrap(await base.create(path)) } as F;
  return {
    files,
    arm: (next) => {
      plan = next;
      writes = 0;
      syncs = 0;
    },
    get writes() {
      return writes;
    },
    get syncs() {
      return syncs;
    },
  };
}
