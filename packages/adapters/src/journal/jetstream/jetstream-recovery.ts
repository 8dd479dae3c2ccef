/**
 * Recovery from the broker, the way recovery.ts recovers from disk: the newest snapshot in the
 * object store that opens, then every record of the stream after it, each checked before it is
 * handed on: whole frames and CRCs filling each message, consecutive record numbers, hash chain,
 * seal. The stream only holds acknowledged messages (a publish is stored whole or not at all), so
 * there is no torn tail to cut: anything that does not check stops the boot with a
 * JournalRecoveryError.
 *
 * `readJournalStream` is the same walk from any position, for a follower (the hot standby) that
 * keeps reading as the primary appends.
 */
import { DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import type { JournalPosition } from '../journal.ts';
import type { Annotations, JournalRecord } from '../journal-record.ts';
import { decodeRecord, RecordDecodeError } from '../record-codec.ts';
import { type RecordView, readRecord, recordHash, ZERO_HASH } from '../record-format.ts';
import { JournalRecoveryError, type LoadedSnapshot, readSnapshot } from '../recovery.ts';
import { fileKey, open } from '../sealing.ts';
import { type JetStreamLink, whileElecting } from './jetstream-link.ts';
import { saltOf } from './record-message.ts';
import { parseSnapshotName } from './snapshot-objects.ts';

export interface StreamRecoveryOptions {
  readonly link: JetStreamLink;
  readonly sealingKey: Uint8Array;
  readonly onSnapshot?: (text: string, seq: bigint, hash: Buffer) => void;
  readonly onCommand: (command: JournalRecord['command'], seq: bigint, annotations: Annotations) => void;
  /** The sealed frame and its key, after onCommand (the snapshot replica is fed the same). */
  readonly onRecord?: (frame: Buffer, key: Buffer, seq: bigint, message: bigint) => void;
  /** Replay every record from the first, ignoring snapshots (audits, leak scans, checks). */
  readonly ignoreSnapshots?: boolean;
  /** See `StreamReadOptions.stallMs`. */
  readonly stallMs?: number;
}

export interface StreamRecovery {
  readonly snapshot: { readonly seq: bigint; readonly text: string; readonly hash: Buffer } | null;
  /** The last record: the journal continues after it. */
  readonly position: JournalPosition;
  readonly replayed: number;
  readonly notes: readonly string[];
}

export async function recoverFromJetStream(options: StreamRecoveryOptions): Promise<StreamRecovery> {
  const { link } = options;
  const stream = link.settings.stream;
  const info = await whileElecting(() => link.manager.streams.info(stream));
  const lastSeq = BigInt(info.state.last_seq);
  const notes: string[] = [];
  const snapshot = options.ignoreSnapshots === true ? null : await newestSnapshot(options, lastSeq, notes);
  if (snapshot !== null) options.onSnapshot?.(snapshot.text, snapshot.seq, snapshot.recordHash);
  const start: JournalPosition =
    snapshot === null
      ? { seq: 0n, hash: ZERO_HASH, message: 0n }
      : { seq: snapshot.seq, hash: snapshot.recordHash, message: snapshot.message };
  const walk = await readJournalStreamTo({
    link,
    sealingKey: options.sealingKey,
    after: start,
    until: lastSeq,
    ...(options.stallMs === undefined ? {} : { stallMs: options.stallMs }),
    onCommand: options.onCommand,
    ...(options.onRecord === undefined ? {} : { onRecord: options.onRecord }),
  });
  return {
    snapshot:
      snapshot === null ? null : { seq: snapshot.seq, text: snapshot.text, hash: snapshot.recordHash },
    position: walk.position,
    replayed: walk.replayed,
    notes,
  };
}

/** The newest snapshot object that opens and does not lie beyond the stream's end. */
async function newestSnapshot(
  options: StreamRecoveryOptions,
  lastSeq: bigint,
  notes: string[],
): Promise<(LoadedSnapshot & { message: bigint }) | null> {
  const store = options.link.snapshots;
  const found = (await whileElecting(() => store.list()))
    .map((info) => ({ name: info.name, at: parseSnapshotName(info.name) }))
    .filter((object): object is { name: string; at: { seq: bigint; message: bigint } } => object.at !== null)
    .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  const problems: string[] = [];
  for (const { name, at } of found) {
    const { seq, message } = at;
    if (message > lastSeq) {
      throw new JournalRecoveryError(
        `snapshot ${name} follows record ${seq} in message ${message}, but stream ${options.link.settings.stream} ends at message ${lastSeq}: the broker lost acknowledged records; restore the stream from a backup`,
      );
    }
    const bytes = await whileElecting(() => store.getBlob(name));
    const loaded =
      bytes === null
        ? 'it vanished while being read'
        : readSnapshot(Buffer.from(bytes), seq, options.sealingKey);
    if (typeof loaded !== 'string') {
      notes.push(...problems);
      return { ...loaded, message };
    }
    problems.push(`skipped ${name}: ${loaded}`);
  }
  if (problems.length > 0) {
    throw new JournalRecoveryError(
      `no snapshot in the object store can be used (${problems.join('; ')}); if the sealing key is right, restore the store from a backup`,
    );
  }
  return null;
}

export interface StreamReadOptions {
  readonly link: JetStreamLink;
  readonly sealingKey: Uint8Array;
  /**
   * The record the walk continues after (a snapshot's position, or 0 and zeros). The walk starts at
   * its message (from the first when it has none) and passes over the records up to it.
   */
  readonly after: JournalPosition;
  /** The last message to read; undefined keeps reading until `signal` aborts (a follower). */
  readonly until?: bigint;
  readonly signal?: AbortSignal;
  /**
   * With `until`: how long the read may go without a message before it gives up with a
   * StreamStalledError (default STREAM_READ_STALL_MS). The messages up to `until` are stored, so a
   * read that receives none for this long is stuck in the client, not waiting on the primary.
   */
  readonly stallMs?: number;
  readonly onCommand: (command: JournalRecord['command'], seq: bigint, annotations: Annotations) => void;
  readonly onRecord?: (frame: Buffer, key: Buffer, seq: bigint, message: bigint) => void;
}

/** A bounded read's default patience between two messages (see `StreamReadOptions.stallMs`). */
export const STREAM_READ_STALL_MS = 15_000;

/** Fresh reads a caller starts, from where the last one stopped, before it gives up on a stalling stream. */
export const STALLED_READ_TRIES = 3;

/**
 * A bounded read received nothing for its `stallMs`: it stopped after `position` (every record up
 * to it handed on, none after), so a fresh read can go on from there.
 */
export class StreamStalledError extends Error {
  constructor(
    stream: string,
    readonly position: JournalPosition,
    until: bigint,
    stallMs: number,
  ) {
    super(
      `reading stream ${stream} stalled: no message for ${stallMs} ms after record ${position.seq}, before its last message ${until}`,
    );
    this.name = 'StreamStalledError';
  }
}

/**
 * `readJournalStream` to `until`, started afresh from where it stopped when a read stalls, up to
 * STALLED_READ_TRIES reads in all (the last stall is thrown). A fresh read is safe: it checks the
 * record it continues after and hands on only later ones.
 */
export async function readJournalStreamTo(
  options: StreamReadOptions & { readonly until: bigint },
): Promise<{ position: JournalPosition; replayed: number }> {
  let after = options.after;
  let replayed = 0;
  for (let read = 1; ; read += 1) {
    try {
      const walk = await readJournalStream({ ...options, after });
      return { position: walk.position, replayed: replayed + walk.replayed };
    } catch (error) {
      if (!(error instanceof StreamStalledError) || read >= STALLED_READ_TRIES) throw error;
      replayed += Number(error.position.seq - after.seq);
      after = error.position;
    }
  }
}

/**
 * Walks the stream's records after `after.seq`, checking each against the previous one, and hands
 * them on in order. Resolves with the last record read when `until` is reached or `signal` aborts.
 */
export async function readJournalStream(
  options: StreamReadOptions,
): Promise<{ position: JournalPosition; replayed: number }> {
  const chain = new StreamChain(options);
  // The message holding the record after which to continue is read again: it may hold later records,
  // and that record itself is checked to be the one the position names.
  const from = options.after.message !== undefined && options.after.message > 0n ? options.after.message : 1n;
  if (options.until !== undefined && options.until < from) return chain.result();
  const stream = options.link.settings.stream;
  const consumer = await whileElecting(() =>
    options.link.client.consumers.get(stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Number(from),
    }),
  );
  const messages = await consumer.consume({ max_messages: 1024 });
  const stop = () => void messages.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  // A read with an end is watched: the client's iterator has been seen to wait for good (a takeover
  // that held the lease while reading nothing), and a stuck read must end so someone can retry.
  const stallMs = options.until === undefined ? null : (options.stallMs ?? STREAM_READ_STALL_MS);
  let stalled = false;
  let watch: NodeJS.Timeout | undefined;
  const rewatch = () => {
    if (stallMs === null) return;
    clearTimeout(watch);
    watch = setTimeout(() => {
      stalled = true;
      stop();
    }, stallMs);
  };
  try {
    if (options.signal?.aborted === true) return chain.result();
    rewatch();
    for await (const message of messages) {
      if (stalled) break;
      chain.message(message);
      if (options.until !== undefined && chain.lastMessage >= options.until) break;
      rewatch();
    }
  } finally {
    clearTimeout(watch);
    options.signal?.removeEventListener('abort', stop);
    await messages.close();
  }
  if (stalled && options.until !== undefined && chain.lastMessage < options.until) {
    // Nothing came because nothing is there (records purged under the reader) is not a stall: say so.
    const first = BigInt((await options.link.manager.streams.info(stream)).state.first_seq);
    // The first message still needed: after the last one read, or after the one holding `after`.
    const next =
      chain.lastMessage > 0n ? chain.lastMessage + 1n : from === options.after.message ? from + 1n : from;
    if (first > next)
      throw new JournalRecoveryError(
        `stream ${stream} no longer holds message ${next} (it starts at ${first}): records after record ${chain.position.seq} were purged before they were read; restore the stream from a backup, or start this instance from a newer snapshot`,
      );
    throw new StreamStalledError(stream, chain.position, options.until, stallMs as number);
  }
  if (options.until !== undefined && chain.lastMessage < options.until) {
    throw new JournalRecoveryError(
      `stream ${stream} stopped at message ${chain.lastMessage} before its last message ${options.until}`,
    );
  }
  return chain.result();
}

class StreamChain {
  position: JournalPosition;
  /** The last message read (0 before the first). */
  lastMessage = 0n;
  replayed = 0;
  readonly #options: StreamReadOptions;
  readonly #keys = new Map<string, Buffer>();

  constructor(options: StreamReadOptions) {
    this.#options = options;
    this.position = options.after;
  }

  result(): { position: JournalPosition; replayed: number } {
    return { position: this.position, replayed: this.replayed };
  }

  message(message: JsMsg): void {
    const number = BigInt(message.seq);
    const body = Buffer.from(message.data);
    if (body.length === 0) this.#fail(number, 'it is empty');
    let key: Buffer | null = null;
    for (let offset = 0; offset < body.length; ) {
      const record = readRecord(body, offset);
      if (record === null)
        this.#fail(
          number,
          `its bytes from ${offset} are not a whole record frame (damaged, or not written by a venue)`,
        );
      offset += record.frame.length;
      key ??= this.#keyOf(number, message);
      this.#record(record, number, key);
    }
    this.lastMessage = number;
  }

  #record(record: RecordView, number: bigint, key: Buffer): void {
    const { seq } = record;
    const frame = Buffer.from(record.frame);
    const hash = recordHash(frame);
    const after = this.#options.after;
    if (this.position.seq === after.seq && seq <= after.seq) {
      // Records up to the one the walk continues after: only that one's identity is checked.
      if (seq === after.seq) {
        if (!hash.equals(after.hash))
          this.#fail(number, `record ${seq} is not the one the walk continues after`);
        this.position = { ...after, message: number };
      }
      return;
    }
    if (seq !== this.position.seq + 1n)
      this.#fail(
        number,
        `it holds record ${seq} where record ${this.position.seq + 1n} was expected (records are missing or repeated)`,
      );
    if (!record.prevHash.equals(this.position.hash))
      this.#fail(
        number,
        `record ${seq} does not carry the hash of record ${this.position.seq}: the hash chain is broken`,
      );
    const plain = open(key, seq, record.associated, record.sealed);
    if (plain === null)
      this.#fail(number, `record ${seq} does not open under this sealing key (wrong key, or altered)`);
    let decoded: JournalRecord;
    try {
      decoded = decodeRecord(plain);
    } catch (error) {
      if (!(error instanceof RecordDecodeError)) throw error;
      this.#fail(number, `record ${seq} opened but does not decode (${error.message})`);
    }
    this.#options.onCommand(decoded.command, seq, decoded.annotations);
    this.#options.onRecord?.(frame, key, seq, number);
    this.replayed += 1;
    this.position = { seq, hash, message: number };
  }

  #keyOf(seq: bigint, message: JsMsg): Buffer {
    const salt = saltOf(message.headers);
    if (salt === null) this.#fail(seq, 'its salt header is missing or malformed');
    const id = salt.toString('hex');
    let key = this.#keys.get(id);
    if (key === undefined) {
      key = fileKey(this.#options.sealingKey, salt, 'segment');
      this.#keys.set(id, key);
    }
    return key;
  }

  #fail(seq: bigint, problem: string): never {
    throw new JournalRecoveryError(
      `the journal stream ${this.#options.link.settings.stream} cannot be recovered: message ${seq}: ${problem}. The venue will not boot on it`,
    );
  }
}
