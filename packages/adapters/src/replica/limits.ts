/**
 * The snapshot replica's limits (docs/durability.md, "The snapshot replica"). Units last.
 */

/**
 * Journal bytes handed to the replica that it has not applied yet. The replica applies records about
 * as fast as the sequencer does, except while it serialises a snapshot (about 2 s for 100,000 resting
 * orders here), when records queue up: at 10,000 records a second of 1.8 KB that is ~36 MB. Beyond
 * this limit the replica is dropped rather than let memory grow: the sequencer never waits for it.
 */
export const REPLICA_BACKLOG_BYTES_MAX = 256 * 1024 * 1024;

/**
 * How many times one boot starts a new replica after one failed or fell behind. Each restart is
 * seeded from an inline snapshot (the pause the replica exists to avoid), so a replica that keeps
 * failing stops being restarted and the venue keeps inline snapshots until its next boot.
 */
export const REPLICA_RESTARTS_MAX = 3;

/** Records replayed at boot are handed to the replica in chunks of about this many bytes. */
export const REPLICA_BOOT_CHUNK_BYTES = 1024 * 1024;

/**
 * How long a graceful stop waits for a snapshot the replica is producing (about 2 s at 100,000
 * resting orders). A replica stuck past it is closed, the snapshot is skipped, and the stop goes on:
 * nothing is lost, the next boot replays a little more.
 */
export const REPLICA_CLOSE_WAIT_MS = 30_000;
