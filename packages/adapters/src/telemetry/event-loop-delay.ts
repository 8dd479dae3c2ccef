import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/**
 * How late the sequencer's event loop turned, for the metrics (docs/operations.md "Metrics", D143).
 * A timer every `resolutionMs` records how much later than due it fired; a stall of the thread shows
 * as one late firing of about the stall's length. An idle loop reads about 0.
 *
 * Node's own `monitorEventLoopDelay` was not used: it counts the interval in every sample (an idle
 * loop reads the interval; prom-client's `nodejs_eventloop_lag_*`, sampled every 10 ms, show 10 ms
 * on an idle venue), and resetting it, which a per-scrape figure needs, also forgets when it last
 * fired, so a stall that begins right after a scrape is never recorded. Here the last firing is
 * kept across takes, and the timer is a plain unref'd interval: it never keeps a process alive.
 */
export interface LoopDelaySince {
  /** The longest stall since the previous take, in seconds. */
  readonly maxSeconds: number;
  /** The 99th percentile since the previous take, in seconds. */
  readonly p99Seconds: number;
}

export class EventLoopDelay {
  /** Lateness in microseconds (the histogram takes integers of at least 1). */
  readonly #histogram: RecordableHistogram = createHistogram();
  readonly #timer: NodeJS.Timeout;

  constructor(resolutionMs: number) {
    let due = performance.now() + resolutionMs;
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#histogram.record(Math.max(1, Math.round((now - due) * 1000)));
      due = now + resolutionMs;
    }, resolutionMs);
    this.#timer.unref();
  }

  /**
   * The delays since the previous take (or the start), and a fresh start. No firing since (two
   * takes within one interval) reads 0: nothing late was seen.
   */
  take(): LoopDelaySince {
    const histogram = this.#histogram;
    const seconds = (us: number) => (histogram.count === 0 ? 0 : us / 1e6);
    const taken = { maxSeconds: seconds(histogram.max), p99Seconds: seconds(histogram.percentile(99)) };
    histogram.reset();
    return taken;
  }

  /** Stops sampling (the venue closed). */
  close(): void {
    clearInterval(this.#timer);
  }
}
