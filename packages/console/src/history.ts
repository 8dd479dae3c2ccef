import { buckets, quantileBetween, total } from './prometheus.ts';
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
  readonly intakeAcceptedPerS: number;
  readonly intakeRefusedPerS: number;
  /** Journal append to durable, over the appends since the previous poll; null when none. */
  readonly journalMeanMs: number | null;
  readonly journalP99Ms: number | null;
}

const JOURNAL = 'venue_journal_append_seconds';

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
  let acceptedRate = 0;
  let refusedRate = 0;
  let journalMeanMs: number | null = null;
  let journalP99Ms: number | null = null;
  if (previous !== null) {
    const seconds = Math.max((snapshot.takenAtMs - previous.takenAtMs) / 1000, 0.001);
    // A counter that went down means the venue restarted: count from zero rather than negative.
    const rate = (now: number, before: number) => Math.max(now - before, 0) / seconds;
    settledRate = rate(settled, sum(previous.settlement.map((m) => m.batches_confirmed)));
    failedRate = rate(failed, sum(previous.settlement.map((m) => m.batches_failed)));
    const counter = (name: string) => rate(total(snapshot.metrics, name), total(previous.metrics, name));
    acceptedRate = counter('venue_intake_accepted_total');
    refusedRate = counter('venue_intake_refused_total');
    const appends = total(snapshot.metrics, `${JOURNAL}_count`) - total(previous.metrics, `${JOURNAL}_count`);
    if (appends > 0) {
      const seconds = total(snapshot.metrics, `${JOURNAL}_sum`) - total(previous.metrics, `${JOURNAL}_sum`);
      journalMeanMs = (seconds / appends) * 1000;
      const p99 = quantileBetween(
        buckets(snapshot.metrics, JOURNAL),
        buckets(previous.metrics, JOURNAL),
        0.99,
      );
      journalP99Ms = p99 === null || !Number.isFinite(p99) ? null : p99 * 1000;
    }
  }
  return {
    atS: snapshot.takenAtMs / 1000,
    latencyP50Slots: worst(snapshot.settlement.map((m) => m.match_to_final_slots_p50)),
    latencyP99Slots: worst(snapshot.settlement.map((m) => m.match_to_final_slots_p99)),
    batchesSettledPerS: settledRate,
    batchesFailedPerS: failedRate,
    queueDepth: sum(snapshot.settlement.map((m) => m.queue_depth)),
    intakeAcceptedPerS: acceptedRate,
    intakeRefusedPerS: refusedRate,
    journalMeanMs,
    journalP99Ms,
  };
}

export function appendSample(history: readonly Sample[], sample: Sample): Sample[] {
  const since = sample.atS - HISTORY_WINDOW_MS / 1000;
  return [...history.filter((s) => s.atS >= since), sample];
}
