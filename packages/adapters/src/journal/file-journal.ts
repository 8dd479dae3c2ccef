/**
 * The local journal: sealed records in segment files, written with group commit. While one round
 * writes and fdatasyncs a batch, new appends gather in the next batch; each round makes its whole
 * batch durable with one write and one fdatasync, then resolves its appends in order. Nothing is
 * acknowledged before its round's fdatasync returns, and after any I/O error nothing ever is again
 * (an fsync that failed once must not be retried: the kernel may have dropped the dirty pages).
 */
import { join } from 'node:path';
import { assert, VenueError } from '@venue/protocol';
import {
  JOURNAL_IN_FLIGHT_RECORDS_MAX,
  JOURNAL_SEGMENT_BYTES_MAX,
  SNAPSHOT_INTERVAL_MS,
  SNAPSHOT_INTERVAL_RECORDS,
  SNAPSHOTS_KEPT,
} from '../config/limits.ts';
import { createFileDurably, writeFileDurably } from './durable-file.ts';
import { type AppendFile, type JournalFiles, NODE_JOURNAL_FILES } from './files.ts';
import type { Journal, JournalPosition } from './journal.ts';
import { writeHead } from './journal-head.ts';
import type { JournalRecord } from './journal-record.ts';
import { RecordEncoder } from './record-codec.ts';
import {
  encodeSegmentHeader,
  finishRecord,
  RECORD_BYTES_MAX,
  RECORD_HEADER_BYTES,
  recordHash,
  SEGMENT_HEADER_BYTES,
  segmentFileName,
  snapshotFileName,
  writeRecordHeader,
} from './record-format.ts';
import type { Recovery } from './recovery.ts';
import { fileKey, newSalt, sealInto, TAG_BYTES } from './sealing.ts';
import { encodeSnapshotFile } from './snapshot-file.ts';
import { snapshotIsDue } from './snapshot-schedule.ts';

export interface JournalOptions {
  readonly directory: string;
  /** The enclave's 32-byte sealing key. */
  readonly sealingKey: Uint8Array;
  /** Where recovery left the directory: the journal continues after `recovery.position`. */
  readonly recovery: Recovery;
  readonly files?: JournalFiles;
  /** Snapshot policy; defaults to SNAPSHOT_INTERVAL_RECORDS and SNAPSHOT_INTERVAL_MS. */
  readonly snapshotIntervalRecords?: number;
  readonly snapshotIntervalMs?: number;
  /** Wall time of opening, for the time-based snapshot policy. */
  readonly nowMs?: number;
  /**
   * Whether segments older than the oldest kept snapshot are deleted (the default). An operator who
   * archives the whole history for audit, or a test that replays from the first record, keeps them.
   */
  readonly pruneSegments?: boolean;
}

/** One segment file: its key exists from the first record sealed for it, its file from its first write. */
interface Segment {
  readonly firstSeq: bigint;
  readonly prevHash: Buffer;
  readonly salt: Buffer;
  readonly key: Buffer;
  /** Bytes assigned to it so far (header + every record sealed for it). */
  bytes: number;
  file: AppendFile | null;
}

/**
 * One commit batch, handed to durable-record listeners once its fdatasync returned: the record frames
 * exactly as written (sealed), back to back, and the key of their segment. `frames` is not from the
 * shared buffer pool and the journal does not touch it again, so a listener may keep it or transfer
 * it to another thread (a listener that transfers it must be the only one).
 */
export interface DurableRecords {
  readonly frames: Buffer;
  readonly key: Buffer;
  readonly firstSeq: bigint;
  readonly lastSeq: bigint;
}

/** Produces a whole snapshot file (encodeSnapshotFile) for the state after the record at `at`. */
export type SnapshotProducer = (at: JournalPosition) => Promise<Uint8Array>;

/** Records that become durable together. */
interface Batch {
  readonly segment: Segment;
  readonly frames: Buffer[];
  bytes: number;
  lastSeq: bigint;
  readonly done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class FileJournal implements Journal {
  readonly #directory: string;
  readonly #sealingKey: Uint8Array;
  readonly #files: JournalFiles;
  readonly #encoder = new RecordEncoder();
  readonly #snapshotIntervalRecords: number;
  readonly #snapshotIntervalMs: number;
  readonly #pruneSegments: boolean;
  /** First sequence numbers of the segment files on disk, ascending. */
  readonly #segmentSeqs: bigint[];
  /** Sequence numbers of the snapshot files on disk, ascending. */
  readonly #snapshotSeqs: bigint[];

  #lastSeq: bigint;
  #lastHash: Buffer;
  #sealing: Segment;
  #writingSegment: Segment | null = null;
  #pending: Batch | null = null;
  #writing: Batch | null = null;
  #flushing: Promise<void> | null = null;
  #failure: VenueError | null = null;
  #closed = false;
  #snapshotting: Promise<{ seq: bigint }> | null = null;
  #snapshotSeq: bigint;
  #snapshotAtMs: number;
  readonly #durableListeners: ((records: DurableRecords) => void)[] = [];

  private constructor(options: JournalOptions, position: JournalPosition) {
    this.#directory = options.directory;
    this.#sealingKey = options.sealingKey;
    this.#files = options.files ?? NODE_JOURNAL_FILES;
    this.#snapshotIntervalRecords = options.snapshotIntervalRecords ?? SNAPSHOT_INTERVAL_RECORDS;
    this.#snapshotIntervalMs = options.snapshotIntervalMs ?? SNAPSHOT_INTERVAL_MS;
    this.#pruneSegments = options.pruneSegments ?? true;
    this.#segmentSeqs = [...options.recovery.segmentSeqs];
    this.#snapshotSeqs = [...options.recovery.snapshotSeqs];
    this.#lastSeq = position.seq;
    this.#lastHash = position.hash;
    this.#sealing = this.#newSegment(position.seq + 1n);
    this.#snapshotSeq = options.recovery.snapshot?.seq ?? 0n;
    this.#snapshotAtMs = options.nowMs ?? 0;
  }

  /**
   * Opens the journal after recovery. Every boot starts a new segment file (new salt, new key), so
   * sequence numbers that a truncated tail once used are never sealed again under the same key.
   */
  static async open(options: JournalOptions): Promise<FileJournal> {
    const journal = new FileJournal(options, options.recovery.position);
    await journal.#createSegmentFile(journal.#sealing);
    return journal;
  }

  get inFlight(): number {
    return (this.#pending?.frames.length ?? 0) + (this.#writing?.frames.length ?? 0);
  }

  get hasRoom(): boolean {
    return this.inFlight < JOURNAL_IN_FLIGHT_RECORDS_MAX;
  }

  get lastSeq(): bigint {
    return this.#lastSeq;
  }

  get snapshotAtMs(): number {
    return this.#snapshotAtMs;
  }

  get snapshotSeq(): bigint {
    return this.#snapshotSeq;
  }

  get failure(): VenueError | null {
    return this.#failure;
  }

  /** A local disk does not stall: an I/O error fails the journal at once. */
  get stalled(): VenueError | null {
    return null;
  }

  get position(): JournalPosition {
    return { seq: this.#lastSeq, hash: this.#lastHash };
  }

  /**
   * Hears every commit batch once it is durable, in sequence order (the snapshot replica follows the
   * journal this way). A listener must not throw; if it does, its error is dropped and the journal
   * carries on: a listener's trouble is never a reason to refuse commands.
   */
  onDurable(listener: (records: DurableRecords) => void): void {
    this.#durableListeners.push(listener);
  }

  append(record: JournalRecord): Promise<{ seq: bigint }> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(closedError());
    assert(
      this.hasRoom,
      `the journal already holds JOURNAL_IN_FLIGHT_RECORDS_MAX (${JOURNAL_IN_FLIGHT_RECORDS_MAX}) records waiting for fsync; check hasRoom before applying a command`,
    );
    const plain = this.#encoder.encode(record);
    const seq = this.#lastSeq + 1n;
    const batch = this.#batchFor(seq);
    const frame = Buffer.allocUnsafe(RECORD_HEADER_BYTES + plain.length + TAG_BYTES);
    writeRecordHeader(frame, seq, batch.frames.length === 0 ? seq : batchFirstSeqOf(batch), this.#lastHash);
    const sealed = sealInto(
      batch.segment.key,
      seq,
      frame.subarray(8, RECORD_HEADER_BYTES),
      plain,
      frame,
      RECORD_HEADER_BYTES,
    );
    finishRecord(frame, sealed);
    this.#lastSeq = seq;
    this.#lastHash = recordHash(frame);
    batch.frames.push(frame);
    batch.bytes += frame.length;
    batch.lastSeq = seq;
    batch.segment.bytes += frame.length;
    if (this.#flushing === null) this.#flushing = Promise.resolve().then(() => this.#flushLoop());
    return batch.done.then(() => ({ seq }));
  }

  sync(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return (this.#pending ?? this.#writing)?.done ?? Promise.resolve();
  }

  snapshotDue(nowMs: number): boolean {
    if (this.#snapshotting !== null || this.#failure !== null || this.#closed) return false;
    return snapshotIsDue(this.#lastSeq - this.#snapshotSeq, nowMs - this.#snapshotAtMs, {
      records: this.#snapshotIntervalRecords,
      ms: this.#snapshotIntervalMs,
    });
  }

  writeSnapshot(snapshot: string, nowMs: number): Promise<{ seq: bigint }> {
    // Sealed once its records are durable, so the acknowledgements waiting on them leave first.
    return this.writeSnapshotFrom(
      (at) => this.sync().then(() => encodeSnapshotFile(this.#sealingKey, at, snapshot)),
      nowMs,
    );
  }

  /**
   * Like writeSnapshot, but the file comes from `produce` (the snapshot replica seals it on its own
   * thread). `produce` is called at once with the position; the file is stored once every record up
   * to it is durable. A producer that fails skips this snapshot and leaves the journal healthy (the
   * next one is due at once); a failure to store the file is an I/O failure and fails the journal.
   */
  writeSnapshotFrom(produce: SnapshotProducer, nowMs: number): Promise<{ seq: bigint }> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(closedError());
    if (this.#snapshotting !== null) return this.#snapshotting;
    const at = this.position;
    const produced = produce(at);
    const durable = this.sync();
    this.#snapshotting = Promise.all([produced, durable]).then(
      ([bytes]) =>
        this.#storeSnapshot(bytes, at.seq).then(
          () => {
            this.#snapshotSeq = at.seq;
            this.#snapshotAtMs = nowMs;
            this.#snapshotting = null;
            return { seq: at.seq };
          },
          (error: unknown) => {
            this.#snapshotting = null;
            throw this.#fail(error);
          },
        ),
      (error: unknown) => {
        this.#snapshotting = null;
        // A failed record is the journal's failure (already recorded); a failed producer is not.
        throw this.#failure ?? error;
      },
    );
    return this.#snapshotting;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#flushing;
    await this.#snapshotting?.catch(() => undefined);
    await this.#writingSegment?.file?.close();
    this.#writingSegment = null;
  }

  // ---- Batches and segments ----

  /** The batch a record with this sequence number joins, starting one (and a segment) if needed. */
  #batchFor(seq: bigint): Batch {
    if (this.#pending !== null) return this.#pending;
    if (this.#sealing.bytes >= JOURNAL_SEGMENT_BYTES_MAX) this.#sealing = this.#newSegment(seq);
    let resolve: () => void = () => {};
    let reject: (error: unknown) => void = () => {};
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined); // every append and sync hears of a failure through its own chain
    this.#pending = { segment: this.#sealing, frames: [], bytes: 0, lastSeq: seq, done, resolve, reject };
    return this.#pending;
  }

  #newSegment(firstSeq: bigint): Segment {
    const salt = newSalt();
    return {
      firstSeq,
      prevHash: this.#lastHash,
      salt,
      key: fileKey(this.#sealingKey, salt, 'segment'),
      bytes: SEGMENT_HEADER_BYTES,
      file: null,
    };
  }

  async #flushLoop(): Promise<void> {
    while (this.#pending !== null && this.#failure === null) {
      const batch = this.#pending;
      this.#pending = null;
      this.#writing = batch;
      try {
        if (batch.segment !== this.#writingSegment) await this.#rotateTo(batch.segment);
        const file = batch.segment.file;
        assert(file !== null, 'a batch is written to a segment whose file exists');
        const bytes = this.#bytesOf(batch);
        await file.write(bytes);
        await file.datasync();
        this.#writing = null;
        this.#tellDurable(batch, bytes);
      } catch (error) {
        this.#fail(error);
        break;
      }
      batch.resolve();
    }
    this.#flushing = null;
  }

  /** The batch's bytes; unpooled when a listener will receive them. */
  #bytesOf(batch: Batch): Buffer {
    if (this.#durableListeners.length === 0 && batch.frames.length === 1) return batch.frames[0] as Buffer;
    if (this.#durableListeners.length === 0) return Buffer.concat(batch.frames, batch.bytes);
    const bytes = Buffer.allocUnsafeSlow(batch.bytes);
    let at = 0;
    for (const frame of batch.frames) at += frame.copy(bytes, at);
    return bytes;
  }

  #tellDurable(batch: Batch, frames: Buffer): void {
    if (this.#durableListeners.length === 0) return;
    const firstSeq = batchFirstSeqOf(batch);
    const records: DurableRecords = { frames, key: batch.segment.key, firstSeq, lastSeq: batch.lastSeq };
    for (const listener of this.#durableListeners) {
      try {
        listener(records);
      } catch {
        // See onDurable: dropped on purpose.
      }
    }
  }

  /** Closes the current segment (its records are already durable) and creates the next one. */
  async #rotateTo(segment: Segment): Promise<void> {
    const previous = this.#writingSegment;
    if (previous !== null && previous.file !== null) await previous.file.close();
    await this.#createSegmentFile(segment);
  }

  /**
   * Creates a segment file so that it either exists with its whole header, durably, or not at all:
   * header into a temp file, fdatasync, rename, fsync of the directory. The file stays open for appends.
   */
  async #createSegmentFile(segment: Segment): Promise<void> {
    const name = join(this.#directory, segmentFileName(segment.firstSeq));
    const file = await createFileDurably(this.#files, name, encodeSegmentHeader(segment));
    // Before any record goes in, the head names this segment, so losing it cannot pass unnoticed.
    await writeHead(this.#files, this.#directory, this.#sealingKey, segment.firstSeq);
    segment.file = file;
    this.#writingSegment = segment;
    if (!this.#segmentSeqs.includes(segment.firstSeq)) this.#segmentSeqs.push(segment.firstSeq);
  }

  // ---- Snapshots ----

  async #storeSnapshot(bytes: Uint8Array, seq: bigint): Promise<void> {
    await writeFileDurably(this.#files, join(this.#directory, snapshotFileName(seq)), bytes);
    if (!this.#snapshotSeqs.includes(seq)) this.#snapshotSeqs.push(seq);
    await this.#pruneFiles();
  }

  /**
   * Keeps the newest SNAPSHOTS_KEPT snapshots and every segment holding a record after the oldest of
   * them: recovery may fall back to that snapshot and then needs every record after it.
   */
  async #pruneFiles(): Promise<void> {
    const removed: string[] = [];
    while (this.#snapshotSeqs.length > SNAPSHOTS_KEPT) {
      const seq = this.#snapshotSeqs.shift() as bigint;
      removed.push(snapshotFileName(seq));
    }
    const oldestKept = this.#snapshotSeqs[0] ?? 0n;
    while (this.#pruneSegments && this.#segmentSeqs.length > 1) {
      const next = this.#segmentSeqs[1] as bigint;
      if (next - 1n > oldestKept || this.#segmentSeqs[0] === this.#writingSegment?.firstSeq) break;
      removed.push(segmentFileName(this.#segmentSeqs.shift() as bigint));
    }
    if (removed.length === 0) return;
    for (const name of removed) await this.#files.remove(join(this.#directory, name));
    await this.#files.syncDirectory(this.#directory);
  }

  // ---- Failure ----

  /** Puts the journal in its failed state for good and rejects everything waiting. */
  #fail(cause: unknown): VenueError {
    if (this.#failure === null) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      this.#failure = new VenueError(
        'JOURNAL_UNAVAILABLE',
        `the journal in ${this.#directory} failed to make records durable (${detail}); it refuses every write until the venue restarts and recovers from disk`,
      );
      const file = this.#writingSegment?.file;
      this.#writingSegment = null;
      file?.close().catch(() => undefined);
    }
    const failure = this.#failure;
    for (const batch of [this.#writing, this.#pending]) batch?.reject(failure);
    this.#writing = null;
    this.#pending = null;
    return failure;
  }
}

function batchFirstSeqOf(batch: Batch): bigint {
  const first = batch.frames[0];
  assert(first !== undefined, 'a batch with records has a first record');
  return first.readBigUInt64LE(8);
}

function closedError(): VenueError {
  return new VenueError('SHUTTING_DOWN', 'the journal is closed; the venue is stopping');
}

/** Largest frame, for callers sizing buffers. */
export const JOURNAL_RECORD_BYTES_MAX = RECORD_BYTES_MAX;
