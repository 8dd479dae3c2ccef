// Oracle feeds pause only their own markets (spec 1 item 8): missing, stale, unauthenticated,
// replayed, out-of-order, future-slot and over-wide updates each close the bound market with their
// reason, a fast move trips the circuit breaker for its cooldown, a good update reopens; the other
// market keeps trading, and cancels keep working on the paused one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OracleMonitor } from '@venue/adapters';
import { generateTradingKey, type OracleUpdate, signOracleUpdate } from '@venue/protocol';
import { bodyOf, envelopeOf, TestVenue, type Trader, testListing, testMarket } from '@venue/testing';

const SOL = testListing(testMarket('SOL-USDC'));
const ETH = testListing(testMarket('ETH-USDC'));
const solPublisher = generateTradingKey();
const ethPublisher = generateTradingKey();

let venue: TestVenue;
let monitor: OracleMonitor;
let trader: Trader;
const sequences = new Map<string, bigint>();

function update(
  feed: string,
  price: bigint,
  options: { confidence?: bigint; slot?: bigint; sequence?: bigint } = {},
) {
  const sequence = options.sequence ?? (sequences.get(feed) ?? 0n) + 1n;
  sequences.set(feed, sequence);
  const publisher = feed === SOL.config.oracleFeed ? solPublisher : ethPublisher;
  return signOracleUpdate(
    {
      feed,
      price,
      confidence: options.confidence ?? 1n,
      publish_slot: options.slot ?? venue.clock.slot(),
      sequence,
    },
    publisher,
  );
}

function gates(): Record<string, string | null> {
  return Object.fromEntries(
    [SOL, ETH].map((listing) => [
      listing.config.symbol,
      venue.server.engine.core.marketGate(listing.config.marketId).pausedReason,
    ]),
  );
}

before(async () => {
  venue = await TestVenue.start();
  monitor = new OracleMonitor(
    venue.server.engine,
    [SOL, ETH],
    new Map([
      [SOL.config.oracleFeed, solPublisher.publicKey],
      [ETH.config.oracleFeed, ethPublisher.publicKey],
    ]),
  );
  trader = await venue.trader();
});
after(() => venue.stop());

test('with no update yet both markets are paused as missing; a good update opens each', () => {
  monitor.evaluate(venue.clock.slot());
  assert.deepEqual(gates(), { 'SOL-USDC': 'oracle_missing', 'ETH-USDC': 'oracle_missing' });
  assert.equal(monitor.receive(update(SOL.config.oracleFeed, 150_000n), venue.clock.slot()), 'accepted');
  assert.equal(monitor.receive(update(ETH.config.oracleFeed, 3_000_000n), venue.clock.slot()), 'accepted');
  assert.deepEqual(gates(), { 'SOL-USDC': null, 'ETH-USDC': null });
});

test('an unauthenticated or replayed update pauses only its market, over REST too; a good one reopens', async () => {
  const resting = venue.order({ id: 9, nonce: 1n }, trader.key);
  assert.equal((await venue.place(trader, resting)).status, 200);
  const forged = {
    ...update(SOL.config.oracleFeed, 151_000n),
    signature: update(ETH.config.oracleFeed, 1n).signature,
  };
  assert.equal(monitor.receive(forged, venue.clock.slot()), 'unauthenticated');
  assert.deepEqual(gates(), { 'SOL-USDC': 'oracle_invalid', 'ETH-USDC': null });

  const instruments = bodyOf(await venue.call('/instruments'))['instruments'] as Record<string, unknown>[];
  const sol = instruments.find((i) => i['symbol'] === 'SOL-USDC');
  assert.equal(sol?.['trading_enabled'], false);
  assert.equal(sol?.['paused_reason'], 'oracle_invalid');
  const refused = await venue.place(trader, venue.order({ id: 1, nonce: 2n }, trader.key));
  assert.equal(refused.status, 503);
  assert.equal(envelopeOf(refused).code, 5002);
  // The paused market still takes cancels (spec 1 item 7: cancels keep working during a pause).
  const cancelled = await venue.cancel(
    trader,
    resting.order_id,
    venue.cancelParams(resting.order_id, 1n, trader.key),
  );
  assert.equal(cancelled.status, 200, cancelled.text);
  const eth = venue.order({ id: 2, nonce: 3n, symbol: 'ETH-USDC' }, trader.key);
  assert.equal((await venue.place(trader, eth)).status, 200);

  assert.equal(monitor.receive(update(SOL.config.oracleFeed, 150_500n), venue.clock.slot()), 'accepted');
  assert.equal(gates()['SOL-USDC'], null);
  const old: OracleUpdate = update(SOL.config.oracleFeed, 150_400n, { sequence: 1n });
  assert.equal(monitor.receive(old, venue.clock.slot()), 'replayed');
  assert.equal(gates()['SOL-USDC'], 'oracle_invalid');
  monitor.receive(update(SOL.config.oracleFeed, 150_500n, { sequence: 100n }), venue.clock.slot());
  assert.equal(gates()['SOL-USDC'], null);
});

test('a feed older than the market allows is stale; a too-wide confidence interval is invalid', () => {
  venue.clock.advanceSlots(SOL.oracleMaxAgeSlots + 1n);
  monitor.receive(update(ETH.config.oracleFeed, 3_000_000n), venue.clock.slot());
  assert.deepEqual(gates(), { 'SOL-USDC': 'oracle_stale', 'ETH-USDC': null });
  monitor.receive(update(SOL.config.oracleFeed, 150_000n, { confidence: 150_000n }), venue.clock.slot());
  assert.equal(gates()['SOL-USDC'], 'oracle_invalid');
  monitor.receive(update(SOL.config.oracleFeed, 150_000n), venue.clock.slot());
  assert.equal(gates()['SOL-USDC'], null);
});

test('a move beyond the band within the window trips the breaker for exactly its cooldown', () => {
  const band = BigInt(SOL.circuitBreaker.band_bps);
  const jump = 150_000n + (150_000n * (band + 10n)) / 10_000n;
  monitor.receive(update(SOL.config.oracleFeed, jump), venue.clock.slot());
  assert.equal(gates()['SOL-USDC'], 'circuit_breaker');
  const until = venue.clock.slot() + SOL.circuitBreaker.cooldown_slots;
  // Keep the feed fresh through the cooldown; the breaker holds until its end.
  while (venue.clock.slot() + 1n < until) {
    venue.clock.advanceSlots(10n < until - venue.clock.slot() - 1n ? 10n : until - venue.clock.slot() - 1n);
    monitor.receive(update(SOL.config.oracleFeed, jump), venue.clock.slot());
    assert.equal(gates()['SOL-USDC'], 'circuit_breaker');
  }
  venue.clock.advanceSlots(1n);
  monitor.receive(update(SOL.config.oracleFeed, jump), venue.clock.slot());
  assert.equal(gates()['SOL-USDC'], null);
  // ETH's feed was not updated during SOL's cooldown: judged alone, it went stale meanwhile.
  assert.equal(gates()['ETH-USDC'], 'oracle_stale');
});

test('a resent, out-of-order or future-slot update is refused and closes only its market until a good one', () => {
  const feed = SOL.config.oracleFeed;
  const price = 150_000n + (150_000n * (BigInt(SOL.circuitBreaker.band_bps) + 10n)) / 10_000n;
  venue.clock.advanceSlots(5n);
  const slot = venue.clock.slot();
  monitor.receive(update(ETH.config.oracleFeed, 3_000_000n), slot);
  const good = update(feed, price);
  assert.equal(monitor.receive(good, slot), 'accepted');
  assert.deepEqual(gates(), { 'SOL-USDC': null, 'ETH-USDC': null });
  // Built one at a time: each needs a sequence above the recovery update before it.
  const refusals: [() => OracleUpdate, string][] = [
    [() => good, 'replayed'],
    [() => update(feed, price, { slot: slot - 1n }), 'out_of_order'],
    [() => update(feed, price, { slot: slot + 1n }), 'future_slot'],
  ];
  for (const [refused, verdict] of refusals) {
    assert.equal(monitor.receive(refused(), slot), verdict);
    assert.deepEqual(gates(), { 'SOL-USDC': 'oracle_invalid', 'ETH-USDC': null }, verdict);
    assert.equal(monitor.receive(update(feed, price), slot), 'accepted', `recovers after ${verdict}`);
    assert.equal(gates()['SOL-USDC'], null);
  }
  const stranger = signOracleUpdate(
    {
      feed: 'UnknownFeed1111111111111111111111111111111',
      price,
      confidence: 1n,
      publish_slot: slot,
      sequence: 1n,
    },
    solPublisher,
  );
  assert.equal(monitor.receive(stranger, slot), 'unknown_feed');
  assert.deepEqual(gates(), { 'SOL-USDC': null, 'ETH-USDC': null }, 'an unknown feed closes nothing');
});
