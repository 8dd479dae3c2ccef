/**
 * The journal on a NATS JetStream stream (docs/durability.md, "The journal on JetStream"). Each
 * message carries one or more records, each the sealed frame the file journal would write, back to
 * back and in order. An append resolves once the stream acknowledged the message holding it, which
 * with `replicas: 3` means a majority of the cluster stored it.
 *
 * Group commit: the records appended during one turn of the event loop (up to a size bound) go out
 * as one message; at most `ackWindow` messages wait for their acks at a time, and records appended
 * meanwhile wait and make the next message larger. A message is stored whole or not at all, so its
 * records are too. Appends resolve in sequence order as the acks arrive.
 *
 * Fencing: every publish says which message must be the stream's last: its number
 * (`Nats-Expected-Last-Sequence`) and its id (`Nats-Expected-Last-Msg-Id`, the hash of its last
 * record: a message's id is the hash of its last record).
 * Once another writer appended, the next publish is refused, the journal fails with
 * JOURNAL_FENCED and the venue stops taking orders. A refused publish whose own bytes are already
 * stored at its position (a retry of a publish whose ack was lost) counts as acknowledged.
 *
 * A leader election, or losing the quorum, is not a failure: a publish that times out (or finds no
 * responders, or any answer but a refusal) sends the journal into retrying. It keeps every
 * unacknowledged record and republishes their messages in order, each as it was first sent (same
 * body, message id and expectation), with a bounded backoff, until the stream answers. A stream
 * electing a new leader after losing one node answers again within seconds; only when nothing was
 * acknowledged for `stallAfterMs` does the journal count the quorum as lost and report itself
 * stalled (intake then gets JOURNAL_STALLED). Nothing is acknowledged meanwhile, and nothing is
 * lost: the records stay in memory and the core that applied them stays as it is, because they will
 * be stored in exactly this order, or the journal fails for good (JOURNAL_FENCED, when another
 * writer appended).
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
import { snapshotIsDue } from '../snapshot-schedule.ts';
import type { JetStreamLease } from './jetstream-lease.ts';
import type { JetStreamLink } from './jetstream-link.ts';
import { backoffMs } from './passing-errors.ts';
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
  /** Messages waiting for their ack at most (the group-commit window). Default 4. */
  readonly ackWindow?: number;
  /** How long one publish waits for its ack before the journal starts republishing. Default 2000 ms. */
  readonly publishTimeoutMs?: number;
  /** First pause between republishing tries; it doubles up to 1 s. Default 250 ms. */
  readonly retryPauseMs?: number;
  /**
   * How long the journal republishes without any acknowledgement before it reports itself stalled
   * (no quorum). Default 5000 ms: with the failed publish's own timeout before it, this covers most
   * leader elections after one node of three is lost (4 to 9 s on nats-server 2.9); a longer one
   * shows as a short stall that ends by itself.
   */
  readonly stallAfterMs?: number;
  /** Tells the venue the journal stalled (error) or resumed (null): logs and metrics. */
  readonly onStall?: (stalled: VenueError | null) => void;
  /** The primary's lease, released when the journal closes so a standby need not wait it out. */
  readonly lease?: JetStreamLease;
}

/** Records in one message at most, and its body's bytes at most (the servers' max_payload is 1 MiB). */
const RECORDS_PER_MESSAGE_MAX = 1024;
/** The longest pause between two republishing tries. */
const RETRY_PAUSE_MAX_MS = 1000;
const MESSAGE_BYTES_MAX = 512 * 1024;

interface Entry {
  readonly seq: bigint;
  readonly frame: Buffer;
  acked: boolean;
  /** The stream message that carries it, once batched. */
  message: bigint | null;
  readonly done: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One message: consecutive records, published (and republished while retrying) always alike. */
interface Batch {
  readonly entries: readonly Entry[];
  readonly body: Buffer;
  /** The stream's number for this message: the one before it must be the stream's last. */
  readonly message: bigint;
  /** The hash of its last record. */
  readonly msgId: string;
  /** The id of the message before it, which must be the stream's last message. */
  readonly prevMsgId: string;
  acked: boolean;
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
  readonly #stallAfterMs: number;
  readonly #snapshotIntervalRecords: number;
  readonly #snapshotIntervalMs: number;
  readonly #onStall: (stalled: VenueError | null) => void;
  readonly #lease: JetStreamLease | null;
  readonly #durableListeners: ((records: DurableRecords) => void)[] = [];

  /** Records not yet acknowledged, in sequence order; the first `#batched` of them are in `#batches`. */
  readonly #unacked: Entry[] = [];
  #batched = 0;
  /** Messages published and not yet acknowledged, in order. */
  readonly #batches: Batch[] = [];
  #pumpQueued = false;
  /** The stream's last message as this journal sees it (number and id), once batched. */
  #lastMessage: bigint;
  #lastMsgId: string;
  /** Publishes waiting for an answer. */
  #outstanding = 0;
  #quiet: (() => void) | null = null;
  #lastSeq: bigint;
  #lastHash: Buffer;
  #failure: VenueError | null = null;
  #stalled: VenueError | null = null;
  /** Set while republishing (after a publish failed); reported as stalled after `stallAfterMs`. */
  #retrying = false;
  #stallTimer: NodeJS.Timeout | null = null;
  /** The latest passing error, named in the stall's message. */
  #lastCause: unknown = null;
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
    this.#ackWindow = options.ackWindow ?? 4;
    this.#publishTimeoutMs = options.publishTimeoutMs ?? 2000;
    this.#retryPauseMs = options.retryPauseMs ?? 250;
    this.#stallAfterMs = options.stallAfterMs ?? 5000;
    this.#snapshotIntervalRecords = options.snapshotIntervalRecords ?? SNAPSHOT_INTERVAL_RECORDS;
    this.#snapshotIntervalMs = options.snapshotIntervalMs ?? SNAPSHOT_INTERVAL_MS;
    this.#onStall = options.onStall ?? (() => {});
    this.#lease = options.lease ?? null;
    this.#lastSeq = options.position.seq;
    this.#lastHash = Buffer.from(options.position.hash);
    // A stream written one record per message has no message number in its positions.
    this.#lastMessage = options.position.message ?? options.position.seq;
    this.#lastMsgId = this.#lastHash.toString('hex');
    this.#snapshotSeq = options.snapshotSeq ?? 0n;
    this.#snapshotAtMs = options.nowMs ?? 0;
  }

  /** The connection to the cluster (the accounts mirror shares it). */
  get link(): JetStreamLink {
    return this.#link;
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

  get snapshotAtMs(): number {
    return this.#snapshotAtMs;
  }

  get snapshotSeq(): bigint {
    return this.#snapshotSeq;
  }

  /** JOURNAL_STALLED while the stream has acknowledged nothing for `stallAfterMs` (no quorum), else null. */
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
    this.#lastSeq = seq;
    this.#lastHash = hash;
    let resolve: () => void = () => {};
    let reject: (error: unknown) => void = () => {};
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    done.catch(() => undefined); // each caller hears of a failure through its own chain
    this.#unacked.push({ seq, frame, acked: false, message: null, done, resolve, reject });
    if (!this.#pumpQueued) {
      // After this turn's other appends, so they share the message.
      this.#pumpQueued = true;
      setImmediate(() => {
        this.#pumpQueued = false;
        this.#pump();
      });
    }
    return done.then(() => ({ seq }));
  }

  sync(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return this.#unacked.at(-1)?.done ?? Promise.resolve();
  }

  snapshotDue(nowMs: number): boolean {
    if (this.#snapshotting !== null || this.#failure !== null || this.#closed) return false;
    return snapshotIsDue(this.#lastSeq - this.#snapshotSeq, nowMs - this.#snapshotAtMs, {
      records: this.#snapshotIntervalRecords,
      ms: this.#snapshotIntervalMs,
    });
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
    const last = this.#unacked.at(-1);
    // With nothing in flight, record `at.seq` is in the last message now; later appends (made while
    // the file is produced) move #lastMessage on, so it is read here, not once the file is ready.
    const lastMessage = this.#lastMessage;
    const stored = Promise.all([produce(at), this.sync()]).then(async ([bytes]) => {
      // The message holding record `at.seq`: a reader starting from the snapshot starts there. An
      // unacknowledged record has its message once batched, which is before it is acknowledged.
      const message = last?.message ?? lastMessage;
      await this.#link.snapshots.putBlob({ name: snapshotObjectName(at.seq, message) }, bytes);
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
    if (this.#retrying || this.#failure !== null) return;
    while (this.#batched < this.#unacked.length && this.#batches.length < this.#ackWindow) {
      const batch = this.#nextBatch();
      this.#batches.push(batch);
      this.#publish(batch).then(
        (ack) => this.#onAck(batch, ack),
        (error: unknown) => this.#onPublishError(batch, error),
      );
    }
  }

  /** The next records not yet in a message, as one message. */
  #nextBatch(): Batch {
    const entries: Entry[] = [];
    let bytes = 0;
    while (this.#batched < this.#unacked.length && entries.length < RECORDS_PER_MESSAGE_MAX) {
      const entry = this.#unacked[this.#batched] as Entry;
      if (entries.length > 0 && bytes + entry.frame.length > MESSAGE_BYTES_MAX) break;
      entries.push(entry);
      bytes += entry.frame.length;
      this.#batched += 1;
    }
    const message = this.#lastMessage + 1n;
    for (const entry of entries) entry.message = message;
    const body =
      entries.length === 1 ? (entries[0] as Entry).frame : Buffer.concat(entries.map((e) => e.frame));
    const prevMsgId = this.#lastMsgId;
    // The id is the last record's hash: the stream answers "duplicate" only for these very bytes.
    const msgId = recordHash((entries.at(-1) as Entry).frame).toString('hex');
    this.#lastMessage = message;
    this.#lastMsgId = msgId;
    return { entries, body, message, msgId, prevMsgId, acked: false };
  }

  #publish(batch: Batch): Promise<PubAck> {
    this.#outstanding += 1;
    const published = this.#link.client.publish(this.#link.subject, batch.body, {
      msgID: batch.msgId,
      // Both: the number says where the message goes, the id (a hash) that our own message is before
      // it. With publishes pipelined, the number alone would let a deposed writer's later messages
      // land once the new writer's messages happen to make the count match.
      expect:
        batch.message === 1n
          ? { lastSequence: 0 }
          : { lastSequence: Number(batch.message - 1n), lastMsgID: batch.prevMsgId },
      headers: recordHeaders(this.#salt),
      timeout: this.#publishTimeoutMs,
    });
    return published.finally(() => {
      this.#outstanding -= 1;
      if (this.#outstanding === 0 && this.#quiet !== null) this.#quiet();
    });
  }

  #onAck(batch: Batch, ack: PubAck): void {
    if (this.#failure !== null) return;
    if (BigInt(ack.seq) !== batch.message) {
      this.#fail(
        fenced(
          `the stream stored this venue's message ${batch.message} as its message ${ack.seq}: another writer shares the stream`,
        ),
      );
      return;
    }
    batch.acked = true;
    for (const entry of batch.entries) entry.acked = true;
    this.#release();
    this.#pump();
  }

  #onPublishError(batch: Batch, error: unknown): void {
    if (this.#failure !== null || batch.acked) return;
    if (isRefusal(error)) {
      // Either our own earlier try of this message was stored (its ack lost), or another writer got there.
      void this.#settleRefused(batch);
      return;
    }
    // Anything else (timeout, no responders, a lost connection, a cluster without its leader) may pass.
    this.#retry(error);
  }

  /** A publish refused for its expectation: acknowledged if our bytes are there, else fenced. */
  async #settleRefused(batch: Batch): Promise<void> {
    let stored: Buffer | null;
    try {
      const message = await this.#link.manager.streams.getMessage(this.#link.settings.stream, {
        seq: Number(batch.message),
      });
      stored = message === null ? null : Buffer.from(message.data);
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === NO_MESSAGE_FOUND)) {
        // Not known yet: the republishing loop asks again.
        this.#retry(error);
        return;
      }
      stored = null;
    }
    if (stored?.equals(batch.body) === true) {
      this.#onAck(batch, { stream: this.#link.settings.stream, seq: Number(batch.message), duplicate: true });
      return;
    }
    const before = (batch.entries[0] as Entry).seq - 1n;
    this.#fail(fenced(`the journal stream no longer ends with this venue's record ${before}`));
  }

  /** Resolves acknowledged records from the front, in order, and tells the listeners. */
  #release(): void {
    const released: Entry[] = [];
    while (this.#batches.length > 0 && (this.#batches[0] as Batch).acked) this.#batches.shift();
    while (this.#unacked.length > 0 && (this.#unacked[0] as Entry).acked) {
      released.push(this.#unacked.shift() as Entry);
      this.#batched -= 1;
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

  // ---- Retrying, then stalled: a leader election or no quorum ----

  /**
   * Starts republishing (once); reports the journal stalled if nothing is acknowledged within
   * `stallAfterMs`. Safe to republish: a message is stored at most once at its number (the
   * expectation), and our own message found there counts as acknowledged (#settleRefused).
   */
  #retry(cause: unknown): void {
    if (this.#retrying || this.#failure !== null) return;
    this.#retrying = true;
    this.#lastCause = cause;
    this.#stallTimer = setTimeout(() => this.#stall(), this.#stallAfterMs);
    this.#stallTimer.unref();
    void this.#republish();
  }

  #stall(): void {
    this.#stallTimer = null;
    if (!this.#retrying || this.#stalled !== null || this.#failure !== null) return;
    const cause = this.#lastCause;
    const detail = cause instanceof Error ? cause.message : String(cause);
    this.#stalled = new VenueError(
      'JOURNAL_STALLED',
      `the journal's brokers do not acknowledge writes (${detail}); nothing is lost, and the venue takes orders again once the cluster has a quorum; retry later`,
    );
    this.#onStall(this.#stalled);
  }

  /** Any acknowledgement while retrying: the stream has a leader with a quorum again. */
  #heard(): void {
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#stallTimer = null;
    if (this.#retrying && this.#stalled === null) {
      // Re-arm: the stall is reported only after `stallAfterMs` with no acknowledgement at all.
      this.#stallTimer = setTimeout(() => this.#stall(), this.#stallAfterMs);
      this.#stallTimer.unref();
    }
  }

  /**
   * Once every publish in the air has answered, republishes the unacknowledged messages one at a
   * time, in order and each as it was, until each is acknowledged; then leaves the retrying state.
   */
  async #republish(): Promise<void> {
    if (this.#outstanding > 0) await new Promise<void>((resolve) => (this.#quiet = resolve));
    this.#quiet = null;
    let attempt = 0;
    while (this.#failure === null) {
      const batch = this.#batches.find((candidate) => !candidate.acked);
      if (batch === undefined) break;
      try {
        this.#onAck(batch, await this.#publish(batch));
      } catch (error) {
        this.#lastCause = error;
        if (isRefusal(error)) await this.#settleRefused(batch);
      }
      if (batch.acked) {
        attempt = 0;
        this.#heard();
      } else if (this.#link.connection.isClosed()) {
        // Closed under us (the venue stopping): nothing will answer any more.
        this.#fail(closedError());
      } else if (this.#failure === null) {
        await pause(backoffMs(attempt++, this.#retryPauseMs, RETRY_PAUSE_MAX_MS));
      }
    }
    if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
    this.#stallTimer = null;
    this.#retrying = false;
    if (this.#failure !== null) return;
    if (this.#stalled !== null) {
      this.#stalled = null;
      this.#onStall(null);
    }
    this.#pump();
  }

  // ---- Snapshots ----

  /** Keeps the newest SNAPSHOTS_KEPT snapshots in the object store. */
  async #pruneSnapshots(): Promise<void> {
    const names = (await this.#link.snapshots.list())
      .map((info) => ({ name: info.name, at: parseSnapshotName(info.name) }))
      .filter((object) => object.at !== null)
      .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const { name } of names.slice(SNAPSHOTS_KEPT)) await this.#link.snapshots.delete(name);
  }

  // ---- Failure ----

  #fail(failure: VenueError): VenueError {
    if (this.#failure === null) {
      this.#failure = failure;
      this.#stalled = null;
      if (this.#stallTimer !== null) clearTimeout(this.#stallTimer);
      this.#stallTimer = null;
    }
    for (const entry of this.#unacked.splice(0)) entry.reject(this.#failure);
    this.#batches.splice(0);
    this.#batched = 0;
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
