import { Worker } from 'node:worker_threads';
import type { CoreConfig } from '@venue/core';
import { assert } from '@venue/protocol';
import {
  REPLICA_BACKLOG_BYTES_MAX,
  REPLICA_BOOT_CHUNK_BYTES,
  REPLICA_RESTARTS_MAX,
} from '../config/limits.ts';
import type { DurableRecords } from '../journal/file-journal.ts';
import type { JournalPosition } from '../journal/journal.ts';
import { ZERO_HASH } from '../journal/record-format.ts';
import type { StateCompanion } from '../venue/state-companion.ts';
import type { FromReplica, ReplicaStart, ToReplica } from './replica-protocol.ts';
import { coreSettingsOf } from './replica-state.ts';

export interface SnapshotReplicaOptions {
  readonly config: CoreConfig;
  /** The sequencer's companions: the replica builds its own of the same names (companion-registry). */
  readonly companions: readonly StateCompanion[];
  readonly sealingKey: Uint8Array;
  readonly backlogBytesMax?: number;
  readonly restartsMax?: number;
  /** Hears why the replica was dropped (the venue logs it; snapshots go inline until a restart). */
  readonly onFailure?: (error: Error) => void;
}

export interface ReplicaStats {
  readonly running: boolean;
  /** The last record the replica reported applied. */
  readonly appliedSeq: bigint;
  /** Journal bytes handed over and not yet applied. */
  readonly backlogBytes: number;
  readonly snapshots: number;
  readonly failures: number;
  readonly restarts: number;
}

interface PendingSnapshot {
  readonly seq: bigint;
  readonly resolve: (file: Uint8Array) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The sequencer's side of the snapshot replica (docs/durability.md): a worker thread that keeps its
 * own copy of the venue's state, fed with every durable journal batch, and serialises and seals the
 * snapshots, so the sequencer's thread never stops for one. This side only hands over buffers (by
 * transfer) and counts bytes; it never waits for the worker.
 *
 * Backpressure: the bytes handed over but not yet applied are bounded (REPLICA_BACKLOG_BYTES_MAX).
 * A replica that falls further behind, throws, or exits is dropped at once: its pending snapshot is
 * skipped, nothing is fed to it any more, and `running` turns false, so the next snapshot is taken
 * inline by the sequencer and seeds a fresh replica (`restart`), at most REPLICA_RESTARTS_MAX times a
 * boot. No record is ever held back or reordered for the replica's sake: the journal acknowledges
 * commands whatever the replica does.
 */
export class SnapshotReplica {
  readonly #options: SnapshotReplicaOptions;
  readonly #backlogBytesMax: number;
  readonly #restartsMax: number;
  #worker: Worker | null = null;
  /** Messages for a worker that has not said it is ready (one posted before that could be lost). */
  #unsent: { message: ToReplica; transfer: ArrayBuffer[] }[] = [];
  #ready = false;
  /** Settled when the current worker says it is ready, or is dropped before that. */
  #whenReady: { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } | null = null;
  #failed = false;
  #closed = false;
  #pending: PendingSnapshot | null = null;
  #appliedSeq = 0n;
  #backlogBytes = 0;
  #snapshots = 0;
  #failures = 0;
  #restarts = 0;
  /** Records replayed at boot, gathered into chunks (feedRecovered). */
  #chunk: { frames: Buffer[]; bytes: number; key: Buffer | null } = { frames: [], bytes: 0, key: null };

  constructor(options: SnapshotReplicaOptions) {
    this.#options = options;
    this.#backlogBytesMax = options.backlogBytesMax ?? REPLICA_BACKLOG_BYTES_MAX;
    this.#restartsMax = options.restartsMax ?? REPLICA_RESTARTS_MAX;
    assert(this.#backlogBytesMax > 0, 'backlogBytesMax must be positive');
  }

  /** Whether a snapshot can be asked of it now. */
  get running(): boolean {
    return this.#worker !== null && !this.#failed && !this.#closed;
  }

  get stats(): ReplicaStats {
    return {
      running: this.running,
      appliedSeq: this.#appliedSeq,
      backlogBytes: this.#backlogBytes,
      snapshots: this.#snapshots,
      failures: this.#failures,
      restarts: this.#restarts,
    };
  }

  /** Starts the worker from `seedText` (a composed snapshot, or null for an empty venue) after `at`. */
  start(seedText: string | null, at: JournalPosition = { seq: 0n, hash: ZERO_HASH }): void {
    assert(this.#worker === null && !this.#closed, 'the replica is started once');
    this.#whenReady = deferred();
    const data: ReplicaStart = {
      settings: coreSettingsOf(this.#options.config),
      companions: this.#options.companions.map((companion) => companion.name),
      sealingKey: this.#options.sealingKey,
      seedText,
      seedSeq: at.seq,
      seedHash: at.hash,
    };
    let worker: Worker;
    try {
      worker = new Worker(workerBootstrap(), { eval: true, workerData: data });
    } catch (error) {
      // A replica that cannot start leaves the venue on inline snapshots; it never stops a boot.
      const failure = error instanceof Error ? error : new Error(String(error));
      this.#failed = true;
      this.#failures += 1;
      this.#whenReady.reject(failure);
      this.#options.onFailure?.(failure);
      return;
    }
    // An aid, not a reason to stay alive: a venue that exits without close() is not held up by it.
    worker.unref();
    this.#worker = worker;
    this.#failed = false;
    this.#ready = false;
    this.#appliedSeq = at.seq;
    this.#backlogBytes = 0;
    worker.on('message', (message: FromReplica) => this.#onMessage(worker, message));
    worker.on('error', (error) => this.#drop(worker, error));
    worker.on('exit', (code) => this.#drop(worker, new Error(`the replica's thread exited (code ${code})`)));
  }

  /**
   * Resolves once the worker has restored its seed and takes records (benchmarks and tests wait
   * for it; the venue never does). Rejects if the replica is dropped first.
   */
  ready(): Promise<void> {
    return this.#whenReady?.promise ?? Promise.reject(new Error('the snapshot replica was not started'));
  }

  /** One durable commit batch (FileJournal.onDurable). Never throws, never waits. */
  feed(records: Pick<DurableRecords, 'frames' | 'key'>): void {
    if (!this.running) return;
    const frames = unpooled(records.frames);
    this.#backlogBytes += frames.length;
    if (this.#backlogBytes > this.#backlogBytesMax) {
      const worker = this.#worker as Worker;
      this.#drop(
        worker,
        new Error(
          `the replica fell more than REPLICA_BACKLOG_BYTES_MAX (${this.#backlogBytesMax} bytes) behind the journal`,
        ),
      );
      return;
    }
    this.#send({ type: 'records', frames, key: records.key }, [frames.buffer as ArrayBuffer]);
  }

  /** A record replayed at boot (recoverJournal's onRecord): gathered into chunks, see flushRecovered. */
  feedRecovered(frame: Buffer, key: Buffer): void {
    const chunk = this.#chunk;
    if (chunk.key !== null && (!chunk.key.equals(key) || chunk.bytes >= REPLICA_BOOT_CHUNK_BYTES)) {
      this.flushRecovered();
    }
    this.#chunk.key = key;
    this.#chunk.frames.push(Buffer.from(frame));
    this.#chunk.bytes += frame.length;
  }

  flushRecovered(): void {
    const { frames, bytes, key } = this.#chunk;
    this.#chunk = { frames: [], bytes: 0, key: null };
    if (key === null || frames.length === 0) return;
    const joined = Buffer.allocUnsafeSlow(bytes);
    let at = 0;
    for (const frame of frames) at += frame.copy(joined, at);
    this.feed({ frames: joined, key });
  }

  /**
   * The whole snapshot file (encodeSnapshotFile) of the state after the record at `at`, produced on
   * the replica's thread once it has applied that record. Rejects if the replica is dropped first.
   */
  snapshotAt(at: JournalPosition): Promise<Uint8Array> {
    if (!this.running) return Promise.reject(new Error('the snapshot replica is not running'));
    assert(this.#pending === null, 'the journal asks for one snapshot at a time');
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#pending = { seq: at.seq, resolve, reject };
      this.#send({ type: 'snapshot', seq: at.seq, hash: at.hash }, []);
    });
  }

  /**
   * After the replica was dropped: starts a fresh one from the snapshot the sequencer just composed
   * inline at `at`. False when the restarts of this boot are used up (or it is still running).
   */
  restart(seedText: string, at: JournalPosition): boolean {
    if (this.running || this.#closed || this.#restarts >= this.#restartsMax) return false;
    this.#restarts += 1;
    this.#worker = null;
    this.start(seedText, at);
    return true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const worker = this.#worker;
    this.#pending?.reject(new Error('the snapshot replica is closing'));
    this.#pending = null;
    if (worker !== null) await worker.terminate();
  }

  // ---- Worker messages ----

  #send(message: ToReplica, transfer: ArrayBuffer[]): void {
    if (!this.#ready) {
      this.#unsent.push({ message, transfer });
      return;
    }
    this.#worker?.postMessage(message, transfer);
  }

  #onMessage(worker: Worker, message: FromReplica): void {
    if (worker !== this.#worker || this.#failed) return;
    switch (message.type) {
      case 'ready': {
        this.#ready = true;
        const unsent = this.#unsent;
        this.#unsent = [];
        for (const { message: queued, transfer } of unsent) worker.postMessage(queued, transfer);
        this.#whenReady?.resolve();
        return;
      }
      case 'applied':
        this.#appliedSeq = message.seq;
        this.#backlogBytes -= message.bytes;
        return;
      case 'snapshot': {
        const pending = this.#pending;
        this.#pending = null;
        assert(
          pending !== null && pending.seq === message.seq,
          'the replica sent a snapshot nobody asked for',
        );
        this.#snapshots += 1;
        pending.resolve(message.file);
        return;
      }
      case 'failed':
        this.#drop(worker, new Error(`the snapshot replica failed: ${message.message}`));
        return;
    }
  }

  /** Drops the replica: no more feeding, its pending snapshot skipped, its thread ended. */
  #drop(worker: Worker, error: Error): void {
    if (worker !== this.#worker || this.#failed || this.#closed) return;
    this.#failed = true;
    this.#failures += 1;
    this.#unsent = [];
    this.#pending?.reject(error);
    this.#pending = null;
    this.#whenReady?.reject(error);
    void worker.terminate();
    this.#options.onFailure?.(error);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve: () => void = () => {};
  let reject: (error: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a drop is reported through onFailure; ready() is optional
  return { promise, resolve, reject };
}

/** A buffer whose memory can be transferred (not a slice of the shared pool): a copy if it must. */
function unpooled(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/**
 * Node 20 worker threads do not inherit the tsx loader of their parent, so the worker starts from a
 * small script that registers tsx and then imports replica-worker.ts (as notes/verifier.ts does).
 */
function workerBootstrap(): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./replica-worker.ts', import.meta.url).href;
  return `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
}
