/**
 * What a Prometheus scrape costs the venue (issue 23): the metrics are computed when a scraper asks,
 * on the sequencer's thread, so a scrape is a pause of the event loop. Measured on a venue engine
 * with MARKETS markets and RESTING resting orders (none cross), without HTTP, so the figure is the
 * venue's own work: VenueMetrics.scrape(), which reads every market's gate, the pending matches,
 * the journal and queue counters, and renders the text (process metrics included).
 *
 * Baseline, in the same run: building the body of GET /instruments for the same markets (every
 * market's listing and gate, serialised to JSON), the cheapest read an operator's dashboard makes
 * today. Figures: scrape p50 latency against it (lower is better, ratio above 1 = the scrape is the
 * cheaper), the scrape's p99, and the text's size.
 */
import { TradingGates, VenueEngine, VenueMetrics } from '@venue/adapters';
import { stringifyJson } from '@venue/protocol';
import {
  ManualClock,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  testListing,
  testMarket,
} from '@venue/testing';
import { collectGarbage, log } from './bench-venue.ts';
import { type Figure, figure, summarise } from './harness.ts';

const MARKETS = 10;
const ACCOUNTS = 20;

async function crowdedEngine(resting: number): Promise<VenueEngine> {
  const clock = new ManualClock();
  const engine = VenueEngine.fresh(
    { ...TEST_CORE_CONFIG, accountOpenOrdersMax: resting },
    clock,
    'ab'.repeat(32),
  );
  const symbols = Array.from({ length: MARKETS }, (_, i) => `M${i}-USDC`);
  for (const symbol of symbols) await engine.addMarket(testListing(testMarket(symbol)));
  // The root the test orders name, as a chain would have published it.
  engine.record({ type: 'roots', treeId: 0, roots: [TEST_ROOT] });
  for (let i = 0; i < resting; i += 1) {
    const side = i % 2 === 0 ? 'bid' : 'ask';
    const order = orderBody({
      id: i + 1,
      symbol: symbols[i % MARKETS] ?? 'M0-USDC',
      side,
      price: side === 'bid' ? 900n - BigInt(i % 10) * 10n : 1100n + BigInt(i % 10) * 10n,
      amount: 2n + BigInt(i % 7),
      key: `k${i % ACCOUNTS}`,
      expiry: 4000n,
    });
    const { slot: _slot, ...unstamped } = placeCommand(order, 0n, `acct-${i % ACCOUNTS}`);
    await engine.submit(unstamped);
  }
  return engine;
}

async function timedMs(operation: () => Promise<unknown> | unknown, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = process.hrtime.bigint();
    await operation();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

export async function run(quick: boolean): Promise<Figure[]> {
  const resting = quick ? 2_000 : 10_000;
  const scrapes = quick ? 50 : 300;
  const engine = await crowdedEngine(resting);
  const metrics = new VenueMetrics();
  metrics.attach({ engine, gates: new TradingGates(engine), clock: new ManualClock() });
  const instrumentsBody = () => stringifyJson({ instruments: engine.instruments(false) });
  // Warm-up of both paths, outside the timing.
  await timedMs(() => metrics.scrape(), 10);
  await timedMs(instrumentsBody, 10);
  collectGarbage();
  const scrape = (await timedMs(() => metrics.scrape(), scrapes)).sort((a, b) => a - b);
  const baseline = (await timedMs(instrumentsBody, scrapes)).sort((a, b) => a - b);
  const p = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  const text = await metrics.scrape();
  log(
    `metrics: ${MARKETS} markets, ${resting} resting orders; scrape p50 ${p(scrape, 0.5).toFixed(3)} ms, ` +
      `p99 ${p(scrape, 0.99).toFixed(3)} ms; /instruments body p50 ${p(baseline, 0.5).toFixed(3)} ms; ` +
      `${text.length} bytes of text\n`,
  );
  await engine.close();
  const us = (ms: number) => Math.round(ms * 1000);
  const baselineP50 = { name: 'GET /instruments body, same markets', value: us(p(baseline, 0.5)) };
  const spreadOf = (sorted: number[]) => summarise([p(sorted, 0.25), p(sorted, 0.5), p(sorted, 0.75)]).spread;
  return [
    figure(
      'metrics',
      `scrape p50, ${MARKETS} markets, ${resting} resting (VenueMetrics.scrape on the sequencer thread)`,
      'us',
      'lower',
      { median: us(p(scrape, 0.5)), spread: spreadOf(scrape), runs: scrapes },
      baselineP50,
    ),
    figure(
      'metrics',
      `scrape p99, ${MARKETS} markets, ${resting} resting`,
      'us',
      'lower',
      { median: us(p(scrape, 0.99)), spread: 0, runs: scrapes },
      { name: 'GET /instruments body p99, same markets', value: us(p(baseline, 0.99)) },
    ),
    figure(
      'metrics',
      'scrape text size',
      'bytes',
      'lower',
      { median: text.length, spread: 0, runs: 1 },
      null,
    ),
  ];
}
