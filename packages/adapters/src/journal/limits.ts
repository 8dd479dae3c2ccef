/**
 * The journal's limits, one place for all of them (TigerBeetle style: a limit on everything, unit
 * last in the name). `assertJournalLimits()` runs when a journal opens, so an edit that breaks a
 * relation between two limits stops the venue before it writes anything.
 */
import { assert } from '@venue/protocol';

/**
 * Largest encoded command. The biggest command today is a modify (a cancel plus a full place-order
 * body with a 256-byte proof), about 2 KiB encoded; an `add_market` or a `roots` window is smaller.
 * 64 KiB leaves room for growth while keeping one record's buffer small.
 */
export const JOURNAL_COMMAND_BYTES_MAX = 64 * 1024;

/**
 * Records appended but not yet durable. The sequencer checks `hasRoom` before applying a command, so
 * at most this many acknowledgements wait on one fsync round, and the pending bytes stay under
 * JOURNAL_IN_FLIGHT_RECORDS_MAX * (JOURNAL_COMMAND_BYTES_MAX + overhead). It also bounds one commit
 * batch, which is what recovery may find torn at the end of the journal.
 */
export const JOURNAL_IN_FLIGHT_RECORDS_MAX = 8_192;

/**
 * A segment file is closed and a new one started once it holds this many bytes. A segment may pass
 * it by at most one commit batch, because a batch is never split across files.
 */
export const JOURNAL_SEGMENT_BYTES_MAX = 64 * 1024 * 1024;

/** A snapshot of the core is due after this many records since the last one... */
export const SNAPSHOT_INTERVAL_RECORDS = 100_000;

/** ...or after this long, if at least one record was appended since. */
export const SNAPSHOT_INTERVAL_MS = 60_000;

/**
 * Snapshots kept on disk. Recovery falls back to the previous one if the newest cannot be read, so
 * the journal keeps every segment back to the oldest kept snapshot.
 */
export const SNAPSHOTS_KEPT = 2;

/** Largest snapshot file recovery reads (the core's state for millions of resting orders fits). */
export const SNAPSHOT_BYTES_MAX = 1024 * 1024 * 1024;

/** The sealing key is 32 bytes (AES-256). */
export const SEALING_KEY_BYTES = 32;

export function assertJournalLimits(): void {
  assert(JOURNAL_IN_FLIGHT_RECORDS_MAX > 0, 'JOURNAL_IN_FLIGHT_RECORDS_MAX must be positive');
  assert(
    JOURNAL_SEGMENT_BYTES_MAX >= 4 * JOURNAL_COMMAND_BYTES_MAX,
    'JOURNAL_SEGMENT_BYTES_MAX must hold several of the largest records',
  );
  assert(SNAPSHOTS_KEPT >= 1, 'SNAPSHOTS_KEPT must keep at least one snapshot');
  assert(SNAPSHOT_INTERVAL_RECORDS > 0 && SNAPSHOT_INTERVAL_MS > 0, 'snapshot intervals must be positive');
}
