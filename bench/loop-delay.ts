/**
 * The event loop's delay over a benchmark's run (../shared/design/benchmarks.md: a stall is a
 * figure too). node:perf_hooks samples how late the loop's timer fires; its max is the longest
 * stop of the thread the venue runs on, its p99 the usual hiccup. Every benchmark that runs a venue
 * wraps its measured part in `watchLoop()` and reports both, with the path in the figure's name.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { type Baseline, type Figure, figure, summarise } from './harness.ts';

/** Sampling resolution: fine enough for a 10 ms target. */
const RESOLUTION_MS = 2;

export interface LoopDelay {
  readonly maxMs: number;
  readonly p99Ms: number;
}

/** Starts watching; `stop()` ends it and returns the delays seen in between. */
export function watchLoop(): { stop(): LoopDelay } {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const started = performance.now();
  return {
    stop() {
      histogram.disable();
      // No sample at all: the watched work never let the loop turn (a synchronous benchmark such as
      // clearing), so the thread was held for the whole of it, which is the delay to report.
      if (histogram.count === 0) {
        const heldMs = performance.now() - started;
        return { maxMs: heldMs, p99Ms: heldMs };
      }
      // The histogram counts the sampling interval itself in each delay: subtract it.
      const less = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
      return { maxMs: less(histogram.max), p99Ms: less(histogram.percentile(99)) };
    },
  };
}

/** Runs `work` with the loop watched. */
export async function withLoopWatch<T>(work: () => Promise<T>): Promise<{ result: T; loop: LoopDelay }> {
  const watch = watchLoop();
  try {
    const result = await work();
    return { result, loop: watch.stop() };
  } catch (error) {
    watch.stop();
    throw error;
  }
}

/**
 * The two figures of a run's loop delay (median over `runs`), named `event_loop_delay_{max,p99}_ms_`
 * + `path`; the baseline, when given, is the same measurement on the baseline's path.
 */
export function loopDelayFigures(
  bench: string,
  path: string,
  runs: readonly LoopDelay[],
  baseline?: { readonly name: string; readonly runs: readonly LoopDelay[] },
): Figure[] {
  return (['max', 'p99'] as const).map((at) => {
    const pick = (d: LoopDelay) => (at === 'max' ? d.maxMs : d.p99Ms);
    const base: Baseline | null =
      baseline === undefined || baseline.runs.length === 0
        ? null
        : { name: baseline.name, value: round(summarise(baseline.runs.map(pick)).median) };
    return figure(bench, `event_loop_delay_${at}_ms_${path}`, 'ms', 'lower', summarise(runs.map(pick)), base);
  });
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
