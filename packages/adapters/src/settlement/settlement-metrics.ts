import type { MarketSettlementMetrics } from '@venue/protocol';
import { BATCH_SIZE_BUCKET_MINS } from '@venue/protocol';
import { LATENCY_SAMPLES_MAX } from '../config/limits.ts';
import type { SettlementTelemetry } from '../venue/ports.ts';

/**
 * Settlement telemetry (spec 4.7 GET /admin/metrics/settlement): per market, counters over batches
 * and a window of batch latencies. Only batch-level aggregates are kept: a batch's match count and
 * the slots from its OLDEST match to finality, never a per-order or per-match figure, so nothing here
 * tells one participant's trades from another's.
 */
interface MarketCounters {
  queueDepth: number;
  submitted: number;
  confirmed: number;
  failed: number;
  readonly sizeBuckets: number[];
  /** Ring of match-to-final latencies (slots), one per finalized batch. */
  readonly latencies: bigint[];
  nextLatency: number;
  matchesSettled: number;
  /** Matches whose settlement failed, by failure reason (docs/settlement.md section 3). */
  readonly matchesFailed: Map<string, number>;
}

export class SettlementMetrics implements SettlementTelemetry {
  readonly #markets = new Map<string, MarketCounters>();
  readonly #finalListeners: ((marketId: string, latencySlots: bigint) => void)[] = [];

  /** Hears each batch's match-to-final latency as it becomes final (the Prometheus histogram). */
  onBatchFinal(listener: (marketId: string, latencySlots: bigint) => void): void {
    this.#finalListeners.push(listener);
  }

  /** One match's settlement outcome, as the pipeline reports it to the core. */
  matchSettled(marketId: string): void {
    this.#of(marketId).matchesSettled += 1;
  }

  matchFailed(marketId: string, reason: string): void {
    const failed = this.#of(marketId).matchesFailed;
    failed.set(reason, (failed.get(reason) ?? 0) + 1);
  }

  /** Match outcomes since start, for the scrape-time metrics. */
  matchOutcomes(marketId: string): { settled: number; failed: ReadonlyMap<string, number> } {
    const counters = this.#of(marketId);
    return { settled: counters.matchesSettled, failed: counters.matchesFailed };
  }

  #of(marketId: string): MarketCounters {
    let counters = this.#markets.get(marketId);
    if (counters === undefined) {
      counters = {
        queueDepth: 0,
        submitted: 0,
        confirmed: 0,
        failed: 0,
        sizeBuckets: BATCH_SIZE_BUCKET_MINS.map(() => 0),
        latencies: [],
        nextLatency: 0,
        matchesSettled: 0,
        matchesFailed: new Map(),
      };
      this.#markets.set(marketId, counters);
    }
    return counters;
  }

  setQueueDepth(marketId: string, depth: number): void {
    this.#of(marketId).queueDepth = depth;
  }

  batchSubmitted(marketId: string, matchCount: number): void {
    const counters = this.#of(marketId);
    counters.submitted += 1;
    let bucket = 0;
    BATCH_SIZE_BUCKET_MINS.forEach((min, i) => {
      if (matchCount >= min) bucket = i;
    });
    counters.sizeBuckets[bucket] = (counters.sizeBuckets[bucket] ?? 0) + 1;
  }

  batchFinalized(marketId: string, latencySlots: bigint): void {
    const counters = this.#of(marketId);
    counters.confirmed += 1;
    if (counters.latencies.length < LATENCY_SAMPLES_MAX) counters.latencies.push(latencySlots);
    else counters.latencies[counters.nextLatency] = latencySlots;
    counters.nextLatency = (counters.nextLatency + 1) % LATENCY_SAMPLES_MAX;
    for (const listener of this.#finalListeners) listener(marketId, latencySlots);
  }

  batchFailed(marketId: string): void {
    this.#of(marketId).failed += 1;
  }

  market(marketId: string): Omit<MarketSettlementMetrics, 'symbol' | 'market_id'> {
    const counters = this.#of(marketId);
    const histogram = BATCH_SIZE_BUCKET_MINS.flatMap((min, i) => {
      const batches = counters.sizeBuckets[i] ?? 0;
      if (batches === 0) return [];
      const next = BATCH_SIZE_BUCKET_MINS[i + 1];
      return [{ min_matches: min, ...(next === undefined ? {} : { max_matches: next - 1 }), batches }];
    });
    const sorted = [...counters.latencies].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      queue_depth: counters.queueDepth,
      batches_submitted: counters.submitted,
      batches_confirmed: counters.confirmed,
      batches_failed: counters.failed,
      batch_size_histogram: histogram,
      ...(sorted.length === 0
        ? {}
        : {
            match_to_final_slots_p50: percentile(sorted, 50),
            match_to_final_slots_p99: percentile(sorted, 99),
          }),
    };
  }
}

/** Nearest-rank percentile of a sorted, non-empty sample. */
function percentile(sorted: readonly bigint[], p: number): bigint {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as bigint;
}
