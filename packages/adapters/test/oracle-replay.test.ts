// The oracle simulator replays a recorded price series (docs/enclave.md has the file format): the
// monitor receives exactly the file's prices at the file's steps, signed by the feed's publisher; a
// gap in the file longer than the market's oracle_max_age_slots pauses the market as stale and the
// next row reopens it; at the end the replay loops with rising sequences or holds until stale.
// Markets the file does not name keep walking. A malformed file is refused with its line and why.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createOracleSimulator, OracleMonitor, parsePriceSeries, type ReplayEnd } from '@venue/adapters';
import { TestVenue, testListing, testMarket } from '@venue/testing';
import { DEV_MARKETS } from '../../cli/src/dev/dev-markets.ts';
import { createDevOracle, devOracleOptionsFromEnv } from '../../cli/src/dev/dev-oracle.ts';

const SOL = testListing(testMarket('SOL-USDC'));
const ETH = testListing(testMarket('ETH-USDC'));
const SYMBOLS = new Set(['SOL-USDC', 'ETH-USDC']);

/** SOL moves for three steps, then the recording has a gap of 38 steps (longer than 25). */
const SERIES = `# a recorded SOL-USDC move, quote units per base unit in the market's price scale
step,symbol,price,confidence
0,SOL-USDC,150000,75
1,SOL-USDC,150100,
2,SOL-USDC,150050,80

40,SOL-USDC,150000,75
`;
const LAST_STEP = 40;
/** step -> [price, confidence] of the file; an empty confidence is price / 2000. */
const ROWS = new Map([
  [0, [150_000n, 75n]],
  [1, [150_100n, 75n]],
  [2, [150_050n, 80n]],
  [40, [150_000n, 75n]],
]);

let venue: TestVenue;
before(async () => {
  venue = await TestVenue.start();
});
after(() => venue.stop());

function simulate(atEnd: ReplayEnd) {
  const simulator = createOracleSimulator({
    feeds: [
      { feed: SOL.config.oracleFeed, symbol: 'SOL-USDC', startPrice: 150_000n },
      { feed: ETH.config.oracleFeed, symbol: 'ETH-USDC', startPrice: 3_000_000n },
    ],
    series: parsePriceSeries(SERIES, SYMBOLS),
    atEnd,
    walkStep: () => 0,
  });
  const monitor = new OracleMonitor(venue.server.engine, [SOL, ETH], simulator.publisherKeys);
  /** Runs one step at the current slot, then moves the clock on; returns what SOL published. */
  const step = () => {
    const slot = venue.clock.slot();
    const updates = simulator.step(slot);
    for (const update of updates) assert.equal(monitor.receive(update, slot), 'accepted');
    monitor.evaluate(slot);
    const gate = (marketId: string) => venue.server.engine.core.marketGate(marketId).pausedReason;
    const seen = {
      sol: updates.find((u) => u.feed === SOL.config.oracleFeed),
      eth: updates.find((u) => u.feed === ETH.config.oracleFeed),
      solGate: gate(SOL.config.marketId),
      ethGate: gate(ETH.config.marketId),
    };
    venue.clock.advanceSlots(1n);
    return seen;
  };
  return { step };
}

test("a held replay publishes the file's rows at their steps; gaps and the end go stale", () => {
  const { step } = simulate('hold');
  const maxAge = Number(SOL.oracleMaxAgeSlots);
  for (let index = 0; index <= LAST_STEP + maxAge + 5; index += 1) {
    const seen = step();
    const row = ROWS.get(index);
    assert.deepEqual(
      seen.sol === undefined ? undefined : [seen.sol.price, seen.sol.confidence],
      row,
      `step ${index}: SOL publishes exactly the file's row`,
    );
    // The last SOL row before this step decides freshness: rows at 2 and 40.
    const lastRow = index >= LAST_STEP ? LAST_STEP : Math.min(index, 2);
    const stale = index - lastRow > maxAge;
    assert.equal(seen.solGate, stale ? 'oracle_stale' : null, `step ${index}`);
    // ETH is not in the file: it walks (pinned flat here) and stays open throughout.
    assert.equal(seen.eth?.price, 3_000_000n);
    assert.equal(seen.ethGate, null);
  }
});

test('a looping replay starts over with rising sequences, so every update is accepted', () => {
  const { step } = simulate('loop');
  const published: [number, bigint, bigint][] = [];
  for (let index = 0; index < 2 * (LAST_STEP + 1); index += 1) {
    const { sol } = step();
    if (sol !== undefined) published.push([index, sol.price, sol.sequence]);
  }
  assert.deepEqual(
    published.map(([index, price]) => [index, price]),
    [...ROWS]
      .flatMap(([s, [price]]) => [[s, price]])
      .concat([...ROWS].map(([s, [price]]) => [s + LAST_STEP + 1, price as bigint])),
  );
  assert.deepEqual(
    published.map(([, , sequence]) => sequence),
    [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n],
  );
});

test('a malformed file is refused with its line and what to fix', () => {
  const header = 'step,symbol,price,confidence';
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['# only a comment\n', /empty/],
    ['symbol,price\n0,SOL-USDC,1,\n', /line 1: the first line must be/],
    [`${header}\n`, /no rows/],
    [`${header}\n0,SOL-USDC,150000\n`, /line 2: expected 4 comma-separated fields/],
    [`${header}\n0,BTC-USDC,150000,\n`, /line 2: unknown symbol "BTC-USDC"/],
    [`${header}\n0,SOL-USDC,0,\n`, /line 2: price must be above 0/],
    [`${header}\n0,SOL-USDC,-5,\n`, /line 2: price "-5" is not a non-negative decimal integer/],
    [`${header}\n0,SOL-USDC,1.5,\n`, /price "1.5"/],
    [`${header}\n0,SOL-USDC,18446744073709551616,\n`, /above the u64 maximum/],
    [`${header}\n01,SOL-USDC,1,\n`, /step "01"/],
    [`${header}\n5,SOL-USDC,1,\n4,SOL-USDC,1,\n`, /line 3: step 4 comes after step 5/],
    [`${header}\n5,SOL-USDC,1,\n5,SOL-USDC,2,\n`, /line 3: SOL-USDC appears twice at step 5/],
    [`${header}\n10000001,SOL-USDC,1,\n`, /above the maximum/],
  ];
  for (const [text, why] of cases) {
    assert.throws(() => parsePriceSeries(text, SYMBOLS, 'prices.csv'), why, JSON.stringify(text));
  }
});

test('dev mode replays a file named in its environment; a wrong end mode is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-replay-'));
  try {
    const file = join(dir, 'prices.csv');
    writeFileSync(file, SERIES);
    const options = devOracleOptionsFromEnv({
      VENUE_DEV_ORACLE_REPLAY: file,
      VENUE_DEV_ORACLE_REPLAY_END: 'hold',
    });
    assert.deepEqual(options, { replayFile: file, replayEnd: 'hold' });
    assert.deepEqual([...createDevOracle(DEV_MARKETS, options).replayed], ['SOL-USDC']);
    assert.deepEqual([...createDevOracle(DEV_MARKETS, devOracleOptionsFromEnv({})).replayed], []);
    assert.throws(
      () => devOracleOptionsFromEnv({ VENUE_DEV_ORACLE_REPLAY_END: 'stop' }),
      /use loop \(the default\) or hold/,
    );
    writeFileSync(file, 'step,symbol,price,confidence\n0,DOGE-USDC,1,\n');
    assert.throws(
      () => createDevOracle(DEV_MARKETS, { replayFile: file }),
      /prices\.csv line 2: unknown symbol/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
