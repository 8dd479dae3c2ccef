import type { SimRandom } from './random.ts';

/**
 * Fault rates of one run, drawn from its seed, so that some seeds are calm and others stormy.
 * Each rate is a probability per step (or per event, where it says so).
 */
export interface FaultRates {
  /** Per chain slot: the chain fails the next settlement batch with a spec reason. */
  readonly settlementFailure: number;
  /** Per chain slot: the chain lands the next settlement batch late, 1..settlementDelaySlotsMax. */
  readonly settlementDelay: number;
  readonly settlementDelaySlotsMax: number;
  /** Per chain slot: a reorg rolls back up to finality - 1 slots. */
  readonly reorg: number;
  /** Per step: the oracle goes stale (the market gate closes) until a fresh price. */
  readonly oracleStale: number;
  /** Per step: an old oracle price is replayed to the venue. */
  readonly oracleReplay: number;
  /** Per step: an attestation or governance mismatch pauses new trading venue-wide for a while. */
  readonly venuePause: number;
  /** Per step: a client's connection drops (its session's cancel-on-disconnect applies). */
  readonly disconnect: number;
  /** Per step: the venue process dies; the next boot recovers from the disk. */
  readonly crash: number;
  /** Per step: the disk leaves this step's fdatasyncs pending (acknowledgements wait). */
  readonly diskLag: number;
  /** Per step: the next fdatasync fails (EIO); the journal stops and the venue restarts. */
  readonly syncFailure: number;
  /** Per step: wall time jumps 10 to 40 minutes (a stalled host), so tokens expire. */
  readonly clockJump: number;
  /** Per step: an admin revokes every token of one account. */
  readonly tokenRevoke: number;
  /** Per place: the client reuses a note of one of its live orders (must be refused). */
  readonly noteReuse: number;
  /** Per place: the client replays an earlier signed body (must book nothing new). */
  readonly replay: number;
  /** Per modify: the replacement names the other market (must be refused, spec 4.1 rule 4). */
  readonly crossMarketModify: number;
  /** Per chain slot: the chain reverts the lock of one note behind a match awaiting settlement. */
  readonly lockRevert: number;
  /** Per chain slot: the chain stalls for 1..SLOT_STALL_TICKS_MAX beats while wall time goes on. */
  readonly slotStall: number;
}

/** The longest stall a slotStall fault causes, in beats the chain swallows. */
export const SLOT_STALL_TICKS_MAX = 6;

export function drawFaultRates(random: SimRandom): FaultRates {
  // A quarter of the seeds run with no faults at all.
  const calm = random.chance(0.25);
  const rate = (max: number) => (calm ? 0 : (random.below(1001) / 1000) * max);
  return {
    settlementFailure: rate(0.3),
    settlementDelay: rate(0.3),
    settlementDelaySlotsMax: calm ? 0 : 1 + random.below(8),
    reorg: rate(0.05),
    oracleStale: rate(0.03),
    oracleReplay: rate(0.03),
    venuePause: rate(0.02),
    disconnect: rate(0.03),
    crash: rate(0.02),
    diskLag: rate(0.7),
    syncFailure: rate(0.005),
    clockJump: rate(0.02),
    tokenRevoke: rate(0.01),
    noteReuse: rate(0.1),
    replay: rate(0.1),
    // Drawn last, so the rates above stay what each seed drew before this one existed.
    crossMarketModify: rate(0.2),
    lockRevert: rate(0.1),
    slotStall: rate(0.03),
  };
}
