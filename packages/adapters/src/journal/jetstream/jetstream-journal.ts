/**
 * The journal on a NATS JetStream stream (docs/durability.md, "The journal on JetStream"). Each
 * record is one message whose body is the sealed frame the file journal would write; message N of
 * the stream is record N. An append resolves once the stream acknowledged it, which with
 * `replicas: 3` means a majority of the cluster stored it.
 *
 * Group commit: appends are published asynchronously, at most `ackWindow` unacknowledged at a time,
 * and resolve in sequence order as their acks arrive.
 *
 * Fencing: every publish says which record must be the stream's last: its number
 * (`Nats-Expected-Last-Sequence` = seq - 1) and its id (`Nats-Expected-Last-Msg-Id` = its hash).
 * Once another writer appended, the next publish is refused, the journal fails with
 * JOURNAL_FENCED and the venue stops taking orders. A refused publish whose own bytes are already
 * stored at its position (a retry of a publish whose ack was lost) counts as acknowledged.
 *
 * Losing the quorum is not a failure: a publish that times out (or finds no responders) puts the
 * journal in its stalled state. It keeps every unacknowledged record and republishes them in order,
 * with the same message id and expectation, until the stream answers; intake meanwhile gets
 * JOURNAL_STALLED. Nothing is acknowledged while stalled, and nothing is lost: the records stay in
 * memory and the core that applied them stays as it is, because they will be stored in exactly
 * this order, or the journal fails for good.
 */
import { JetStreamApiError, type PubAck } from '@nats-io/jetstream';
import { assert, VenueError } from '@venue/protocol';
import {
  JOURNAL_IN_FLIGHT_RECORDS_MAX,
  SNAPSHOT_INTERVAL_MS,
  SNAPSHOT_INTERVAL_RECORDS,
  SNAPSHOTS_KEPT,
} from '../../config/limits.ts';
import type { DurableRecords, SnapshotProducer } from '../file-journal.ts';
import type { Journal, JournalPosition } from '../journal.ts';
import type { JournalRecord } from '../journal-record.ts';
import { RecordEncoder } from '../record-codec.ts';
import { finishRecord, RECORD_HEADER_BYTES, recordHash, writeRecordHeader } from '../record-format.ts';
import { fileKey, newSalt, sealInto, TAG_BYTES } from '../sealing.ts';
import { encodeSnapshotFile } from '../snapshot-file.ts';
import type { JetStreamLease } from './jetstream-lease.ts';
import type { JetStreamLink } from './jetstream-link.ts';
import { recordHeaders } from './record-message.ts';
import { parseSnapshotName, snapshotObjectName } from './snapshot-objects.ts';

/** JetStream API errors of a failed expectation: `Nats-Expected-Last-Msg-Id`, `-Last-Sequence`. */
const WRONG_LAST_MSG_ID = 10070;
const WRONG_LAST_SEQUENCE = 10071;
/** "no message found": nothing is stored at the number asked for. */
const NO_MESSAGE_FOUND = 10037;

function isRefusal(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === WRONG_LAST_SEQUENCE || error.code === WRONG_LAST_MSG_ID)
  );
}

export interface JetStreamJournalOptions {
  readonly link: JetStreamLink;
  readonly sealingKey: Uint8Array;
  /** Where recovery from the stream left off: the journal continues after it. */
  readonly position: JournalPosition;
  /** The newest snapshot recovery found (0n for none). */
  readonly snapshotSeq?: bigint;
  readonly snapshotIntervalRecords?: number;
  readonly snapshotIntervalMs?: number;
  readonly nowMs?: number;
  /** Publishes waiting for their ack at most (the group-commit window). Default 1024. */
  readonly ackWindow?: number;
  /** How long one publish waits for its ack before the journal counts as stalled. Default 2000 ms. */
  readonly publishTimeoutMs?: number;
  /** Pause between republishing rounds while stalled. Default 250 ms. */
  readonly retryPauseMs?: number;
  /** Tells the venue the journal stalled (error) or resumed (null): logs and metrics. */
  readonly onStall?: (stalled: VenueError | null) => void;
  /** The primary's lease, released when the journal closes so a standby need not wait it out. */
  readonly lease?: JetStreamLease;
}

interface Entry {
  readonly seq: bigint;
  readonly frame: Buffer;
  readonly msgId: string;
  /** The message id (= hash) of the record before it, which must be the stream's last message. */
  readonly prevMsgId: string;
  acked: boolean;
  readonly done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class JetStreamJournal implements Journal {
  readonly #link: JetStreamLink;
  readonly #sealingKey: Uint8Array;
  readonly #encoder = new RecordEncoder();
  readonly #salt: Buffer;
  readonly #key: Buffer;
  readonly #ackWindow: number;
  readonly #publishTimeoutMs: number;
  readonly #retryPauseMs: number;
  readonly #snapshotIntervalRecords: number;
  readonly #snapshotIntervalMs: number;
  readonly #onStall: (stalled: VenueError | null) => void;
  readonly #lease: JetStreamLease | null;
  readonly #durableListeners: ((records: DurableRecords) => void)[] = [];

  /** Records not yet acknowledged, in sequence order; the first `#sent` of them were published. */
  readonly #unacked: Entry[] = [];
  #sent = 0;
  /** Publishes waiting for an answer. */
  #outstanding = 0;
  #quiet: (() => void) | null = null;
  #lastSeq: bigint;
  #lastHash: Buffer;
  #failure: VenueError | null = null;
  #stalled: VenueError | null = null;
  #closed = false;
  #snapshotting: Promise<{ seq: bigint }> | null = null;
  #snapshotSeq: bigint;
  #snapshotAtMs: number;

  constructor(options: JetStreamJournalOptions) {
    this.#link = options.link;
    this.#sealingKey = options.sealingKey;
    // One salt (so one key) per boot: a sequence number a failed writer once sealed is never sealed
    // again under the same key by the next one.
    this.#salt = newSalt();
    this.#key = fileKey(options.sealingKey, this.#salt, 'segment');
    this.#ackWindow = options.ackWindow ?? 1024;
    this.#publishTimeoutMs = options.publishTimeoutMs ?? 2000;
    this.#retryPauseMs = options.retryPauseMs ?? 250;
    this.#snapshotIntervalRecords = options.snapshotIntervalRecords ?? SNAPSHOT_INTERVAL_RECORDS;
    this.#snapshotIntervalMs = options.snapshotIntervalMs ?? SNAPSHOT_INTERVAL_MS;
    this.#onStall = options.onStall ?? (() => {});
    this.#lease = options.lease ?? null;
    this.#lastSeq = options.position.seq;
    this.#lastHash = Buffer.from(options.position.hash);
    this.#snapshotSeq = options.snapshotSeq ?? 0n;
    this.#snapshotAtMs = options.nowMs ?? 0;
  }

  get inFlight(): number {
    return this.#unacked.length;
  }

  /** False while stalled too: the venue's own commands wait in the engine instead of piling up here. */
  get hasRoom(): boolean {
    return this.#stalled === null && this.#unacked.length < JOURNAL_IN_FLIGHT_RECORDS_MAX;
  }

  get lastSeq(): bigint {
    return this.#lastSeq;
  }

  get position(): JournalPosition {
    return { seq: this.#lastSeq, hash: this.#lastHash };
  }

  get failure(): VenueError | null {
    return this.#failure;
  }

  /** JOURNAL_STALLED while the stream does not acknowledge (no quorum), else null. */
  get snapshotAtMs(): number {
    return this.#snapshotAtMs;
  }

  get snapshotSeq(): bigint {
    return this.#snapshotSeq;
  }

  get stalled(): VenueError | null {
    return this.#stalled;
  }

  /** The salt of this boot's records (the follower derives their key from it). */
  get salt(): Buffer {
    return this.#salt;
  }

  /** Same as FileJournal.onDurable: acknowledged records, in order, with the key that opens them. */
  onDurable(listener: (records: DurableRecords) => void): void {
    this.#durableListeners.push(listener);
  }

  append(record: JournalRecord): Promise<{ seq: bigint }> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(closedError());
    assert(
      this.#unacked.length < JOURNAL_IN_FLIGHT_RECORDS_MAX,
      `the journal already holds JOURNAL_IN_FLIGHT_RECORDS_MAX (${JOURNAL_IN_FLIGHT_RECORDS_MAX}) unacknowledged records; check hasRoom before applying a command`,
    );
    const plain = this.#encoder.encode(record);
    const seq = this.#lastSeq + 1n;
    const frame = Buffer.allocUnsafeSlow(RECORD_HEADER_BYTES + plain.length + TAG_BYTES);
    // Each record is its own batch on the stream: a record is stored whole or not at all.
    writeRecordHeader(frame, seq, seq, this.#lastHash);
    const sealed = sealInto(
      this.#key,
      seq,
      frame.subarray(8, RECORD_HEADER_BYTES),
      plain,
      frame,
      RECORD_HEADER_BYTES,
    );
    finishRecord(frame, sealed);
    const hash = recordHash(frame);
    const prevMsgId = this.#lastHash.toString('hex');
    this.#lastSeq = seq;
    this.#lastHash = hash;
    let resolve: () => void = () => {};
    let reject: (error: unknown) => void = () => {};
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined); // each caller hears of a failure through its own chain
    // The message id is the frame's hash: the stream answers "duplicate" only for these very bytes.
    this.#unacked.push({
      seq,
      frame,
      msgId: hash.toString('hex'),
      prevMsgId,
      acked: false,
      done,
      resolve,
      reject,
    });
    this.#pump();
    return done.then(() => ({ seq }));
  }

  sync(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return this.#unacked.at(-1)?.done ?? Promise.resolve();
  }

  snapshotDue(nowMs: number): boolean {
    if (this.#snapshotting !== null || this.#failure !== null || this.#closed) return false;
    const records = this.#lastSeq - this.#snapshotSeq;
    if (records >= BigInt(this.#snapshotIntervalRecords)) return true;
    return records > 0n && nowMs - this.#snapshotAtMs >= this.#snapshotIntervalMs;
  }

  writeSnapshot(snapshot: string, nowMs: number): Promise<{ seq: bigint }> {
    return this.writeSnapshotFrom(
      (at) => this.sync().then(() => encodeSnapshotFile(this.#sealingKey, at, snapshot)),
      nowMs,
    );
  }

  /**
   * Stores the sealed snapshot file in the object store once its records are acknowledged. Unlike
   * the file journal, a snapshot the broker fails to store leaves the journal healthy: the records
   * are all in the stream, so a missing snapshot only makes the next recovery replay longer.
   */
  writeSnapshotFrom(produce: SnapshotProducer, nowMs: number): Promise<{ seq: bigint }> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(closedError());
    if (this.#snapshotting !== null) return this.#snapshotting;
    const at = this.position;
    const stored = Promise.all([produce(at), this.sync()]).then(async ([bytes]) => {
      await this.#link.snapshots.putBlob({ name: snapshotObjectName(at.seq) }, bytes);
      this.#snapshotSeq = at.seq;
      this.#snapshotAtMs = nowMs;
      await this.#pruneSnapshots();
      return { seq: at.seq };
    });
    this.#snapshotting = stored.finally(() => {
      this.#snapshotting = null;
    });
    return this.#snapshotting;
  }

  /**
   * Waits (at most `waitMs`) for unacknowledged records, then closes the connection; records still
   * unacknowledged then reject with SHUTTING_DOWN (they were never acknowledged to anyone).
   */
  async close(waitMs = 5000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const drained = this.sync().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    await this.#snapshotting?.catch(() => undefined);
    if (this.#failure === null && this.#unacked.length > 0) this.#fail(closedError());
    await this.#lease?.release();
    await this.#link.close().catch(() => undefined);
  }

  // ---- Publishing ----

  #pump(): void {
    if (this.#stalled !== null || this.#failure !== null) return;
    while (this.#sent < this.#unacked.length && this.#sent < this.#ackWindow) {
      const entry = this.#unacked[this.#sent] as Entry;
      this.#sent += 1;
      this.#publish(entry).then(
        (ack) => this.#onAck(entry, ack),
        (error: unknown) => this.#onPublishError(entry, error),
      );
    }
  }

  #publish(entry: Entry): Promise<PubAck> {
    this.#outstanding += 1;
    const published = this.#link.client.publish(this.#link.subject, entry.frame, {
      msgID: entry.msgId,
      // Both: the number says where the record goes, the id (a hash) that our own record is before
      // it. With publishes pipelined, the number alone would let a deposed writer's later records
      // land once the new writer's records happen to make the count match.
      expect:
        entry.seq === 1n
          ? { lastSequence: 0 }
          : { lastSequence: Number(entry.seq - 1n), lastMsgID: entry.prevMsgId },
      headers: recordHeaders(this.#salt),
      timeout: this.#publishTimeoutMs,
    });
    return published.finally(() => {
      this.#outstanding -= 1;
      if (this.#outstanding === 0 && this.#quiet !== null) this.#quiet();
    });
  }

  #onAck(entry: Entry, ack: PubAck): void {
    if (this.#failure !== null) return;
    if (BigInt(ack.seq) !== entry.seq) {
      this.#fail(
        fenced(
          `the stream stored record ${entry.seq} as its message ${ack.seq}: another writer shares the stream`,
        ),
      );
      return;
    }
    entry.acked = true;
    this.#release();
    this.#pump();
  }

  #onPublishError(entry: Entry, error: unknown): void {
    if (this.#failure !== null || entry.acked) return;
    if (isRefusal(error)) {
      // Either our own earlier try of this record was stored (its ack lost), or another writer got there.
      void this.#settleRefused(entry);
      return;
    }
    // Anything else (timeout, no responders, a lost connection, a cluster without its leader) may pass.
    this.#stall(error);
  }

  /** A publish refused for its expected last sequence: acknowledged if our bytes are there, else fenced. */
  async #settleRefused(entry: Entry): Promise<void> {
    let stored: Buffer | null;
    try {
      const message = await this.#link.manager.streams.getMessage(this.#link.settings.stream, {
        seq: Number(entry.seq),
      });
      stored = message === null ? null : Buffer.from(message.data);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === NO_MESSAGE_FOUND)) {
        this.#stall(error);
        return;
      }
      stored = null;
    }
    if (stored?.equals(entry.frame) === true) {
      this.#onAck(entry, { stream: this.#link.settings.stream, seq: Number(entry.seq), duplicate: true });
      return;
    }
    this.#fail(fenced(`the journal stream no longer ends with this venue's record ${entry.seq - 1n}`));
  }

  /** Resolves acknowledged records from the front, in order, and tells the listeners. */
  #release(): void {
    const released: Entry[] = [];
    while (this.#unacked.length > 0 && (this.#unacked[0] as Entry).acked) {
      released.push(this.#unacked.shift() as Entry);
      this.#sent -= 1;
    }
    if (released.length === 0) return;
    this.#tellDurable(released);
    for (const entry of released) entry.resolve();
  }

  #tellDurable(entries: readonly Entry[]): void {
    if (this.#durableListeners.length === 0) return;
    const frames = Buffer.allocUnsafeSlow(entries.reduce((sum, entry) => sum + entry.frame.length, 0));
    let at = 0;
    for (const entry of entries) at += entry.frame.copy(frames, at);
    const records: DurableRecords = {
      frames,
      key: this.#key,
      firstSeq: (entries[0] as Entry).seq,
      lastSeq: (entries.at(-1) as Entry).seq,
    };
    for (const listener of this.#durableListeners) {
      try {
        listener(records);
      } catch {
        // As in FileJournal.onDurable: a listener's trouble never refuses commands.
      }
    }
  }

  // ---- Stalled: no quorum ----

  #stall(cause: unknown): void {
    if (this.#stalled !== null || this.#failure !== null) return;
    const detail = cause instanceof Error ? cause.message : String(cause);
    this.#stalled = new VenueError(
      'JOURNAL_STALLED',
      `the journal's brokers do not acknowledge writes (${detail}); nothing is lost, and the venue takes orders again once the cluster has a quorum; retry later`,
    );
    this.#onStall(this.#stalled);
    void this.#republish();
  }

  /**
   * Once every publish in the air has answered, republishes the unacknowledged records one at a
   * time, in order, until each is acknowledged; then leaves the stalled state.
   */
  async #republish(): Promise<void> {
    if (this.#outstanding > 0) await new Promise<void>((resolve) => (this.#quiet = resolve));
    this.#quiet = null;
    while (this.#failure === null) {
      const entry = this.#unacked.find((candidate) => !candidate.acked);
      if (entry === undefined) break;
      try {
        this.#onAck(entry, await this.#publish(entry));
      } catch (error) {
        if (error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE)
          await this.#settleRefused(entry);
        if (!entry.acked && this.#failure === null) await pause(this.#retryPauseMs);
      }
    }
    if (this.#failure !== null) return;
    this.#sent = 0;
    this.#stalled = null;
    this.#onStall(null);
    this.#pump();
  }

  // ---- Snapshots ----

  /** Keeps the newest SNAPSHOTS_KEPT snapshots in the object store. */
  async #pruneSnapshots(): Promise<void> {
    const seqs = (await this.#link.snapshots.list())
      .map((info) => parseSnapshotName(info.name))
      .filter((seq): seq is bigint => seq !== null)
      .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    for (const seq of seqs.slice(SNAPSHOTS_KEPT)) await this.#link.snapshots.delete(snapshotObjectName(seq));
  }

  // ---- Failure ----

  #fail(failure: VenueError): VenueError {
    if (this.#failure === null) {
      this.#failure = failure;
      this.#stalled = null;
    }
    for (const entry of this.#unacked.splice(0)) entry.reject(this.#failure);
    this.#sent = 0;
    return this.#failure;
  }
}

function fenced(detail: string): VenueError {
  return new VenueError(
    'JOURNAL_FENCED',
    `${detail}; this venue is no longer the primary and takes no more orders: reconnect to the current one`,
  );
}

function closedError(): VenueError {
  return new VenueError('SHUTTING_DOWN', 'the journal is closed; the venue is stopping');
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
