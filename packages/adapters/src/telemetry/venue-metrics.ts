import type { CoreEvent } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_LOOP_SAMPLE_MS } from '../config/limits.ts';
import type { IntakeAction, IntakeTelemetry } from '../venue/ports.ts';
import { EventLoopDelay } from './event-loop-delay.ts';
import { type MetricSources, registerScrapedMetrics } from './scraped-metrics.ts';

/** Where the match-to-final histogram puts its samples, in slots (400 ms each on mainnet). */
const FINAL_SLOTS_BUCKETS = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
/** Sub-millisecond to a second: signature and proof checks, journal fsyncs. */
const SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The venue's Prometheus metrics (docs/operations.md "Metrics"). One registry per venue, never
 * prom-client's global one, so several venues in one process (tests, the simulator) keep apart.
 *
 * Two kinds of metric live here:
 * - counters and histograms of events, incremented where the event happens (an order accepted or
 *   refused, a signature checked, a journal record made durable, a batch final);
 * - gauges and totals read from state the venue already keeps, computed only when a scraper asks
 *   (scraped-metrics.ts), so the hot paths pay nothing for them.
 *
 * Labels are aggregates only: a market's symbol, an action, an error code, a reason. Never an order
 * id, an account, a key, a price or the amount of one order: the operator sees the venue, not a
 * participant.
 */
export class VenueMetrics implements IntakeTelemetry {
  readonly registry = new Registry();
  readonly #sources: MetricSources = {};
  readonly #symbols = new Map<string, string>();
  readonly #intakeAccepted: Counter<'action'>;
  readonly #intakeRefused: Counter<'action' | 'code' | 'error'>;
  readonly #signatureSeconds: Histogram;
  readonly #proofSeconds: Histogram;
  readonly #proofsInFlight: Gauge;
  readonly #journalAppendSeconds: Histogram;
  readonly #matchToFinal: Histogram<'market'>;
  readonly #batches: Counter<'market' | 'outcome'>;
  readonly #loop = new EventLoopDelay(EVENT_LOOP_SAMPLE_MS);

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#intakeAccepted = new Counter({
      name: 'venue_intake_accepted_total',
      help: 'Trading requests (REST and stream) the venue accepted, by action.',
      labelNames: ['action'],
      registers,
    });
    this.#intakeRefused = new Counter({
      name: 'venue_intake_refused_total',
      help: 'Trading requests the venue refused, by action and error code (docs/errors.md).',
      labelNames: ['action', 'code', 'error'],
      registers,
    });
    this.#signatureSeconds = new Histogram({
      name: 'venue_signature_check_seconds',
      help: 'Time from asking for a request signature check to its verdict (queue wait included).',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.#proofSeconds = new Histogram({
      name: 'venue_proof_check_seconds',
      help: 'Time from asking for an order proof check to its verdict (queue wait included).',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.#proofsInFlight = new Gauge({
      name: 'venue_proof_checks_in_flight',
      help: 'Order proof checks asked for and not yet answered (the proof pool queue).',
      registers,
    });
    this.#journalAppendSeconds = new Histogram({
      name: 'venue_journal_append_seconds',
      help: 'Time from appending a journal record to it being durable on disk.',
      buckets: SECONDS_BUCKETS,
      registers,
    });
    this.#matchToFinal = new Histogram({
      name: 'venue_match_to_final_slots',
      help: "Slots from a settled batch's oldest match to the batch's finality on chain, per batch.",
      labelNames: ['market'],
      buckets: FINAL_SLOTS_BUCKETS,
      registers,
    });
    this.#batches = new Counter({
      name: 'venue_batches_total',
      help: 'Batch auctions run, by market and outcome (cleared, or why not).',
      labelNames: ['market', 'outcome'],
      registers,
    });
    const loop = this.#loop;
    new Gauge({
      name: 'venue_event_loop_delay_seconds',
      help:
        "How late the sequencer's event loop turned since the previous scrape: its longest stall " +
        `(stat="max") and 99th percentile (stat="p99") of how much later than due a ${EVENT_LOOP_SAMPLE_MS} ms timer fired.`,
      labelNames: ['stat'],
      registers,
      collect() {
        const { maxSeconds, p99Seconds } = loop.take();
        this.set({ stat: 'max' }, maxSeconds);
        this.set({ stat: 'p99' }, p99Seconds);
      },
    });
    registerScrapedMetrics(this.registry, this.#sources);
  }

  /** Stops what samples in the background (the event loop's timer); the venue is closing. */
  close(): void {
    this.#loop.close();
  }

  /** Adds the parts scrape-time metrics read; parts arrive as the assembly creates them. */
  attach(sources: MetricSources): void {
    Object.assign(this.#sources, sources);
    for (const market of sources.engine?.markets() ?? []) this.#symbols.set(market.marketId, market.symbol);
  }

  /** The label of a market: its symbol, which operators read, or the id of one not listed (yet). */
  symbolOf(marketId: string): string {
    const known = this.#symbols.get(marketId);
    if (known !== undefined) return known;
    // A market listed after the venue opened: looked up once, then kept.
    const listed = this.#sources.engine?.markets().find((market) => market.marketId === marketId);
    if (listed === undefined) return marketId;
    this.#symbols.set(marketId, listed.symbol);
    return listed.symbol;
  }

  /** One trading request's outcome: accepted (null) or the error that refused it. */
  intake(action: IntakeAction, refusal: unknown): void {
    if (refusal === null) {
      this.#intakeAccepted.inc({ action });
      return;
    }
    // A fault that is no VenueError reaches the client as an internal error (errors.ts).
    const [code, error] = isVenueError(refusal)
      ? [String(refusal.code), refusal.errorName]
      : ['5000', 'INTERNAL'];
    this.#intakeRefused.inc({ action, code, error });
  }

  signatureChecked(seconds: number): void {
    this.#signatureSeconds.observe(seconds);
  }

  /** Brackets one proof check: call the returned function when its verdict is in. */
  proofCheckStarted(): (seconds: number) => void {
    this.#proofsInFlight.inc();
    return (seconds) => {
      this.#proofsInFlight.dec();
      this.#proofSeconds.observe(seconds);
    };
  }

  journalAppended(seconds: number): void {
    this.#journalAppendSeconds.observe(seconds);
  }

  /** A settlement batch became final `slots` after its oldest match. */
  batchFinal(marketId: string, slots: bigint): void {
    this.#matchToFinal.observe({ market: this.symbolOf(marketId) }, Number(slots));
  }

  /** The engine's events as they leave: batch auctions are counted by outcome. */
  followEvents(events: readonly CoreEvent[]): void {
    for (const event of events) {
      if (event.type !== 'batch') continue;
      const outcome =
        event.result.clearingPrice !== null ? 'cleared' : (event.result.noClearReason ?? 'none');
      this.#batches.inc({ market: this.symbolOf(event.marketId), outcome });
    }
  }

  /** The text a Prometheus scraper reads (text exposition format 0.0.4). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
