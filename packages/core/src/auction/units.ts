/**
 * Quantities as numbers. JavaScript numbers are exact integers below 2^53, and arithmetic on them
 * costs no allocation, unlike bigints. When every remaining quantity of a side, and their sum, are
 * below that bound, the price sweep and the allocation walk run on these columns (in the side's
 * priority order); otherwise they run on the bigints. Any sum or difference of quantities of such a
 * side is again at most the sum, so it stays exact.
 */
import type { BookByPriority } from './priority.ts';
import type { AuctionOrder } from './types.ts';

export const SAFE_UNITS = Number.MAX_SAFE_INTEGER;

/** V8's small integers hold 31 bits with pointer compression and 32 without: this fits both. */
const SMALL_INTEGER_MAX = 0x3fff_ffff;

/**
 * BigInt(units) for a non-negative safe integer. A number that came out of double arithmetic is
 * stored as a double, and BigInt() of a double first boxes it and then takes a slower conversion;
 * `units | 0` turns a small value into a small integer, which converts in about half the time (a
 * fill converts two numbers: its quantity and its quote).
 */
export function bigintOfUnits(units: number): bigint {
  return units <= SMALL_INTEGER_MAX ? BigInt(units | 0) : BigInt(units);
}

/**
 * Fingerprints of each order's trading key and owner (the core's state/market-columns.ts): orders
 * whose prints differ on both cannot be a self-trade, so the walk compares no strings for them.
 */
export interface IdentityPrints {
  readonly key: Int32Array;
  readonly owner: Int32Array;
}

export interface SideUnits {
  /** remaining of the i-th order of the side. */
  readonly remaining: Float64Array;
  /** minFill of the i-th order of the side. */
  readonly minFill: Float64Array;
  /** The sum of `remaining`. */
  readonly total: number;
  /** ref of the i-th order, when gathered (gathered.ts): the walk then reads no order for it. */
  readonly refs: Int32Array | null;
  readonly prints: IdentityPrints | null;
}

export interface BookUnits {
  readonly bids: SideUnits;
  readonly asks: SideUnits;
}

/** Both sides as numbers, or null when some quantity or a side's total is beyond 2^53. */
export function bookUnits(book: BookByPriority): BookUnits | null {
  const bids = sideUnits(book.bids);
  const asks = bids === null ? null : sideUnits(book.asks);
  return bids === null || asks === null ? null : { bids, asks };
}

/**
 * Every SideUnits is built here, so all share one shape: the walk and the sweep are optimised for
 * it once (objects of a new shape each batch would undo that after every collection).
 */
export function sideUnitsOf(
  remaining: Float64Array,
  minFill: Float64Array,
  total: number,
  refs: Int32Array | null,
  prints: IdentityPrints | null,
): SideUnits {
  return { remaining, minFill, total, refs, prints };
}

/**
 * A bigint above 2^53 converts to a number of at least 2^53, and one below converts exactly, so the
 * converted value tells which it was. The running total is exact while it stays below 2^53 (each
 * addend is), and the first sum that would not be rounds to 2^53 or more, which ends the attempt.
 */
function sideUnits(orders: readonly AuctionOrder[]): SideUnits | null {
  const remaining = new Float64Array(orders.length);
  const minFill = new Float64Array(orders.length);
  let total = 0;
  for (let index = 0; index < orders.length; index += 1) {
    const order = orders[index] as AuctionOrder;
    const units = Number(order.remaining);
    total += units;
    if (units > SAFE_UNITS || total > SAFE_UNITS) return null;
    remaining[index] = units;
    minFill[index] = Number(order.minFill);
  }
  return sideUnitsOf(remaining, minFill, total, null, null);
}
