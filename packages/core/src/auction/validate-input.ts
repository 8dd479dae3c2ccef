/**
 * Boundary checks on what the core hands the auction. Every failure here is a programmer error in
 * the core (intake has already refused bad client input), so it is an assertion that names the
 * field and shows what was received. Messages are built only on failure: this runs per order.
 */
import { AssertionError, U64_MAX } from '@venue/protocol';
import { quoteAmount } from './quote.ts';
import type { AuctionInput, AuctionOrder } from './types.ts';

/** A module-local copy: the re-exported binding is slower to read in this per-order loop. */
const U64 = U64_MAX;

function isU64(value: bigint): boolean {
  return value >= 0n && value <= U64;
}

export function assertAuctionInput(input: AuctionInput): void {
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
  for (const order of input.orders) assertAuctionOrder(order, priceScale);
  assertUniqueRefs(input.orders);
}

/**
 * types.ts: a ref is "unique within one auction". The core usually numbers orders 0..n-1, which a
 * bitmap checks in a few microseconds; any other numbering falls back to a Set.
 */
function assertUniqueRefs(orders: readonly AuctionOrder[]): void {
  const seen = new Uint8Array(orders.length);
  let index = 0;
  for (; index < orders.length; index += 1) {
    const ref = (orders[index] as AuctionOrder).ref;
    if (!(Number.isInteger(ref) && ref >= 0 && ref < orders.length)) break;
    if (seen[ref] === 1) throw new AssertionError(`auction order ref ${ref} appears twice`);
    seen[ref] = 1;
  }
  if (index === orders.length) return;
  const refs = new Set<number>();
  for (const order of orders) {
    if (refs.has(order.ref)) throw new AssertionError(`auction order ref ${order.ref} appears twice`);
    refs.add(order.ref);
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
