/**
 * Boundary checks on what the core hands the auction. Every failure here is a programmer error in
 * the core (intake has already refused bad client input), so it is an assertion that names the
 * field and shows what was received. Messages are built only on failure: this runs per order.
 */
import { AssertionError, U64_MAX } from '@venue/protocol';
import type { SortedAuctionInput } from './priority.ts';
import { quoteAmount } from './quote.ts';
import type { AuctionInput, AuctionOrder, AuctionSide } from './types.ts';

/** A module-local copy: the re-exported binding is slower to read in this per-order loop. */
const U64 = U64_MAX;

function isU64(value: bigint): boolean {
  return value >= 0n && value <= U64;
}

export function assertAuctionInput(input: AuctionInput): void {
  assertMarketFields(input);
  for (const order of input.orders) assertAuctionOrder(order, input.priceScale);
  assertUniqueRefs([input.orders]);
}

/**
 * The sorted entry is the core's: it hands over its open rows, whose amounts, limits and costs the
 * intake rules bounded to u64 when they were booked (1024, 1028) and whose counters the core keeps.
 * So this checks, reading each order once, what the price sweep and the allocation rely on: each
 * order on its own side, no bid limited at 0, the sides in price priority (one comparison per
 * neighbour), something left to fill, a minimum fill in [1, remaining], and refs unique across both
 * sides. Time order among equal limits is not re-checked here: it would read every order's
 * sequence, a cache miss per order on a cold book, and it holds by construction (orders join a
 * price level's tail in intake order); validateInternalState checks it against a from-scratch sort
 * in the tests.
 */
export function assertSortedAuctionInput(input: SortedAuctionInput): void {
  assertMarketFields(input);
  assertSideInPriority(input.bids, 'bid');
  assertSideInPriority(input.asks, 'ask');
  assertUniqueRefs([input.bids, input.asks]);
}

function assertSideInPriority(orders: readonly AuctionOrder[], side: AuctionSide): void {
  let previous: AuctionOrder | undefined;
  for (const order of orders) {
    const { remaining, minFill } = order;
    if (order.side !== side) failOrder(order, 'side', `'${side}' on the ${side} side`, order.side);
    // types.ts: the limit is "0 only for an ask that takes any price" (the price sweep relies on it).
    if (side === 'bid' && order.priceLimit === 0n) failOrder(order, 'priceLimit', '> 0 on a bid', 0n);
    if (!(remaining > 0n)) failOrder(order, 'remaining', '> 0', remaining);
    if (!(minFill >= 1n && minFill <= remaining))
      failOrder(order, 'minFill', `in [1, ${remaining}]`, minFill);
    if (previous !== undefined && !limitRanksNoLower(previous, order)) {
      failOrder(
        order,
        'priority',
        `after order ${previous.ref} on the ${side} side`,
        'a better limit behind it',
      );
    }
    previous = order;
  }
}

/** decisions 2: "the more aggressive limit first" (a higher bid, a lower ask); equal limits may follow. */
function limitRanksNoLower(a: AuctionOrder, b: AuctionOrder): boolean {
  if (a.priceLimit === b.priceLimit) return true;
  return a.side === 'bid' ? a.priceLimit > b.priceLimit : a.priceLimit < b.priceLimit;
}

export function assertMarketFields(input: {
  readonly priceScale: bigint;
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
  readonly oraclePrice: bigint | null;
}): void {
  const { priceScale, bandLow, bandHigh, oraclePrice } = input;
  if (!(priceScale > 0n && isU64(priceScale))) {
    throw new AssertionError(`auction priceScale must be a u64 > 0, received ${priceScale}`);
  }
  if (!(isU64(bandLow) && isU64(bandHigh) && bandLow <= bandHigh)) {
    throw new AssertionError(
      `auction band must be u64 with bandLow <= bandHigh, received [${bandLow}, ${bandHigh}]`,
    );
  }
  if (oraclePrice !== null && !isU64(oraclePrice)) {
    throw new AssertionError(`auction oraclePrice must be u64 or null, received ${oraclePrice}`);
  }
}

/**
 * types.ts: a ref is "unique within one auction". The core usually numbers orders 0..n-1, which a
 * bitmap checks in a few microseconds; any other numbering falls back to a Set.
 */
function assertUniqueRefs(groups: readonly (readonly AuctionOrder[])[]): void {
  let count = 0;
  for (const orders of groups) count += orders.length;
  const seen = new Uint8Array(count);
  let dense = true;
  for (const orders of groups) {
    for (const order of orders) {
      const ref = order.ref;
      if (!(Number.isInteger(ref) && ref >= 0 && ref < count)) {
        dense = false;
        break;
      }
      if (seen[ref] === 1) throw new AssertionError(`auction order ref ${ref} appears twice`);
      seen[ref] = 1;
    }
  }
  if (dense) return;
  const refs = new Set<number>();
  for (const orders of groups) {
    for (const order of orders) {
      if (refs.has(order.ref)) throw new AssertionError(`auction order ref ${order.ref} appears twice`);
      refs.add(order.ref);
    }
  }
}

function assertAuctionOrder(order: AuctionOrder, priceScale: bigint): void {
  const { side, priceLimit, remaining, minFill } = order;
  if (side !== 'bid' && side !== 'ask') failOrder(order, 'side', "'bid' or 'ask'", side);
  if (!isU64(priceLimit)) failOrder(order, 'priceLimit', 'a u64', priceLimit);
  // types.ts: the limit is "0 only for an ask that takes any price".
  if (side === 'bid' && priceLimit === 0n) failOrder(order, 'priceLimit', '> 0 on a bid', priceLimit);
  if (!(remaining > 0n && isU64(remaining))) failOrder(order, 'remaining', 'a u64 > 0', remaining);
  if (!(minFill >= 1n && minFill <= remaining)) failOrder(order, 'minFill', `in [1, ${remaining}]`, minFill);
  if (!isU64(order.arrivalSlot)) failOrder(order, 'arrivalSlot', 'a u64', order.arrivalSlot);
  if (!isU64(order.sequence)) failOrder(order, 'sequence', 'a u64', order.sequence);
  // A fill's quote is at most the bid's nominal cost (quantity <= remaining, price <= limit), which
  // a note has already covered; checking the cost here keeps every quote within u64.
  if (side === 'bid' && !isU64(quoteAmount(remaining, priceLimit, priceScale))) {
    failOrder(order, 'remaining x priceLimit / priceScale', 'within u64', remaining * priceLimit);
  }
}

function failOrder(order: AuctionOrder, field: string, expected: string, received: unknown): never {
  throw new AssertionError(
    `auction order ${order.ref}: ${field} must be ${expected}, received ${String(received)}`,
  );
}
