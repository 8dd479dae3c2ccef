import type { SimRandom } from './random.ts';

/**
 * Fault rates of one run, drawn from its seed, so that some seeds are calm and others stormy.
 * Each rate is a probability per step (or per event, where it says so).
 */
export interface FaultRates {
  /** Per settled match: the chain rejects it (settlement_failed). */
  readonly settlementFailure: number;
  /** Per match: extra slots before the chain answers, 0..this. */
  readonly settlementDelaySlotsMax: number;
  /** Per step: the oracle goes stale (the market gate closes) until a fresh price. */
  readonly oracleStale: number;
  /** Per step: an old oracle price is replayed to the venue. */
  readonly oracleReplay: number;
  /** Per step: an attestation or governance mismatch pauses new trading venue-wide for a while. */
  readonly venuePause: number;
  /** Per step: a stream client disconnects with cancel-on-disconnect. */
  readonly disconnect: number;
  /** Per step: the venue crashes and recovers (snapshot + replay of the commands after it). */
  readonly crash: number;
  /** Per place: the client reuses a note of one of its live orders (must be refused). */
  readonly noteReuse: number;
  /** Per place: the client replays an earlier signed body (must book nothing new). */
  readonly replay: number;
}

export function drawFaultRates(random: SimRandom): FaultRates {
  // A quarter of the seeds run with no faults at all.
  const calm = random.chance(0.25);
  const rate = (max: number) => (calm ? 0 : (random.below(1001) / 1000) * max);
  return {
    settlementFailure: rate(0.3),
    settlementDelaySlotsMax: calm ? 0 : random.below(8),
    oracleStale: rate(0.03),
    oracleReplay: rate(0.03),
    venuePause: rate(0.02),
    disconnect: rate(0.03),
    crash: rate(0.02),
    noteReuse: rate(0.1),
    replay: rate(0.1),
  };
}
