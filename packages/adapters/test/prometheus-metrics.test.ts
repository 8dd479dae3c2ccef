// Issue 23: the Prometheus metrics. A settling venue runs a small scenario (a crossing pair that
// settles on the chain, orders refused for a bad signature and a price off the tick), then the admin
// scrapes GET /admin/metrics/prometheus and the counters are checked against what happened. The
// text never carries an order id, an account's key, secret or token, nor an order's amount or price;
// a trader's token gets nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadNoteHasher, type NoteHasher } from '@venue/notes';
import type { PlaceOrder } from '@venue/protocol';
import {
  depositFor,
  type Exchange,
  noteOrder,
  TEST_CORE_CONFIG,
  TestVenue,
  type Trader,
  testMarket,
} from '@venue/testing';

const MARKET = testMarket('SOL-USDC');
const PRICE = 1530n;
/** A distinctive amount, so that finding it in the metrics text would mean a leak. */
const AMOUNT = 7331n;
const FINALITY = 4;

let venue: TestVenue;
let hasher: NoteHasher;
let alice: Trader & { apiSecret: string; passphrase: string };
let bob: Trader & { apiSecret: string; passphrase: string };
let nextId = 0;
const orderIds: string[] = [];

/** The venue journals here, so the journal's metrics have records to count. */
const stateDir = mkdtempSync(join(tmpdir(), 'venue-metrics-'));

before(async () => {
  hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    state: { directory: stateDir, sealingKey: randomBytes(32) },
    settlement: true,
    finalityDepth: FINALITY,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  venue.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
  alice = await venue.trader('alice');
  bob = await venue.trader('bob');
});
after(async () => {
  await venue.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

function order(trader: Trader, side: 'bid' | 'ask', price = PRICE): PlaceOrder {
  const chain = venue.chain;
  assert.ok(chain);
  const value = side === 'bid' ? (AMOUNT * PRICE) / MARKET.priceScale : AMOUNT;
  const note = depositFor(chain, hasher, MARKET, trader, side, value);
  venue.advanceSlots(1); // the deposit's root reaches the venue
  nextId += 1;
  const context = { chain, market: MARKET, sessionId: venue.identity.sessionId, slot: venue.clock.slot() };
  const placed = noteOrder(context, trader, note, { side, amount: AMOUNT, price, id: nextId });
  orderIds.push(placed.order_id);
  return placed;
}

function codeOf(exchange: Exchange): number {
  return (JSON.parse(exchange.text) as { code: number }).code;
}

/** The value of one sample, or undefined when the text has no such series. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

test('after a settled cross, the scraped counters match what happened', async () => {
  // Two refusals first: a signature that does not match the body, a price off the tick.
  const forged = { ...order(alice, 'bid'), arrival_nonce: 999n };
  const badSignature = await venue.place(alice, forged);
  assert.equal(badSignature.status, 403, badSignature.text);
  const offTick = await venue.place(bob, order(bob, 'ask', PRICE + 1n));
  assert.equal(offTick.status, 400, offTick.text);
  // Then a cross that settles.
  assert.equal((await venue.place(alice, order(alice, 'bid'))).status, 200);
  assert.equal((await venue.place(bob, order(bob, 'ask'))).status, 200);
  await venue.settleAll({ slotsMin: 1 + FINALITY });
  // The last outcomes of the settlement may still be on their way to the disk (a slow fsync): the
  // scrape below is read once they are durable, so its in-flight gauge has a known value.
  const journaling = venue.server.engine.journal;
  for (let waited = 0; (journaling?.inFlight ?? 0) > 0 && waited < 200; waited += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  const scraped = await venue.call('/admin/metrics/prometheus', { token: venue.adminToken });
  assert.equal(scraped.status, 200, scraped.text);
  assert.match(String(scraped.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = scraped.text;
  const sol = { market: MARKET.symbol };

  assert.equal(sample(text, 'venue_intake_accepted_total', { action: 'place' }), 2);
  for (const refused of [badSignature, offTick]) {
    assert.equal(
      sample(text, 'venue_intake_refused_total', { action: 'place', code: String(codeOf(refused)) }),
      1,
      `refusals with code ${codeOf(refused)}`,
    );
  }
  // Both sides of the cross settled in one batch, final on chain; nothing is left pending.
  assert.equal(sample(text, 'venue_matches_settled_total', sol), 2);
  assert.equal(sample(text, 'venue_matches', { ...sol, state: 'pending' }), 0);
  assert.equal(sample(text, 'venue_matches', { ...sol, state: 'locked' }), 0);
  assert.equal(sample(text, 'venue_settlement_batches_total', { ...sol, outcome: 'confirmed' }), 1);
  assert.equal(sample(text, 'venue_settlement_batches_total', { ...sol, outcome: 'failed' }), 0);
  assert.equal(sample(text, 'venue_match_to_final_slots_count', sol), 1);
  // Alice's bid met an empty book in the slot before Bob's ask arrived: one batch without volume.
  assert.equal(sample(text, 'venue_batches_total', { ...sol, outcome: 'no_volume' }), 1);
  assert.equal(sample(text, 'venue_batches_total', { ...sol, outcome: 'cleared' }), 1);
  assert.equal(sample(text, 'venue_batch_sequence', sol), 2);
  assert.equal(sample(text, 'venue_market_trading_enabled', sol), 1);
  assert.equal(sample(text, 'venue_settlement_queue_depth', sol), 0);
  // Every place had its signature checked; all but the forged one their proof too (the tick is a
  // rule of the market, judged by the core after the checks).
  assert.equal(sample(text, 'venue_signature_check_seconds_count'), 4);
  assert.equal(sample(text, 'venue_proof_check_seconds_count'), 3);
  assert.equal(sample(text, 'venue_proof_checks_in_flight'), 0);
  assert.equal(sample(text, 'venue_rate_limit_refusals_total', { action: 'place' }), 0);
  assert.equal(sample(text, 'venue_stream_connections'), 0);
  // Every record journaled since the venue opened was timed to durability; none is in flight now.
  const journal = venue.server.engine.journal;
  assert.ok(journal !== null);
  const appended = sample(text, 'venue_journal_append_seconds_count') ?? 0;
  assert.ok(
    appended >= 6 && appended <= Number(journal.lastSeq),
    `${appended} of ${journal.lastSeq} records`,
  );
  assert.equal(sample(text, 'venue_journal_records_in_flight'), 0);
  assert.equal(sample(text, 'venue_journal_failed'), 0);
  assert.equal(
    sample(text, 'venue_journal_records_since_snapshot'),
    Number(journal.lastSeq - journal.snapshotSeq),
  );
  assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? 0) > 0, 'process metrics are there');

  // Nothing about one order or one account: ids, keys, secrets, tokens, amounts, prices.
  const marked = [
    ...orderIds,
    ...[alice, bob].flatMap((t) => [
      t.accountId,
      t.apiKey,
      t.apiSecret,
      t.passphrase,
      t.token,
      t.key.publicKey,
    ]),
    venue.adminToken,
    venue.adminApiKey,
  ];
  for (const value of marked) assert.ok(!text.includes(value), `the metrics carry ${value}`);
  const venueLines = text.split('\n').filter((line) => line.startsWith('venue_'));
  for (const value of [AMOUNT, PRICE, (AMOUNT * PRICE) / MARKET.priceScale]) {
    assert.ok(!venueLines.some((line) => line.includes(String(value))), `the metrics carry ${value}`);
  }
});

test("the sequencer's stalls are scraped as they were, once each, without the sampling interval", async () => {
  const scrape = async () =>
    (await venue.call('/admin/metrics/prometheus', { token: venue.adminToken })).text;
  await scrape(); // starts a fresh interval
  // The venue's thread is held for 150 ms, as a long synchronous step of the sequencer would hold it.
  const heldUntil = performance.now() + 150;
  while (performance.now() < heldUntil) {
    // held
  }
  const stalled = await scrape();
  const max = sample(stalled, 'venue_event_loop_delay_seconds', { stat: 'max' });
  const p99 = sample(stalled, 'venue_event_loop_delay_seconds', { stat: 'p99' });
  assert.ok(max !== undefined && max >= 0.14, `the 150 ms stall reads ${max} s`);
  assert.ok(p99 !== undefined && p99 <= max, `p99 ${p99} s is at most the max ${max} s`);
  // The next scrape covers only the time since: the stall is not reported again.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = sample(await scrape(), 'venue_event_loop_delay_seconds', { stat: 'max' });
  assert.ok(after !== undefined && after < 0.14, `the next interval reads ${after} s`);
});

test("a trader's token gets no metrics; neither does a request without one", async () => {
  const asTrader = await venue.call('/admin/metrics/prometheus', { token: alice.token });
  assert.equal(asTrader.status, 403);
  assert.equal(codeOf(asTrader), 1108);
  assert.doesNotMatch(asTrader.text, /venue_/);
  const anonymous = await venue.call('/admin/metrics/prometheus');
  assert.equal(anonymous.status, 401);
  assert.doesNotMatch(anonymous.text, /venue_/);
});

test('the Grafana dashboard in docs/ queries only metrics the venue exports', async () => {
  const dashboard = JSON.parse(
    readFileSync(new URL('../../../docs/grafana-dashboard.json', import.meta.url), 'utf8'),
  ) as { panels: { type: string; targets?: { expr: string }[] }[] };
  const scraped = await venue.call('/admin/metrics/prometheus', { token: venue.adminToken });
  const exported = new Set([...scraped.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
  const queried = new Set<string>();
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      for (const [name] of target.expr.matchAll(/\b(?:venue|process|nodejs)_[a-z0-9_]+/g)) {
        queried.add(name.replace(/_(bucket|count|sum)$/, ''));
      }
    }
  }
  assert.ok(queried.size >= 20, `the dashboard has panels for the metrics: ${[...queried].join(', ')}`);
  for (const name of queried)
    assert.ok(exported.has(name), `the dashboard queries ${name}, which is not exported`);
});
