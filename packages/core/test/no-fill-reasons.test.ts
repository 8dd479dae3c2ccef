/**
 * Why an order got nothing in a batch (batch/no-fill-reason.ts), as its owner reads it on GET
 * /orders/{id} (`last_unfilled`) and on an ioc/fok's `cancelled` event. Three layers:
 * - one named book per reason, each giving exactly that reason to the order it is about;
 * - a fast-check property over random books: every participant that got nothing has a reason
 *   that is true of the batch the auction computed (its price against the order's limit and the
 *   band, the allocation's own record of the order, the orders ahead of it that filled), and the
 *   batch record's counts by reason add up to those reasons;
 * - an owner learns nothing about other owners' orders from it: relabelling every other account's
 *   orders (ids, keys, note owners, accounts) leaves each of the owner's explanations unchanged,
 *   and the explanation carries only batch, slot and reason.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type BatchEvent,
  type Command,
  type CoreEvent,
  matchEventsOf,
  type OrderEvent,
  priceBand,
  VenueCore,
} from '@venue/core';
import { NO_FILL_REASONS, type NoFillReason, type OrderRecord } from '@venue/protocol';
import {
  hex32,
  type OrderSpec,
  openingCommands,
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';

const MARKET = testMarket('SOL-USDC');
const CONFIG = { ...TEST_CORE_CONFIG, retentionSlots: 1_000_000n, accountOpenOrdersMax: 50 };

function venue(oracle: bigint | null = 1000n): VenueCore {
  const core = new VenueCore(CONFIG);
  for (const command of openingCommands(oracle)) core.apply(command);
  return core;
}

const idOf = (id: number) => orderBody({ id }).order_id;
const place = (core: VenueCore, spec: OrderSpec, account = 'acct-a') =>
  core.apply(placeCommand(orderBody(spec), core.slot, account));
const tick = (core: VenueCore) => core.apply({ type: 'tick', slot: core.slot + 1n });
const reasonOf = (core: VenueCore, id: number, account = 'acct-a') =>
  core.orderRecord(idOf(id), account).last_unfilled?.reason;

// ---- Each reason, on a book made for it (oracle 1000, band 900-1100) ----

describe('each reason appears, on the order it is about', () => {
  const cases: [NoFillReason, (core: VenueCore) => void, number][] = [
    [
      'market_paused',
      (core) => {
        place(core, { id: 1, side: 'bid', price: 1000n });
        place(core, { id: 2, side: 'ask', price: 1000n, key: 'k2' }, 'acct-b');
        core.apply({
          type: 'market_gate',
          marketId: MARKET.marketId,
          pausedReason: 'oracle_stale',
          slot: 0n,
        });
      },
      1,
    ],
    [
      'outside_band',
      (core) => {
        // Both limits lie above the band: no candidate price is allowed.
        place(core, { id: 1, side: 'bid', price: 1300n });
        place(core, { id: 2, side: 'ask', price: 1200n, key: 'k2' }, 'acct-b');
      },
      1,
    ],
    [
      'outside_band',
      (core) => {
        // The batch clears at 1000; a bid limited below the band could not have filled at any allowed price.
        place(core, { id: 1, side: 'bid', price: 800n });
        place(core, { id: 2, side: 'bid', price: 1000n, key: 'k2' }, 'acct-b');
        place(core, { id: 3, side: 'ask', price: 1000n, key: 'k3' }, 'acct-c');
      },
      1,
    ],
    ['no_counterparty', (core) => place(core, { id: 1, side: 'bid', price: 1000n }), 1],
    [
      'limit',
      (core) => {
        place(core, { id: 1, side: 'bid', price: 950n });
        place(core, { id: 2, side: 'bid', price: 1000n, key: 'k2' }, 'acct-b');
        place(core, { id: 3, side: 'ask', price: 1000n, key: 'k3' }, 'acct-c');
      },
      1,
    ],
    [
      'priority',
      (core) => {
        place(core, { id: 2, side: 'bid', price: 1000n, key: 'k2' }, 'acct-b');
        place(core, { id: 1, side: 'bid', price: 1000n });
        place(core, { id: 3, side: 'ask', price: 1000n, key: 'k3' }, 'acct-c');
      },
      1,
    ],
    [
      'min_fill',
      (core) => {
        place(core, { id: 1, side: 'bid', price: 1000n, amount: 100n, minFill: 60n });
        place(core, { id: 2, side: 'ask', price: 1000n, amount: 50n, key: 'k2' }, 'acct-b');
      },
      1,
    ],
    [
      'all_or_none',
      (core) => {
        place(core, { id: 1, side: 'bid', price: 1000n, amount: 100n, minFill: 100n });
        place(core, { id: 2, side: 'ask', price: 1000n, amount: 50n, key: 'k2' }, 'acct-b');
      },
      1,
    ],
    [
      'unmatched',
      (core) => {
        // The only ask is all-or-none for more than the bid wants: nothing ahead of it filled either.
        place(core, { id: 1, side: 'ask', price: 1000n, amount: 50n });
        place(core, { id: 2, side: 'bid', price: 1000n, amount: 100n, minFill: 100n, key: 'k2' }, 'acct-b');
      },
      1,
    ],
    [
      'fill_or_kill',
      (core) => {
        place(core, { id: 1, side: 'bid', type: 'fok', price: 1000n, amount: 100n });
        place(core, { id: 2, side: 'ask', price: 1000n, amount: 50n, key: 'k2' }, 'acct-b');
      },
      1,
    ],
    [
      'self_trade',
      (core) => {
        place(core, { id: 2, side: 'bid', price: 1000n, key: 'k1', nonce: 1n });
        place(core, { id: 1, side: 'ask', price: 1000n, key: 'k1', nonce: 2n });
      },
      1,
    ],
  ];
  for (const [reason, build, id] of cases) {
    test(`${reason}`, () => {
      const core = venue();
      build(core);
      tick(core);
      assert.equal(reasonOf(core, id), reason);
      const record = core.orderRecord(idOf(id), 'acct-a');
      assert.deepEqual(Object.keys(record.last_unfilled ?? {}).sort(), ['batch', 'reason', 'slot']);
      assert.equal(record.last_unfilled?.slot, 1n);
    });
  }

  test('no_oracle', () => {
    const core = venue(null);
    place(core, { id: 1, side: 'bid', price: 1000n });
    place(core, { id: 2, side: 'ask', price: 1000n, key: 'k2' }, 'acct-b');
    tick(core);
    assert.equal(reasonOf(core, 1), 'no_oracle');
  });

  test('zero_quote', () => {
    // One base unit at 1000 in a price scale of 10^6 moves no quote unit: the only ask offers one.
    const core = new VenueCore(CONFIG);
    const market = testMarket('TINY-USDC', { priceScale: 1_000_000n });
    for (const command of [
      { type: 'boot', sessionId: TEST_SESSION, slot: 0n },
      { type: 'add_market', market },
      { type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n },
      { type: 'oracle_price', marketId: market.marketId, price: 1000n, slot: 0n },
    ] as Command[])
      core.apply(command);
    const spec = { symbol: 'TINY-USDC', price: 1000n, amount: 1n, priceScale: 1_000_000n };
    core.apply(placeCommand(orderBody({ ...spec, id: 1, side: 'bid', amount: 2000n }), 0n, 'acct-a'));
    core.apply(placeCommand(orderBody({ ...spec, id: 2, side: 'ask', key: 'k2' }), 0n, 'acct-b'));
    tick(core);
    assert.equal(reasonOf(core, 1), 'zero_quote');
  });

  test('an ioc or fok that got nothing says why on its cancelled event', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', type: 'ioc', price: 950n });
    place(core, { id: 2, side: 'bid', price: 1000n, key: 'k2' }, 'acct-b');
    place(core, { id: 3, side: 'ask', price: 1000n, key: 'k3' }, 'acct-c');
    const events = tick(core).filter((e): e is OrderEvent => e.type === 'order' && e.orderId === idOf(1));
    assert.deepEqual(
      events.map((e) => [e.kind, e.cancelReason, e.unfilledReason]),
      [['cancelled', 'ioc_remainder', 'limit']],
    );
  });
});

// ---- Property: every reason is true of the batch the auction computed ----

interface RawOrder {
  account: number;
  key: number;
  side: 'bid' | 'ask';
  type: 'limit' | 'ioc' | 'fok';
  price: bigint;
  amount: bigint;
  minFill: bigint | null;
}

const rawOrder: fc.Arbitrary<RawOrder> = fc.record({
  account: fc.integer({ min: 0, max: 2 }),
  key: fc.integer({ min: 0, max: 4 }),
  side: fc.constantFrom('bid' as const, 'ask' as const),
  type: fc.constantFrom('limit' as const, 'limit' as const, 'ioc' as const, 'fok' as const),
  price: fc.constantFrom(0n, 800n, 880n, 950n, 1000n, 1050n, 1120n, 1300n),
  amount: fc.bigInt({ min: 10n, max: 60n }),
  minFill: fc.option(fc.bigInt({ min: 1n, max: 60n }), { nil: null }),
});

interface Scenario {
  readonly orders: readonly RawOrder[];
  readonly oracle: bigint | null;
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  orders: fc.array(rawOrder, { minLength: 1, maxLength: 14 }),
  oracle: fc.option(fc.constantFrom(950n, 1000n, 1060n), { nil: null, freq: 8 }),
});

/** Labels of one run: relabelled runs give every account but `acct-0` other names. */
interface Labels {
  account(index: number): string;
  key(account: number, key: number): string;
  orderId(index: number): number;
}

const PLAIN: Labels = {
  account: (index) => `acct-${index}`,
  key: (account, key) => `a${account}k${key}`,
  orderId: (index) => index + 1,
};
const RELABELLED: Labels = {
  account: (index) => (index === 0 ? 'acct-0' : `other-${index * 7}`),
  key: (account, key) => (account === 0 ? `a${account}k${key}` : `zz${account}-${key * 3}`),
  orderId: (index) => index + 1 + 1000,
};

interface Run {
  core: VenueCore;
  events: CoreEvent[];
  ids: string[];
  accounts: string[];
}

function runScenario(s: Scenario, labels: Labels): Run {
  const core = venue(s.oracle);
  const ids: string[] = [];
  const accounts: string[] = [];
  for (const [index, raw] of s.orders.entries()) {
    // An ask of price 0 is valid; a bid needs a price.
    const price = raw.side === 'bid' && raw.price === 0n ? 1000n : raw.price;
    const minFill = raw.minFill !== null && raw.minFill <= raw.amount ? raw.minFill : undefined;
    // Account 0's ids stay fixed across labellings; other accounts' move.
    const id = raw.account === 0 ? index + 1 : labels.orderId(index);
    const body = orderBody({
      id,
      side: raw.side,
      type: raw.type,
      price,
      amount: raw.amount,
      ...(minFill === undefined ? {} : { minFill }),
      key: labels.key(raw.account, raw.key),
      nonce: BigInt(index + 1),
      note: `${labels.key(raw.account, raw.key)}-${index}`,
    });
    const account = labels.account(raw.account);
    core.apply(placeCommand(body, 0n, account));
    ids.push(body.order_id);
    accounts.push(account);
  }
  const events = core.apply({ type: 'tick', slot: 1n });
  return { core, events, ids, accounts };
}

function recordOf(run: Run, index: number): OrderRecord {
  return run.core.orderRecord(run.ids[index] as string, run.accounts[index] as string);
}

test('property: every unfilled participant gets a reason that is true of its batch', () => {
  const seen = new Set<NoFillReason>();
  fc.assert(
    fc.property(scenario, (s) => {
      const run = runScenario(s, PLAIN);
      const batch = run.events.find((e): e is BatchEvent => e.type === 'batch');
      const filled = new Set(matchEventsOf(run.events).map((e) => e.orderId));
      const counts: Partial<Record<NoFillReason, number>> = {};
      const records = s.orders.map((_, index) => recordOf(run, index));
      for (const [index, record] of records.entries()) {
        const reason = record.last_unfilled?.reason;
        if (filled.has(record.order_id)) {
          assert.equal(reason, undefined, 'an order that filled has no unfilled batch');
          continue;
        }
        assert.ok(reason !== undefined, `participant ${index} got nothing and no reason`);
        seen.add(reason);
        counts[reason] = (counts[reason] ?? 0) + 1;
        checkReason(s, records, index, reason, batch, filled);
      }
      if (batch !== undefined) {
        assert.deepEqual(batch.unfilled, counts, 'the batch record counts the reasons');
        assert.equal(batch.participants, s.orders.length);
      }
    }),
    { numRuns: 400 },
  );
  for (const reason of NO_FILL_REASONS) {
    if (reason === 'market_paused' || reason === 'zero_quote') continue; // named cases above
    assert.ok(seen.has(reason), `random books produced ${reason}`);
  }
});

/** Some order of its side that filled stood ahead of it in price, then time (intake order here). */
function filledAhead(records: readonly OrderRecord[], index: number, filled: ReadonlySet<string>): boolean {
  const record = records[index] as OrderRecord;
  return records.some(
    (other, j) =>
      filled.has(other.order_id) &&
      other.side === record.side &&
      (other.price_limit === record.price_limit
        ? j < index
        : record.side === 'bid'
          ? other.price_limit > record.price_limit
          : other.price_limit < record.price_limit),
  );
}

function checkReason(
  s: Scenario,
  records: readonly OrderRecord[],
  index: number,
  reason: NoFillReason,
  batch: BatchEvent | undefined,
  filled: ReadonlySet<string>,
): void {
  const record = records[index] as OrderRecord;
  const raw = s.orders[index] as RawOrder;
  const result = batch?.result;
  const price = result?.clearingPrice ?? null;
  const band = s.oracle === null ? null : priceBand(MARKET, s.oracle);
  const marketable =
    price !== null &&
    (record.side === 'bid'
      ? record.price_limit >= price
      : record.price_limit === 0n || record.price_limit <= price);
  const skips = (result?.skipped ?? []).filter((skip) => skip.ref === index).map((skip) => skip.reason);
  switch (reason) {
    case 'no_oracle':
      assert.equal(s.oracle, null);
      break;
    case 'no_counterparty':
      assert.equal(result?.noClearReason, 'no_volume');
      break;
    case 'outside_band': {
      assert.ok(band !== null);
      const beyond = record.side === 'bid' ? record.price_limit < band.low : record.price_limit > band.high;
      assert.ok(result?.noClearReason === 'no_candidate_in_band' || (price !== null && beyond));
      break;
    }
    case 'limit':
      assert.ok(price !== null && !marketable, 'the batch cleared beyond its limit');
      break;
    case 'priority': {
      assert.ok(marketable && skips.length === 0);
      assert.ok(filledAhead(records, index, filled), 'an order ahead of it filled');
      break;
    }
    case 'unmatched': {
      assert.ok(marketable && skips.length === 0);
      // Told apart from 'priority' by this alone: no order of its side ahead of it filled.
      assert.ok(!filledAhead(records, index, filled), 'no order ahead of it filled');
      break;
    }
    case 'min_fill':
    case 'all_or_none':
      assert.ok(marketable && skips[0] === 'min_fill', 'the allocation refused a fill below its own minimum');
      assert.equal(reason === 'all_or_none', (record.min_fill_size ?? 0n) >= record.amount);
      break;
    case 'fill_or_kill':
      assert.ok(raw.type === 'fok' && skips[0] === 'fill_or_kill');
      break;
    case 'self_trade':
      assert.ok(marketable && skips[0] === 'self_trade');
      assert.ok(
        records.some((other) => other.side !== record.side && other.trading_key === record.trading_key),
        'an order of the same key stood on the other side',
      );
      break;
    case 'zero_quote':
      assert.ok(skips[0] === 'zero_quote');
      break;
    case 'market_paused':
      assert.fail('no random book is paused');
  }
}

// ---- Property: an owner learns nothing about other owners' orders ----

test('property: relabelling every other owner leaves the owner’s explanations unchanged', () => {
  fc.assert(
    fc.property(scenario, (s) => {
      const plain = runScenario(s, PLAIN);
      const relabelled = runScenario(s, RELABELLED);
      for (const [index, raw] of s.orders.entries()) {
        if (raw.account !== 0) continue;
        const mine = recordOf(plain, index);
        const again = recordOf(relabelled, index);
        assert.deepEqual(again.last_unfilled, mine.last_unfilled);
        // The owner's view names nothing of anyone else.
        const text = JSON.stringify(mine.last_unfilled ?? {}, (_k, v) =>
          typeof v === 'bigint' ? `${v}` : v,
        );
        for (const [j, other] of s.orders.entries()) {
          if (other.account === 0) continue;
          assert.ok(!text.includes(plain.ids[j] as string), 'no other order id');
          assert.ok(!text.includes(hex32(`key-${PLAIN.key(other.account, other.key)}`)), 'no other key');
        }
        // An order of another account is not found, whatever the caller knows of its id.
        for (const [j, other] of s.orders.entries()) {
          if (other.account === 0) continue;
          assert.throws(() => plain.core.orderRecord(plain.ids[j] as string, 'acct-0'));
        }
      }
    }),
    { numRuns: 200 },
  );
});

// ---- A batch that did not clear is kept once for its market (state/last-unfilled.ts) ----

describe('a batch that did not clear is told to exactly the orders that took part in it', () => {
  const unfilledOf = (core: VenueCore, id: number, account = 'acct-a') =>
    core.orderRecord(idOf(id), account).last_unfilled;

  test('a resting order reads the latest uncleared batch, and keeps it once it has ended', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', price: 950n });
    tick(core);
    tick(core);
    assert.deepEqual(unfilledOf(core, 1), { batch: 1n, slot: core.slot, reason: 'no_counterparty' });
    const endedAt = core.slot;
    core.apply({
      type: 'cancel',
      orderId: idOf(1),
      params: {
        trading_key: hex32('key-k1'),
        cancel_nonce: 1n,
        session_id: TEST_SESSION,
        trading_key_signature: '00'.repeat(64),
      },
      accountId: 'acct-a',
      slot: core.slot,
    });
    assert.equal(core.orderRecord(idOf(1), 'acct-a').state, 'cancelled');
    tick(core);
    place(core, { id: 2, side: 'bid', price: 950n, key: 'k2' }, 'acct-b');
    tick(core);
    tick(core);
    assert.deepEqual(unfilledOf(core, 1), { batch: 1n, slot: endedAt, reason: 'no_counterparty' });
    assert.equal(unfilledOf(core, 2, 'acct-b')?.reason, 'no_counterparty');
  });

  test('an order that arrived in the batch’s slot, or waited on a settlement through it, is not told', () => {
    const core = venue();
    place(core, { id: 1, side: 'bid', amount: 100n, price: 1000n });
    place(core, { id: 2, side: 'ask', amount: 40n, price: 1000n, key: 'k2' }, 'acct-b');
    const matched = tick(core);
    const bid = matchEventsOf(matched).find((e) => e.orderId === idOf(1));
    assert.ok(bid !== undefined);
    // The bid waits on its settlement while a lone order makes the next batches run and not clear.
    place(core, { id: 3, side: 'bid', price: 950n, key: 'k3' }, 'acct-c');
    tick(core);
    tick(core);
    assert.equal(unfilledOf(core, 3, 'acct-c')?.reason, 'no_counterparty');
    assert.equal(unfilledOf(core, 1), undefined, 'pending through the batch: not a participant');
    core.apply({
      type: 'match_settled',
      marketId: MARKET.marketId,
      matchId: bid.matchId,
      changeNote: { commitment: hex32('change-1'), value: bid.noteValue - bid.quoteAmount, treeId: 0 },
      slot: core.slot,
    });
    assert.equal(unfilledOf(core, 1), undefined, 'back to resting after the batch: still not told');
    tick(core);
    const after = unfilledOf(core, 1);
    assert.equal(after?.reason, 'no_counterparty', 'the next batch it rests through is told');
    assert.equal(after?.slot, core.slot);
    // Told the same batch as the order that rested all along, and the same after a restore.
    assert.deepEqual(after, unfilledOf(core, 3, 'acct-c'));
    const restored = VenueCore.restore(CONFIG, core.snapshot());
    assert.deepEqual(restored.orderRecord(idOf(1), 'acct-a').last_unfilled, after);
    assert.equal(restored.stateHash(), core.stateHash());
  });
});
