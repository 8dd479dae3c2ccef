import type { Snapshot } from './snapshot.ts';

/** The charts cover the last few minutes the page has watched. */
export const HISTORY_WINDOW_MS = 5 * 60_000;

/** One point per poll; rates are per second between two consecutive polls. */
export interface Sample {
  readonly atS: number;
  readonly latencyP50Slots: number | null;
  readonly latencyP99Slots: number | null;
  readonly batchesSettledPerS: number;
  readonly batchesFailedPerS: number;
  readonly queueDepth: number;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The worst market's percentile: the one an operator has to look at. */
function worst(values: readonly (number | undefined)[]): number | null {
  const present = values.filter((value): value is number => value !== undefined);
  return present.length === 0 ? null : Math.max(...present);
}

export function sampleOf(snapshot: Snapshot, previous: Snapshot | null): Sample {
  const settled = sum(snapshot.settlement.map((m) => m.batches_confirmed));
  const failed = sum(snapshot.settlement.map((m) => m.batches_failed));
  let settledRate = 0;
  let failedRate = 0;
  if (previous !== null) {
    const seconds = Math.max((snapshot.takenAtMs - previous.takenAtMs) / 1000, 0.001);
    settledRate = Math.max(settled - sum(previous.settlement.map((m) => m.batches_confirmed)), 0) / seconds;
    failedRate = Math.max(failed - sum(previous.settlement.map((m) => m.batches_failed)), 0) / seconds;
  }
  return {
    atS: snapshot.takenAtMs / 1000,
    latencyP50Slots: worst(snapshot.settlement.map((m) => m.match_to_final_slots_p50)),
    latencyP99Slots: worst(snapshot.settlement.map((m) => m.match_to_final_slots_p99)),
    batchesSettledPerS: settledRate,
    batchesFailedPerS: failedRate,
    queueDepth: sum(snapshot.settlement.map((m) => m.queue_depth)),
  };
}

export function appendSample(history: readonly Sample[], sample: Sample): Sample[] {
  const since = sample.atS - HISTORY_WINDOW_MS / 1000;
  return [...history.filter((s) => s.atS >= since), sample];
}
