/**
 * Limits of the settlement pipeline (docs/settlement.md section 6). Each is a hard bound: the
 * pipeline asserts it, and what would pass it waits or fails with a stated reason.
 */

/** Legs (input notes) per settlement batch: the chain simulator's own cap (docs/chain-sim.md 9). */
export const BATCH_LEGS_MAX = 1024;

/** Matches waiting for a batch, per market, before new matches are failed instead of queued. */
export const QUEUED_MATCHES_PER_MARKET_MAX = 100_000;

/** Note openings remembered for settlement (one per live order's note and per change note). */
export const NOTE_OPENINGS_MAX = 1_000_000;

/** Fill messages held until the core's matching fill event is out (one per settled match). */
export const FILLS_AWAITING_EVENT_MAX = 100_000;

/** Recent finalized-batch latencies the telemetry keeps for its percentiles. */
export const LATENCY_SAMPLES_MAX = 1024;
