import type { VenueError } from '@venue/protocol';
import type { JournalRecord } from './journal-record.ts';

/** The last record the journal holds: its sequence number and the sha256 of its frame. */
export interface JournalPosition {
  readonly seq: bigint;
  readonly hash: Buffer;
  /** On JetStream: the stream message that holds the record (a message holds several). */
  readonly message?: bigint;
}

/**
 * The journal as the sequencer sees it. The local implementation is FileJournal (segment files with
 * group commit and fsync); a replicated log (NATS JetStream, Kafka) can implement the same contract,
 * see docs/scaling.md.
 *
 * Contract:
 * - `append` assigns the next sequence number synchronously, in call order, and resolves only once
 *   the record is durable. The caller applies a record's command to the core, appends it in the same
 *   synchronous step, and lets no acknowledgement or event of it leave until `append` resolves.
 * - Before applying a command the caller checks `hasRoom`: at most JOURNAL_IN_FLIGHT_RECORDS_MAX
 *   records wait for durability, and appending past that is a programmer error.
 * - After any I/O error `failure` is set and every append (pending or later) rejects with it:
 *   VenueError JOURNAL_UNAVAILABLE (JOURNAL_FENCED when another writer took the log over), until the
 *   process restarts and recovers.
 * - A replicated journal may instead be `stalled` (its brokers lost their quorum): appends made so
 *   far neither resolve nor reject, `hasRoom` is false, and intake refuses with the `stalled` error;
 *   once the brokers answer again, the same records are stored in the same order and the journal
 *   carries on. A stall never loses or reorders a record: either they are all stored, or the journal
 *   fails (and then nothing after the failure point was ever acknowledged).
 */
export interface Journal {
  append(record: JournalRecord): Promise<{ seq: bigint }>;
  /** Resolves once every record appended before the call is durable (rejects if one fails). */
  sync(): Promise<void>;
  /** Records appended but not yet durable (the drain's `journal_records_in_flight`). */
  readonly inFlight: number;
  /** Whether one more record may be appended now. */
  readonly hasRoom: boolean;
  /** The last sequence number assigned (durable or not); 0n before the first record. */
  readonly lastSeq: bigint;
  /** The last record assigned (durable or not): its sequence number and hash. */
  readonly position: JournalPosition;
  /** The error every write now fails with, or null while the journal is healthy. */
  readonly failure: VenueError | null;
  /** When the last snapshot was stored (or, before the first of this boot, when the journal opened). */
  readonly snapshotAtMs: number;
  /** The sequence number the last stored snapshot covers; 0n before any. */
  readonly snapshotSeq: bigint;
  /** While the journal waits for its brokers (JOURNAL_STALLED), the error intake answers; else null. */
  readonly stalled: VenueError | null;
  /** Whether a snapshot is due at `nowMs` (records or time since the last one). */
  snapshotDue(nowMs: number): boolean;
  /**
   * Stores `snapshot` (VenueCore.snapshot()) as the state after the last appended record. Call it
   * in the same synchronous step as taking the snapshot; it waits for those records to be durable
   * before the snapshot file appears.
   */
  writeSnapshot(snapshot: string, nowMs: number): Promise<{ seq: bigint }>;
  /**
   * Stores a snapshot file that `produce` builds (encodeSnapshotFile) for the state after the last
   * appended record, e.g. on the snapshot replica's thread. `produce` is called at once with that
   * position. If it rejects, the snapshot is skipped and the journal stays healthy.
   */
  writeSnapshotFrom(
    produce: (at: JournalPosition) => Promise<Uint8Array>,
    nowMs: number,
  ): Promise<{ seq: bigint }>;
  /** Waits for in-flight records, then closes the files. Later appends reject. */
  close(): Promise<void>;
}
