/**
 * The batch auction of one market (decisions section 2). A naive reference model, written plainly
 * from the rules and sharing no code with the implementation, is run beside `clearBatch` on random
 * books and both must give the same result; the invariants users rely on are also checked directly
 * on every random result; and named examples pin down each tie-break and allocation rule.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AssertionError, U64_MAX } from '@venue/protocol';
import fc from 'fast-check';
import * as auction from '../src/auction/clear-batch.ts';
import type { GatheredSide } from '../src/auction/gathered.ts';
import { AUCTION_LIMITS, type AuctionLimits } from '../src/auction/limits.ts';
import { sortByPriority } from '../src/auction/priority.ts';
import { quoteAmount, quoteUnitsOf } from '../src/auction/quote.ts';
import {
  AUCTION_SHORTLIST_MAX,
  type AuctionInput,
  type AuctionOrder,
  type AuctionResult,
  type CandidatePrice,
  type DecidedBy,
  type Fill,
  type SkipReason,
} from '../src/auction/types.ts';
import { bigintOfUnits, SAFE_UNITS, sideUnitsOf } from '../src/auction/units.ts';
import { fingerprint } from '../src/state/market-columns.ts';

type Skip = { readonly ref: number; readonly reason: SkipReason };

/**
 * A result with its fills spelled out as objects: the batch keeps them in columns (fill-columns.ts),
 * whose private fields `deepStrictEqual` would not compare, so every result here is compared plain.
 */
type PlainResult = Omit<AuctionResult, 'fills'> & { readonly fills: readonly Fill[] };

function plainResult(result: AuctionResult): PlainResult {
  return { ...result, fills: result.fills.toArray() };
}

const clearBatch = (...args: Parameters<typeof auction.clearBatch>) =>
  plainResult(auction.clearBatch(...args));
const clearSortedBatch = (...args: Parameters<typeof auction.clearSortedBatch>) =>
  plainResult(auction.clearSortedBatch(...args));
const clearGatheredBatch = (...args: Parameters<typeof auction.clearGatheredBatch>) =>
  plainResult(auction.clearGatheredBatch(...args));

// ---------------------------------------------------------------------------------------------
// Reference model: brute force over candidates, filters and sums instead of prefix sums, sorts by
// key tuples, and a nested allocation loop over plain arrays. Slow and obviously right.
// ---------------------------------------------------------------------------------------------

function sum(values: readonly bigint[]): bigint {
  return values.reduce((total, value) => total + value, 0n);
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

/** Orders tuples of bigints lexicographically. */
function compareTuples(a: readonly bigint[], b: readonly bigint[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0n;
    const y = b[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function byKey<T>(key: (item: T) => bigint[]): (a: T, b: T) => number {
  return (a, b) => compareTuples(key(a), key(b));
}

/**
 * The batch, with the work limits of limits.ts written plainly: fok rounds repeat while a fok order
 * comes out short, at most `fillOrKillRoundsMax` times; after that every fok order left is killed
 * and one last round runs without them. The budget of pairs passed over is shared by all rounds.
 */
function referenceClear(input: AuctionInput, limits: AuctionLimits = AUCTION_LIMITS): PlainResult {
  if (input.oraclePrice === null) {
    return {
      clearingPrice: null,
      noClearReason: 'no_oracle',
      candidatesConsidered: 0,
      candidatesOutOfBand: 0,
      shortlist: [],
      decidedBy: null,
      fills: [],
      skipped: [],
    };
  }
  let orders = [...input.orders];
  const killed: Skip[] = [];
  const budget = { passesLeft: limits.allocationPassesMax };
  const kill = (short: AuctionOrder[]) => {
    const ordered = [...short].sort(byKey((order) => [order.sequence]));
    for (const order of ordered) killed.push({ ref: order.ref, reason: 'fill_or_kill' });
    orders = orders.filter((order) => !short.includes(order));
  };
  for (let rounds = 0; rounds < limits.fillOrKillRoundsMax; rounds += 1) {
    const round = referenceRound(orders, input, input.oraclePrice, budget);
    if (round.clearingPrice === null) return { ...round, skipped: killed };
    const filled = (order: AuctionOrder) =>
      sum(round.fills.filter((f) => f.bidRef === order.ref || f.askRef === order.ref).map((f) => f.quantity));
    const short = orders.filter((order) => order.fillOrKill && filled(order) < order.remaining);
    if (short.length === 0) return { ...round, skipped: [...killed, ...round.skipped] };
    kill(short);
  }
  kill(orders.filter((order) => order.fillOrKill));
  const last = referenceRound(orders, input, input.oraclePrice, budget);
  return { ...last, skipped: [...killed, ...last.skipped] };
}

function referenceRound(
  orders: AuctionOrder[],
  input: AuctionInput,
  oracle: bigint,
  budget: { passesLeft: number },
): PlainResult {
  const bids = orders.filter((order) => order.side === 'bid');
  const asks = orders.filter((order) => order.side === 'ask');
  const prices = [...new Set(orders.map((order) => order.priceLimit))].filter((price) => price !== 0n);
  const inBand = prices.filter((price) => price >= input.bandLow && price <= input.bandHigh);
  const candidates: CandidatePrice[] = inBand.map((price) => {
    const demand = sum(bids.filter((bid) => bid.priceLimit >= price).map((bid) => bid.remaining));
    const supply = sum(
      asks.filter((ask) => ask.priceLimit === 0n || ask.priceLimit <= price).map((ask) => ask.remaining),
    );
    const executable = demand < supply ? demand : supply;
    return {
      price,
      demand,
      supply,
      executable,
      surplus: abs(demand - supply),
      oracleDistance: abs(price - oracle),
    };
  });
  const rankKey = (c: CandidatePrice) => [-c.executable, c.surplus, c.oracleDistance, c.price];
  const ranked = candidates.sort(byKey(rankKey));
  const base = {
    candidatesConsidered: prices.length,
    candidatesOutOfBand: prices.length - inBand.length,
    shortlist: ranked.slice(0, AUCTION_SHORTLIST_MAX),
    fills: [],
    skipped: [],
  };
  const winner = ranked[0];
  if (winner === undefined) {
    return { ...base, clearingPrice: null, noClearReason: 'no_candidate_in_band', decidedBy: null };
  }
  if (winner.executable === 0n)
    return { ...base, clearingPrice: null, noClearReason: 'no_volume', decidedBy: null };
  const runnerUp = ranked[1];
  let decidedBy: DecidedBy = 'only_candidate';
  if (runnerUp !== undefined) {
    const names: DecidedBy[] = ['volume', 'surplus', 'oracle_distance', 'lower_price'];
    const w = rankKey(winner);
    const r = rankKey(runnerUp);
    decidedBy = names[[0, 1, 2, 3].find((i) => w[i] !== r[i]) ?? 3] ?? 'lower_price';
  }
  const { fills, skipped } = referenceAllocate(bids, asks, winner, input.priceScale, budget);
  return { ...base, clearingPrice: winner.price, noClearReason: null, decidedBy, fills, skipped };
}

/**
 * The greedy walk. Each pair passed over spends one unit of the budget; once it is spent, a pair
 * passed over parks the order its own constraint blocked (the later one of a self-trade, the one
 * whose minimum was not met, the one whose whole size moves no quote): a parked ask is skipped and
 * a parked bid stops, for the rest of the round.
 */
function referenceAllocate(
  bids: AuctionOrder[],
  asks: AuctionOrder[],
  winner: CandidatePrice,
  priceScale: bigint,
  budget: { passesLeft: number },
): { fills: Fill[]; skipped: Skip[] } {
  const price = winner.price;
  const eligibleBids = bids
    .filter((bid) => bid.priceLimit >= price)
    .sort(byKey((bid) => [-bid.priceLimit, bid.arrivalSlot, bid.sequence]));
  const eligibleAsks = asks
    .filter((ask) => ask.priceLimit === 0n || ask.priceLimit <= price)
    .sort(byKey((ask) => [ask.priceLimit, ask.arrivalSlot, ask.sequence]));
  const left = new Map<number, bigint>([...bids, ...asks].map((order) => [order.ref, order.remaining]));
  const leftOf = (order: AuctionOrder) => left.get(order.ref) ?? 0n;
  const parked = new Set<AuctionOrder>();
  const fills: Fill[] = [];
  const skipped: Skip[] = [];
  const skip = (order: AuctionOrder, reason: SkipReason) => {
    if (!skipped.some((s) => s.ref === order.ref && s.reason === reason))
      skipped.push({ ref: order.ref, reason });
  };
  const movesNoQuote = (order: AuctionOrder) => (leftOf(order) * price) / priceScale === 0n;
  let allowed = winner.executable;
  for (const bid of eligibleBids) {
    for (const ask of eligibleAsks) {
      if (allowed === 0n || leftOf(bid) === 0n) break;
      if (leftOf(ask) === 0n || parked.has(ask)) continue;
      let q = leftOf(bid);
      if (leftOf(ask) < q) q = leftOf(ask);
      if (allowed < q) q = allowed;
      let blamed: AuctionOrder[];
      if (bid.tradingKey === ask.tradingKey || bid.owner === ask.owner) {
        const bidIsLater =
          compareTuples([bid.arrivalSlot, bid.sequence], [ask.arrivalSlot, ask.sequence]) > 0;
        skip(bidIsLater ? bid : ask, 'self_trade');
        blamed = [bidIsLater ? bid : ask];
      } else if (q < bid.minFill || q < ask.minFill) {
        if (q < bid.minFill) skip(bid, 'min_fill');
        if (q < ask.minFill) skip(ask, 'min_fill');
        blamed = [bid, ask].filter((order) => q < order.minFill);
      } else if ((q * price) / priceScale === 0n) {
        skip(bid, 'zero_quote');
        skip(ask, 'zero_quote');
        blamed = [bid, ask].filter(movesNoQuote);
        if (blamed.length === 0) blamed = [bid, ask];
      } else {
        fills.push({ bidRef: bid.ref, askRef: ask.ref, quantity: q, quoteAmount: (q * price) / priceScale });
        left.set(bid.ref, leftOf(bid) - q);
        left.set(ask.ref, leftOf(ask) - q);
        allowed -= q;
        continue;
      }
      if (budget.passesLeft > 0) {
        budget.passesLeft -= 1;
        continue;
      }
      for (const order of blamed) parked.add(order);
      if (parked.has(bid)) break;
    }
  }
  return { fills, skipped };
}

// ---------------------------------------------------------------------------------------------
// Invariants checked directly on any result.
// ---------------------------------------------------------------------------------------------

function checkInvariants(input: AuctionInput, result: PlainResult): void {
  const byRef = new Map(input.orders.map((order) => [order.ref, order]));
  const price = result.clearingPrice;
  assert.ok(result.shortlist.length <= AUCTION_SHORTLIST_MAX, 'shortlist is bounded');
  for (const c of result.shortlist)
    assert.ok(c.price >= input.bandLow && c.price <= input.bandHigh, 'in band');
  const filled = new Map<number, bigint>();
  let total = 0n;
  for (const fill of result.fills) {
    const bid = byRef.get(fill.bidRef);
    const ask = byRef.get(fill.askRef);
    assert.ok(price !== null && bid?.side === 'bid' && ask?.side === 'ask', 'a fill pairs a bid and an ask');
    assert.ok(fill.quantity > 0n, 'a fill moves base');
    assert.equal(
      fill.quoteAmount,
      (fill.quantity * price) / input.priceScale,
      'quote = floor(q x P / scale)',
    );
    assert.ok(fill.quoteAmount > 0n, 'a fill moves quote');
    assert.ok(bid.priceLimit >= price, 'the bid is eligible at P');
    assert.ok(ask.priceLimit === 0n || ask.priceLimit <= price, 'the ask is eligible at P');
    assert.ok(fill.quantity >= bid.minFill && fill.quantity >= ask.minFill, 'min fill binds both sides');
    assert.ok(bid.tradingKey !== ask.tradingKey && bid.owner !== ask.owner, 'no self-trade');
    filled.set(bid.ref, (filled.get(bid.ref) ?? 0n) + fill.quantity);
    filled.set(ask.ref, (filled.get(ask.ref) ?? 0n) + fill.quantity);
    total += fill.quantity;
  }
  for (const order of input.orders) {
    const got = filled.get(order.ref) ?? 0n;
    assert.ok(got <= order.remaining, `order ${order.ref} is not filled beyond its remaining`);
    if (order.fillOrKill)
      assert.ok(got === 0n || got === order.remaining, `fok ${order.ref} is all or nothing`);
  }
  if (price === null) {
    assert.equal(result.fills.length, 0);
    assert.equal(result.decidedBy, null);
    assert.notEqual(result.noClearReason, null);
  } else {
    const winner = result.shortlist[0];
    assert.ok(winner !== undefined && winner.price === price, 'the winner heads the shortlist');
    assert.ok(total <= winner.executable, 'total filled <= executable');
    assert.ok(price >= input.bandLow && price <= input.bandHigh, 'P is in band');
    assert.ok(
      input.orders.some((order) => order.priceLimit === price),
      'P is a limit of some order',
    );
    assert.ok(price > 0n, 'P is non-zero');
    assert.equal(result.noClearReason, null);
    assert.notEqual(result.decidedBy, null);
  }
  const seen = new Set(result.skipped.map((s) => `${s.ref}/${s.reason}`));
  assert.equal(seen.size, result.skipped.length, 'one skip entry per (ref, reason)');
  assert.ok(result.skipped.length <= 4 * input.orders.length, 'the skip log is bounded');
  for (const s of result.skipped) {
    assert.ok(byRef.has(s.ref), 'skips name orders of the batch');
    if (s.reason === 'fill_or_kill')
      assert.equal(filled.get(s.ref), undefined, 'a killed fok order never fills');
  }
}

// ---------------------------------------------------------------------------------------------
// Random books: small price grids so candidates tie often, a few keys and owners so self-trade
// happens, min fills from 1 to all-or-none, fok flags, zero-limit asks, and price scales and
// prices from tiny (zero quotes) to near 2^64.
// ---------------------------------------------------------------------------------------------

interface RawOrder {
  side: 'bid' | 'ask';
  level: number;
  zeroLimit: boolean;
  remaining: bigint;
  minFillKind: 'one' | 'all' | 'some';
  minFillDraw: bigint;
  arrivalSlot: bigint;
  tie: number;
  key: number;
  owner: number;
  fillOrKill: boolean;
}

const rawOrder = (amountMax: bigint): fc.Arbitrary<RawOrder> =>
  fc.record({
    side: fc.constantFrom('bid', 'ask' as const),
    level: fc.nat(63),
    zeroLimit: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    remaining: fc.oneof(fc.bigInt({ min: 1n, max: 20n }), fc.bigInt({ min: 1n, max: amountMax })),
    minFillKind: fc.constantFrom('one', 'one', 'all', 'some' as const),
    minFillDraw: fc.bigInt({ min: 0n, max: U64_MAX }),
    arrivalSlot: fc.bigInt({ min: 0n, max: 3n }),
    tie: fc.nat(),
    key: fc.nat(7),
    owner: fc.nat(7),
    fillOrKill: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  });

const market = fc.record({
  priceScale: fc.constantFrom(1n, 10n, 1000n, 10n ** 9n, 2n ** 32n),
  priceBase: fc.constantFrom(1n, 5n, 100n, 10n ** 9n, 2n ** 32n, 2n ** 63n, U64_MAX - 200n),
  priceStep: fc.constantFrom(1n, 2n, 2n, 3n, 2n ** 16n, 2n ** 24n + 1n, 2n ** 40n, 2n ** 45n + 3n),
  /** Wide strides make every byte of the time keys vary, for the radix sort. */
  sequenceStride: fc.constantFrom(1n, 1n, 2n ** 16n, 2n ** 20n + 1n, 2n ** 50n + 5n),
  slotStride: fc.constantFrom(1n, 1n, 2n ** 33n + 1n, 2n ** 60n),
  levels: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 })),
  amountMax: fc.constantFrom(100n, 10n ** 6n, 2n ** 40n, U64_MAX),
  bandFrom: fc.integer({ min: -2, max: 42 }),
  bandTo: fc.integer({ min: -2, max: 42 }),
  bandWide: fc.boolean(),
  oracleLevel: fc.option(fc.oneof(fc.integer({ min: -1, max: 4 }), fc.integer({ min: -3, max: 43 })), {
    freq: 15,
  }),
  /** With priceStep 2, an odd offset puts the oracle halfway between two levels: distance ties. */
  oracleOffset: fc.constantFrom(0n, 1n),
  refsFromZero: fc.boolean(),
  /** The core normally hands orders over in time order; the auction takes a shortcut then. */
  inTimeOrder: fc.boolean(),
});

type Market = typeof market extends fc.Arbitrary<infer T> ? T : never;

/**
 * A market where every rank criterion ties often: two or three price levels two ticks apart, an
 * oracle halfway between two of them, and small amounts.
 */
const tieMarket = market.map(
  (m): Market => ({
    ...m,
    priceStep: 2n,
    levels: 2 + (m.levels % 2),
    amountMax: 6n,
    bandWide: true,
    oracleLevel: m.oracleLevel === null ? null : Math.abs(m.oracleLevel) % 2,
    oracleOffset: 1n,
  }),
);

function buildInput(m: Market, raws: RawOrder[]): AuctionInput {
  const priceAt = (level: number) => {
    const price = m.priceBase + BigInt(level) * m.priceStep;
    if (price < 1n) return 1n;
    return price > U64_MAX ? U64_MAX : price;
  };
  // Unique sequences and refs, in an order unrelated to the array order.
  const byTie = raws
    .map((raw, index) => ({ raw, index }))
    .sort((a, b) => a.raw.tie - b.raw.tie || a.index - b.index);
  const sequenceOf = new Map(byTie.map((entry, rank) => [entry.index, BigInt(rank) * m.sequenceStride]));
  const orders = raws.map((raw, index): AuctionOrder => {
    const priceLimit = raw.side === 'ask' && raw.zeroLimit ? 0n : priceAt(raw.level % m.levels);
    let remaining = raw.remaining;
    if (raw.side === 'bid') {
      // Intake only accepts a bid whose nominal cost fits in u64.
      const most = ((U64_MAX + 1n) * m.priceScale - 1n) / priceLimit;
      if (remaining > most) remaining = most;
    }
    const minFill =
      raw.minFillKind === 'one'
        ? 1n
        : raw.minFillKind === 'all'
          ? remaining
          : 1n + (raw.minFillDraw % remaining);
    return {
      ref: m.refsFromZero ? index : (index * 7919) % 100_003,
      side: raw.side,
      priceLimit,
      remaining,
      minFill,
      arrivalSlot: raw.arrivalSlot * m.slotStride,
      sequence: sequenceOf.get(index) ?? 0n,
      tradingKey: `key-${raw.key}`,
      owner: `owner-${raw.owner}`,
      fillOrKill: raw.fillOrKill,
    };
  });
  const [low, high] = [priceAt(m.bandFrom), priceAt(m.bandTo)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const oraclePrice = m.oracleLevel === null ? null : priceAt(m.oracleLevel) + m.oracleOffset;
  if (m.inTimeOrder) orders.sort(byKey((order) => [order.arrivalSlot, order.sequence]));
  return {
    orders,
    oraclePrice: oraclePrice !== null && oraclePrice > U64_MAX ? U64_MAX : oraclePrice,
    bandLow: m.bandWide ? 1n : (low ?? 1n),
    bandHigh: m.bandWide ? U64_MAX : (high ?? U64_MAX),
    priceScale: m.priceScale,
  };
}

const auctionInput = (ordersMax: number, markets: fc.Arbitrary<Market> = market) =>
  markets.chain((m) =>
    fc.array(rawOrder(m.amountMax), { maxLength: ordersMax, size: 'max' }).map((raws) => buildInput(m, raws)),
  );

const PROPERTY_RUNS = Number(process.env['AUCTION_PROPERTY_RUNS'] ?? 200);

describe('clearBatch against the reference model', () => {
  test('random books of up to 300 orders clear exactly as the reference model clears them', () => {
    fc.assert(
      fc.property(auctionInput(300), (input) => {
        const result = clearBatch(input);
        assert.deepStrictEqual(result, referenceClear(input));
        checkInvariants(input, result);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  test('small books (many edge cases per second) clear exactly as the reference model clears them', () => {
    fc.assert(
      fc.property(auctionInput(12), (input) => {
        const result = clearBatch(input);
        assert.deepStrictEqual(result, referenceClear(input));
        checkInvariants(input, result);
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  test('books where every tie-break is exercised clear exactly as the reference model clears them', () => {
    fc.assert(
      fc.property(auctionInput(10, tieMarket), (input) => {
        const result = clearBatch(input);
        assert.deepStrictEqual(result, referenceClear(input));
        checkInvariants(input, result);
      }),
      { numRuns: PROPERTY_RUNS * 10 },
    );
  });

  test('the result does not depend on the order of the input, and the input is not mutated', () => {
    fc.assert(
      fc.property(auctionInput(120), fc.nat(), (input, seed) => {
        const snapshot = structuredClone(input);
        const result = clearBatch(input);
        assert.deepStrictEqual(input, snapshot);
        const shuffled = [...input.orders]
          .map((order, i) => ({ order, key: ((i + 1) * (seed + 7)) % 1009 }))
          .sort((a, b) => a.key - b.key)
          .map((entry) => entry.order);
        assert.deepStrictEqual(clearBatch({ ...input, orders: shuffled }), result);
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Named examples. Prices are small integers with priceScale 1 unless the example is about scale.
// ---------------------------------------------------------------------------------------------

interface OrderSpec {
  ref: number;
  side: 'bid' | 'ask';
  limit: bigint;
  remaining: bigint;
  minFill?: bigint;
  slot?: bigint;
  key?: string;
  owner?: string;
  fok?: boolean;
}

function order(spec: OrderSpec): AuctionOrder {
  return {
    ref: spec.ref,
    side: spec.side,
    priceLimit: spec.limit,
    remaining: spec.remaining,
    minFill: spec.minFill ?? 1n,
    arrivalSlot: spec.slot ?? 0n,
    sequence: BigInt(spec.ref),
    tradingKey: spec.key ?? `key-${spec.ref}`,
    owner: spec.owner ?? `owner-${spec.ref}`,
    fillOrKill: spec.fok ?? false,
  };
}

const bid = (ref: number, limit: bigint, remaining: bigint, extra: Partial<OrderSpec> = {}) =>
  order({ ref, side: 'bid', limit, remaining, ...extra });
const ask = (ref: number, limit: bigint, remaining: bigint, extra: Partial<OrderSpec> = {}) =>
  order({ ref, side: 'ask', limit, remaining, ...extra });

function clear(orders: AuctionOrder[], oraclePrice: bigint | null, extra: Partial<AuctionInput> = {}) {
  const input: AuctionInput = { orders, oraclePrice, bandLow: 1n, bandHigh: 1000n, priceScale: 1n, ...extra };
  const result = clearBatch(input);
  assert.deepStrictEqual(result, referenceClear(input), 'the example agrees with the reference model');
  checkInvariants(input, result);
  return result;
}

const fill = (bidRef: number, askRef: number, quantity: bigint, quoteAmount: bigint): Fill => ({
  bidRef,
  askRef,
  quantity,
  quoteAmount,
});

describe('price selection', () => {
  test('volume decides first: the price that executes more wins even far from the oracle', () => {
    // At 8: demand 10 (both bids), supply 10. At 10: demand 5, supply 10.
    const result = clear([bid(1, 10n, 5n), bid(2, 8n, 5n), ask(3, 8n, 10n)], 10n);
    assert.equal(result.clearingPrice, 8n);
    assert.equal(result.decidedBy, 'volume');
    assert.deepStrictEqual(
      result.shortlist.map((c) => [c.price, c.executable]),
      [
        [8n, 10n],
        [10n, 5n],
      ],
    );
    assert.deepStrictEqual(result.fills, [fill(1, 3, 5n, 40n), fill(2, 3, 5n, 40n)]);
  });

  test('surplus decides when volume ties: less left unmatched wins even far from the oracle', () => {
    // At 8: demand 5, supply 5, surplus 0. At 10: demand 5, supply 8, surplus 3.
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n), ask(3, 10n, 3n)], 10n);
    assert.equal(result.clearingPrice, 8n);
    assert.equal(result.decidedBy, 'surplus');
  });

  test('oracle distance decides when volume and surplus tie', () => {
    // At 8 and at 10: demand 5, supply 5. The oracle is at 10.
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n)], 10n);
    assert.equal(result.clearingPrice, 10n);
    assert.equal(result.decidedBy, 'oracle_distance');
    assert.deepStrictEqual(result.fills, [fill(1, 2, 5n, 50n)]);
  });

  test('the lower price decides when the oracle lies exactly between the two best', () => {
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n)], 9n);
    assert.equal(result.clearingPrice, 8n);
    assert.equal(result.decidedBy, 'lower_price');
  });

  test('one candidate in band is decided by being the only one', () => {
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n)], 9n, { bandLow: 9n, bandHigh: 12n });
    assert.equal(result.clearingPrice, 10n);
    assert.equal(result.decidedBy, 'only_candidate');
    assert.equal(result.candidatesConsidered, 2);
    assert.equal(result.candidatesOutOfBand, 1);
  });

  test('without an oracle price the market does not clear', () => {
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n)], null);
    assert.equal(result.clearingPrice, null);
    assert.equal(result.noClearReason, 'no_oracle');
    assert.deepStrictEqual(result.fills, []);
  });

  test('when every candidate lies outside the band the market does not clear', () => {
    const result = clear([bid(1, 10n, 5n), ask(2, 8n, 5n)], 25n, { bandLow: 20n, bandHigh: 30n });
    assert.equal(result.noClearReason, 'no_candidate_in_band');
    assert.equal(result.candidatesConsidered, 2);
    assert.equal(result.candidatesOutOfBand, 2);
    assert.deepStrictEqual(result.shortlist, []);
  });

  test('a book that does not cross has no volume and does not clear', () => {
    const result = clear([bid(1, 8n, 5n), ask(2, 10n, 5n)], 9n);
    assert.equal(result.noClearReason, 'no_volume');
    assert.equal(result.clearingPrice, null);
    assert.equal(result.decidedBy, null);
  });

  test('a zero-limit ask takes whatever price the bids set, and never proposes one itself', () => {
    const result = clear([ask(1, 0n, 5n), bid(2, 7n, 5n)], 3n);
    assert.equal(result.clearingPrice, 7n);
    assert.equal(result.candidatesConsidered, 1);
    assert.deepStrictEqual(result.fills, [fill(2, 1, 5n, 35n)]);
    const alone = clear([ask(1, 0n, 5n)], 3n);
    assert.equal(alone.noClearReason, 'no_candidate_in_band');
    assert.equal(alone.candidatesConsidered, 0);
  });

  test('the shortlist keeps the best AUCTION_SHORTLIST_MAX candidates in rank order', () => {
    // Supply at p <= 20 is 10p against a demand of 1000; at 50 it is 200, as at 20 but farther.
    const orders = [bid(100, 50n, 1000n)];
    for (let i = 1; i <= 20; i += 1) orders.push(ask(i, BigInt(i), 10n));
    const result = clear(orders, 20n);
    assert.equal(result.shortlist.length, AUCTION_SHORTLIST_MAX);
    assert.deepStrictEqual(
      result.shortlist.map((c) => c.price),
      [20n, 50n, 19n, 18n, 17n, 16n, 15n, 14n],
    );
  });
});

describe('allocation', () => {
  test('an all-or-none bid passes over asks too small for it and fills against one large enough', () => {
    const result = clear(
      [bid(1, 10n, 10n, { minFill: 10n }), ask(2, 9n, 4n), ask(3, 9n, 4n), ask(4, 10n, 10n)],
      10n,
    );
    assert.equal(result.clearingPrice, 10n);
    assert.deepStrictEqual(result.fills, [fill(1, 4, 10n, 100n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 1, reason: 'min_fill' }]);
  });

  test('a min fill on the ask side skips a bid too small for it, then fills the next one', () => {
    const result = clear([bid(1, 10n, 2n), bid(2, 10n, 6n), ask(3, 10n, 6n, { minFill: 5n })], 10n);
    assert.deepStrictEqual(result.fills, [fill(2, 3, 6n, 60n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 3, reason: 'min_fill' }]);
  });

  test('self-trade: orders of one owner never meet; the later of the two is the one that waits', () => {
    // Bid 1 arrived before ask 2 (same owner): ask 2 waits and later fills against bid 4.
    const result = clear(
      [
        bid(1, 10n, 5n, { owner: 'alice' }),
        ask(2, 10n, 5n, { owner: 'alice', slot: 1n }),
        ask(3, 10n, 5n, { owner: 'bob', slot: 1n }),
        bid(4, 10n, 5n, { owner: 'carol', slot: 2n }),
      ],
      10n,
    );
    assert.deepStrictEqual(result.fills, [fill(1, 3, 5n, 50n), fill(4, 2, 5n, 50n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 2, reason: 'self_trade' }]);
  });

  test('self-trade by trading key: when the bid is the later order, the bid is the one recorded', () => {
    const result = clear(
      [ask(1, 10n, 5n, { key: 'k' }), bid(2, 10n, 5n, { key: 'k', slot: 1n }), ask(3, 10n, 5n)],
      10n,
    );
    assert.deepStrictEqual(result.fills, [fill(2, 3, 5n, 50n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 2, reason: 'self_trade' }]);
  });

  test('price priority then time: the more aggressive limit fills first, then the earlier arrival', () => {
    const result = clear(
      [
        ask(1, 5n, 4n, { slot: 1n }),
        ask(2, 0n, 4n, { slot: 2n }),
        ask(3, 5n, 4n, { slot: 0n }),
        bid(4, 6n, 10n),
      ],
      6n,
    );
    // Zero limit first, then the two asks at 5 in arrival order (3 before 1); volume stops at 10.
    assert.deepStrictEqual(result.fills, [fill(4, 2, 4n, 24n), fill(4, 3, 4n, 24n), fill(4, 1, 2n, 12n)]);
  });

  test('a fill whose quote rounds down to zero is passed over; a bigger one pays the floor', () => {
    // 50 x 10 / 1000 = 0.5 -> 0: passed over. 150 x 10 / 1000 = 1.5 -> 1: fills, the bid keeps the half.
    const result = clear([bid(1, 10n, 50n), ask(2, 10n, 200n), bid(3, 10n, 150n, { slot: 1n })], 10n, {
      priceScale: 1000n,
    });
    assert.deepStrictEqual(result.fills, [fill(3, 2, 150n, 1n)]);
    assert.deepStrictEqual(result.skipped, [
      { ref: 1, reason: 'zero_quote' },
      { ref: 2, reason: 'zero_quote' },
    ]);
  });

  test('quotes near 2^64 are exact: the product exceeds u64, the floor does not', () => {
    const price = 2n ** 63n + 12_345n;
    const scale = 10n ** 9n;
    const result = clear([bid(1, price, 10n ** 9n + 7n), ask(2, price, 10n ** 9n + 7n)], price, {
      bandLow: 1n,
      bandHigh: U64_MAX,
      priceScale: scale,
    });
    assert.deepStrictEqual(result.fills, [fill(1, 2, 10n ** 9n + 7n, ((10n ** 9n + 7n) * price) / scale)]);
    assert.ok((result.fills[0]?.quoteAmount ?? 0n) <= U64_MAX);
  });
});

describe('fill-or-kill', () => {
  test('a fok bid that would be filled only in part is removed and the batch is priced again without it', () => {
    // With fok bid 1: at 12 demand 10, supply 6 (surplus 4) beats 8 (demand 16, surplus 10); bid 1
    // would get 6 of 10. Without it only 8 is left and bid 2 fills there.
    const result = clear([bid(1, 12n, 10n, { fok: true }), ask(3, 8n, 6n), bid(2, 8n, 6n)], 10n);
    assert.equal(result.clearingPrice, 8n);
    assert.equal(result.decidedBy, 'only_candidate');
    assert.deepStrictEqual(result.fills, [fill(2, 3, 6n, 48n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 1, reason: 'fill_or_kill' }]);
  });

  test('a fok order filled completely stays, and one left out entirely is killed too', () => {
    const result = clear(
      [bid(1, 10n, 5n, { fok: true }), ask(2, 10n, 5n), bid(3, 4n, 5n, { fok: true })],
      10n,
    );
    assert.equal(result.clearingPrice, 10n);
    assert.deepStrictEqual(result.fills, [fill(1, 2, 5n, 50n)]);
    assert.deepStrictEqual(result.skipped, [{ ref: 3, reason: 'fill_or_kill' }]);
  });

  test('when removing fok orders empties the book, the batch does not clear but the kills are recorded', () => {
    const result = clear([bid(1, 10n, 9n, { fok: true }), ask(2, 10n, 5n)], 10n);
    assert.equal(result.noClearReason, 'no_volume');
    assert.deepStrictEqual(result.skipped, [{ ref: 1, reason: 'fill_or_kill' }]);
  });
});

describe('input checks', () => {
  const good = (): AuctionInput => ({
    orders: [bid(1, 10n, 5n), ask(2, 8n, 5n)],
    oraclePrice: 9n,
    bandLow: 1n,
    bandHigh: 100n,
    priceScale: 1n,
  });

  test('a programmer error in the input is an assertion, not a quiet result', () => {
    const bad: AuctionInput[] = [
      { ...good(), priceScale: 0n },
      { ...good(), bandLow: 10n, bandHigh: 9n },
      { ...good(), orders: [bid(1, 10n, 5n, { minFill: 6n })] },
      { ...good(), orders: [bid(1, 0n, 5n)] },
      { ...good(), orders: [bid(1, 10n, 5n), ask(1, 8n, 5n)] },
      { ...good(), orders: [bid(1, 10n, 5n), { ...ask(2, 8n, 5n), sequence: 1n }] },
      { ...good(), orders: [bid(1, U64_MAX, 2n)] },
      { ...good(), orders: [ask(1, U64_MAX + 1n, 2n)] },
    ];
    for (const input of bad) assert.throws(() => clearBatch(input), AssertionError);
  });
});

const smallLimits: fc.Arbitrary<AuctionLimits> = fc.record({
  allocationPassesMax: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })),
  fillOrKillRoundsMax: fc.integer({ min: 1, max: 4 }),
});

describe('numbers and bigints', () => {
  test('the price sweep and the walk give the same result counting in numbers as in bigints', () => {
    // Both are also compared with the reference model above: small books are counted in numbers,
    // books with quantities beyond 2^53 in bigints.
    fc.assert(
      fc.property(auctionInput(150), fc.option(smallLimits, { nil: undefined }), (input, limits) => {
        const all = limits ?? AUCTION_LIMITS;
        assert.deepStrictEqual(clearBatch(input, all, 'fastest'), clearBatch(input, all, 'bigint'));
      }),
      { numRuns: PROPERTY_RUNS * 2 },
    );
  });

  test('a fill converts its quantity and quote to the same bigints either way, around 2^30 too', () => {
    // The number walk converts small values through a small integer (units.ts bigintOfUnits).
    const units = fc.oneof(
      fc.integer({ min: 0, max: 2 ** 12 }),
      fc.integer({ min: 2 ** 30 - 4, max: 2 ** 31 + 4 }),
      fc.integer({ min: 0, max: SAFE_UNITS }),
    );
    fc.assert(
      fc.property(units, units, fc.integer({ min: 1, max: 2 ** 40 }), (quantity, price, scale) => {
        assert.equal(bigintOfUnits(quantity), BigInt(quantity));
        if (price === 0) return;
        // The walk's quantities and prices are doubles that hold integers (typed arrays, Math.min).
        const quote = quoteUnitsOf(quantity * 1.0, price * 1.0, scale * 1.0);
        const exact = quoteAmount(BigInt(quantity), BigInt(price), BigInt(scale));
        // NaN only where the product leaves the exact integers: the walk then takes the bigints.
        if (Number.isNaN(quote)) assert.ok(BigInt(quantity) * BigInt(price) > BigInt(SAFE_UNITS));
        else assert.equal(bigintOfUnits(quote), exact);
      }),
      { numRuns: PROPERTY_RUNS * 5 },
    );
  });
});

describe('walks that pass over many pairs', () => {
  /** Few keys and owners and mostly all-or-none sizes: most pairs are passed over. */
  const crowded = (m: Market) =>
    fc
      .array(
        rawOrder(40n).map((raw) => ({
          ...raw,
          key: raw.key % 3,
          owner: raw.owner % 3,
          minFillKind: 'all' as const,
        })),
        { minLength: 150, maxLength: 240 },
      )
      .map((raws) => buildInput({ ...m, levels: 4, bandWide: true, oracleLevel: 1 }, raws));

  test('past IDENTITIES_AFTER_PASSES, naming keys and owners changes no result', () => {
    // These books pass over thousands of pairs, so the number walk switches to named identities.
    fc.assert(
      fc.property(market.chain(crowded), (input) => {
        const result = clearBatch(input);
        assert.deepStrictEqual(result, referenceClear(input));
        assert.deepStrictEqual(result, clearBatch(input, AUCTION_LIMITS, 'bigint'));
        checkInvariants(input, result);
      }),
      { numRuns: Math.max(20, PROPERTY_RUNS / 5) },
    );
  });

  test('past IDENTITIES_AFTER_PASSES, naming by prints changes no result, whether prints collide or not', () => {
    // The gathered entry names identities by their prints; strings whose prints collide are told
    // apart by comparing them (identities.ts). Three keys and three owners: all prints equal, some
    // equal, or none.
    const prints = [fingerprint, () => 7, (text: string) => fingerprint(text) & 1];
    // Mostly one owner (or mostly one key) and all-or-none sizes: most pairs are self-trades or too
    // small, so walks name identities; the other identity takes three values.
    const selfCrowded = (m: Market) =>
      fc.boolean().chain((byOwner) =>
        fc
          .array(
            rawOrder(40n).map((raw) => ({
              ...raw,
              key: byOwner ? raw.key % 3 : raw.key === 7 ? 1 : 0,
              owner: byOwner ? (raw.owner === 7 ? 1 : 0) : raw.owner % 3,
              minFillKind: 'all' as const,
            })),
            { minLength: 200, maxLength: 260 },
          )
          .map((raws) =>
            buildInput({ ...m, priceScale: 1n, levels: 4, bandWide: true, oracleLevel: 1 }, raws),
          ),
      );
    fc.assert(
      fc.property(market.chain(selfCrowded), fc.constantFrom(...prints), (input, print) => {
        const orders = input.orders.map((order, index) => ({ ...order, ref: index }));
        const { bids, asks } = sortByPriority(orders);
        const bidSide = gatheredSide(bids, print);
        const askSide = gatheredSide(asks, print);
        if (bidSide === null || askSide === null) throw new Error('crowded books are exact in numbers');
        assert.deepStrictEqual(
          clearGatheredBatch({ ...input, bids: bidSide, asks: askSide }),
          clearSortedBatch({ ...input, bids, asks }),
        );
      }),
      { numRuns: Math.max(30, PROPERTY_RUNS / 4) },
    );
  });
});

describe('the sorted entry the core uses', () => {
  test('sides handed over in priority clear exactly as the same orders in any order', () => {
    fc.assert(
      fc.property(auctionInput(200), (input) => {
        const { bids, asks } = sortByPriority(input.orders);
        assert.deepStrictEqual(clearSortedBatch({ ...input, bids, asks }), clearBatch(input));
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  test('a side out of price priority, an order on the wrong side or a repeated ref is an assertion', () => {
    // Time order within a limit is the core's by construction and checked by validateInternalState.
    const market = { oraclePrice: 10n, bandLow: 1n, bandHigh: 100n, priceScale: 1n };
    const bad = [
      { bids: [bid(1, 9n, 5n), bid(2, 10n, 5n)], asks: [] },
      { bids: [], asks: [ask(1, 10n, 5n), ask(2, 9n, 5n)] },
      { bids: [ask(1, 10n, 5n)], asks: [] },
      { bids: [bid(1, 10n, 5n)], asks: [ask(1, 10n, 5n)] },
      { bids: [bid(1, 10n, 5n, { minFill: 6n })], asks: [] },
    ];
    for (const sides of bad) assert.throws(() => clearSortedBatch({ ...market, ...sides }), AssertionError);
  });
});

/**
 * What the core's gathering pass (batch/gather.ts) hands over, built plainly from a side in
 * priority; null when a quantity or the total is beyond 2^53 (the core then uses the sorted entry).
 * `print` lets a test make every print collide, which must only cost string comparisons.
 */
function gatheredSide(orders: readonly AuctionOrder[], print: (text: string) => number): GatheredSide | null {
  const remaining = orders.map((order) => Number(order.remaining));
  const total = remaining.reduce((a, b) => a + b, 0);
  if (orders.some((order) => order.remaining > BigInt(SAFE_UNITS)) || total > SAFE_UNITS) return null;
  const prices: bigint[] = [];
  const units: number[] = [];
  const ends: number[] = [];
  orders.forEach((order, index) => {
    if (prices.at(-1) !== order.priceLimit) {
      prices.push(order.priceLimit);
      units.push(0);
      ends.push(0);
    }
    units[units.length - 1] = (units.at(-1) ?? 0) + (remaining[index] ?? 0);
    ends[ends.length - 1] = index + 1;
  });
  return {
    orders,
    refs: Int32Array.from(orders, (order) => order.ref),
    units: sideUnitsOf(
      Float64Array.from(remaining),
      Float64Array.from(orders, (order) => Number(order.minFill)),
      total,
      null,
      null,
    ),
    prints: {
      key: Int32Array.from(orders, (order) => print(order.tradingKey)),
      owner: Int32Array.from(orders, (order) => print(order.owner)),
    },
    levels: { prices, units: Float64Array.from(units), ends: Int32Array.from(ends), count: prices.length },
    fillOrKillCount: orders.filter((order) => order.fillOrKill).length,
  };
}

describe('the gathered entry the core uses for books counted in numbers', () => {
  test('gathered columns clear exactly as the same sides handed over sorted', () => {
    let gathered = 0;
    fc.assert(
      fc.property(
        auctionInput(200),
        fc.option(smallLimits, { nil: undefined }),
        fc.boolean(),
        (input, limits, collide) => {
          // The core numbers participants 0..n-1; the gathered refs check relies on it.
          const orders = input.orders.map((order, index) => ({ ...order, ref: index }));
          const { bids, asks } = sortByPriority(orders);
          const print = collide ? () => 7 : fingerprint;
          const bidSide = gatheredSide(bids, print);
          const askSide = gatheredSide(asks, print);
          if (bidSide === null || askSide === null) return;
          gathered += 1;
          const all = limits ?? AUCTION_LIMITS;
          assert.deepStrictEqual(
            clearGatheredBatch({ ...input, bids: bidSide, asks: askSide }, all),
            clearSortedBatch({ ...input, bids, asks }, all),
          );
        },
      ),
      { numRuns: PROPERTY_RUNS },
    );
    assert.ok(gathered > PROPERTY_RUNS / 4, `only ${gathered} books were exact in numbers`);
  });

  test('columns that disagree with each other are an assertion', () => {
    const market = { oraclePrice: 10n, bandLow: 1n, bandHigh: 100n, priceScale: 1n };
    const bids = [bid(0, 10n, 5n), bid(1, 9n, 3n)];
    const asks = [ask(2, 9n, 4n)];
    const goodBids = gatheredSide(bids, fingerprint);
    const goodAsks = gatheredSide(asks, fingerprint);
    if (goodBids === null || goodAsks === null) throw new Error('a small book is exact in numbers');
    assert.doesNotThrow(() => clearGatheredBatch({ ...market, bids: goodBids, asks: goodAsks }));
    const breakings: ((side: GatheredSide) => GatheredSide)[] = [
      (side) => ({ ...side, units: { ...side.units, total: side.units.total + 1 } }),
      (side) => ({ ...side, refs: Int32Array.from([0, 0]) }),
      (side) => ({ ...side, levels: { ...side.levels, prices: [...side.levels.prices].reverse() } }),
      (side) => ({ ...side, levels: { ...side.levels, units: Float64Array.from([5, 4]) } }),
      (side) => ({ ...side, units: { ...side.units, minFill: Float64Array.from([6, 1]) } }),
      (side) => ({ ...side, prints: { ...side.prints, key: new Int32Array(1) } }),
    ];
    for (const breaking of breakings) {
      assert.throws(
        () => clearGatheredBatch({ ...market, bids: breaking(goodBids), asks: goodAsks }),
        AssertionError,
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Work limits (limits.ts). Small limits make the strict walk and the fok round cap happen on small
// books; the reference model implements both, written plainly.
// ---------------------------------------------------------------------------------------------

function clearWith(orders: AuctionOrder[], oraclePrice: bigint, limits: Partial<AuctionLimits>) {
  const input: AuctionInput = { orders, oraclePrice, bandLow: 1n, bandHigh: 1000n, priceScale: 1n };
  const all = { ...AUCTION_LIMITS, ...limits };
  const result = clearBatch(input, all);
  assert.deepStrictEqual(result, referenceClear(input, all), 'the example agrees with the reference model');
  checkInvariants(input, result);
  return result;
}

describe('work limits', () => {
  test('random books clear as the reference model clears them, under any budget and round cap', () => {
    fc.assert(
      fc.property(auctionInput(120), smallLimits, (input, limits) => {
        const result = clearBatch(input, limits);
        assert.deepStrictEqual(result, referenceClear(input, limits));
        checkInvariants(input, result);
      }),
      { numRuns: PROPERTY_RUNS * 2 },
    );
  });

  test('without a budget, an all-or-none bid that meets a too-small ask stops; the bid behind it fills', () => {
    const orders = [
      bid(1, 10n, 10n, { minFill: 10n }),
      bid(2, 10n, 5n, { slot: 1n }),
      ask(3, 9n, 4n),
      ask(4, 10n, 10n),
    ];
    // With a budget the all-or-none bid looks on and fills against the large ask.
    assert.deepStrictEqual(clearWith(orders, 10n, {}).fills, [fill(1, 4, 10n, 100n), fill(2, 3, 4n, 40n)]);
    // Strict: its own minimum blocked the pair, so it waits for the next batch.
    const strict = clearWith(orders, 10n, { allocationPassesMax: 0 });
    assert.deepStrictEqual(strict.fills, [fill(2, 3, 4n, 40n), fill(2, 4, 1n, 10n)]);
    assert.deepStrictEqual(strict.skipped, [{ ref: 1, reason: 'min_fill' }]);
  });

  test('without a budget, a dust ask that moves no quote is the one parked, not the bid', () => {
    // 50 x 10 / 1000 = 0: the pair is passed over; the bid's own 200 would move 2 quote.
    const input: AuctionInput = {
      orders: [bid(1, 10n, 200n), ask(2, 10n, 50n), ask(3, 10n, 200n, { slot: 1n })],
      oraclePrice: 10n,
      bandLow: 1n,
      bandHigh: 1000n,
      priceScale: 1000n,
    };
    const limits = { ...AUCTION_LIMITS, allocationPassesMax: 0 };
    const result = clearBatch(input, limits);
    assert.deepStrictEqual(result, referenceClear(input, limits));
    assert.deepStrictEqual(result.fills, [fill(1, 3, 200n, 2n)]);
  });

  test('without a budget, the later order of a self-trade is parked for the rest of the batch', () => {
    const orders = [
      bid(1, 10n, 5n, { owner: 'alice' }),
      ask(2, 10n, 5n, { owner: 'alice', slot: 1n }),
      ask(3, 10n, 5n, { owner: 'bob', slot: 1n }),
      bid(4, 10n, 5n, { owner: 'carol', slot: 2n }),
    ];
    // With a budget, ask 2 fills against bid 4 (see the self-trade example above); strict, it waits.
    const strict = clearWith(orders, 10n, { allocationPassesMax: 0 });
    assert.deepStrictEqual(strict.fills, [fill(1, 3, 5n, 50n)]);
    assert.deepStrictEqual(strict.skipped, [{ ref: 2, reason: 'self_trade' }]);
  });

  test('past the round cap, every fok order left is not filled and the batch clears without them', () => {
    // Round 1 at 8: fok bid 2 (limit 14) fills 6, fok bid 1 gets 6 of 20 and drops out. Round 2
    // would fill bid 2 alone; with one round allowed, bid 2 is removed too.
    const orders = [
      bid(1, 12n, 20n, { fok: true }),
      bid(2, 14n, 6n, { fok: true }),
      ask(3, 8n, 6n),
      ask(4, 8n, 6n),
    ];
    const twoRounds = clearWith(orders, 10n, {});
    assert.deepStrictEqual(twoRounds.fills, [fill(2, 3, 6n, 48n)]);
    assert.deepStrictEqual(twoRounds.skipped, [{ ref: 1, reason: 'fill_or_kill' }]);
    const oneRound = clearWith(orders, 10n, { fillOrKillRoundsMax: 1 });
    assert.equal(oneRound.noClearReason, 'no_volume');
    assert.deepStrictEqual(oneRound.skipped, [
      { ref: 1, reason: 'fill_or_kill' },
      { ref: 2, reason: 'fill_or_kill' },
    ]);
  });
});
