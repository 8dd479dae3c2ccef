/**
 * The auction's input as the core gathers it in one pass over its book (batch/gather.ts): each
 * side's orders in priority together with what the price sweep and the number walk read from them,
 * already in columns. On a cold 10,000-order book every pass that reads the orders themselves costs
 * a cache miss or two per order (the row, then the bigint it points to); the separate passes this
 * replaces (collect the participants, check them, count fill-or-kill orders, convert quantities to
 * numbers, sweep the prices order by order) cost about half of a batch.
 *
 * Only for books whose quantities are all exact as numbers (units.ts); the core hands any other
 * book to clearSortedBatch.
 */
import { AssertionError } from '@venue/protocol';
import type { SortedAuctionInput } from './priority.ts';
import type { AuctionOrder } from './types.ts';
import { type IdentityPrints, SAFE_UNITS, type SideUnits } from './units.ts';

/** The distinct limits of one side's orders, best first, with the base open at each. */
export interface LevelTotals {
  readonly prices: readonly bigint[];
  /** Sum of `remaining` of the orders at prices[i]. */
  readonly units: Float64Array;
  /** One past the index (into the side's orders) of the last order at prices[i]. */
  readonly ends: Int32Array;
  readonly count: number;
}

export interface GatheredSide {
  /** In allocation priority. */
  readonly orders: readonly AuctionOrder[];
  /** orders[i].ref, so refs are checked without reading the orders. */
  readonly refs: Int32Array;
  /** orders[i].remaining and orders[i].minFill as numbers, and their total. */
  readonly units: SideUnits;
  /** Fingerprints of orders[i]'s trading key and owner (units.ts IdentityPrints). */
  readonly prints: IdentityPrints;
  readonly levels: LevelTotals;
  /** How many of the orders are fill-or-kill. */
  readonly fillOrKillCount: number;
}

export interface GatheredAuctionInput extends Omit<SortedAuctionInput, 'bids' | 'asks'> {
  readonly bids: GatheredSide;
  readonly asks: GatheredSide;
}

/**
 * Boundary checks on the gathered columns, reading no order: counts agree, every quantity is a
 * safe integer with 1 <= minFill <= remaining, the totals are the sums, levels are distinct and in
 * priority (no bid limited at 0), and refs are unique across both sides. The columns' agreement
 * with the orders is the gatherer's construction (batch/gather.ts reads both from the same row).
 */
export function assertGatheredSides(bids: GatheredSide, asks: GatheredSide): void {
  assertGatheredSide(bids, 'bid');
  assertGatheredSide(asks, 'ask');
  const count = bids.orders.length + asks.orders.length;
  const seen = new Uint8Array(count);
  for (const refs of [bids.refs, asks.refs]) {
    for (let index = 0; index < refs.length; index += 1) {
      const ref = refs[index] as number;
      if (!(ref >= 0 && ref < count) || seen[ref] === 1) {
        throw new AssertionError(`gathered auction ref ${ref} is out of range or appears twice`);
      }
      seen[ref] = 1;
    }
  }
}

function assertGatheredSide(side: GatheredSide, name: 'bid' | 'ask'): void {
  const { orders, refs, units, levels } = side;
  const count = orders.length;
  if (
    refs.length !== count ||
    units.remaining.length !== count ||
    units.minFill.length !== count ||
    side.prints.key.length !== count ||
    side.prints.owner.length !== count ||
    levels.count !== levels.prices.length ||
    count > 0 !== levels.count > 0 ||
    (levels.count > 0 && levels.ends[levels.count - 1] !== count)
  ) {
    throw new AssertionError(`gathered ${name} side: columns disagree on the number of orders`);
  }
  let total = 0;
  let from = 0;
  for (let level = 0; level < levels.count; level += 1) {
    const price = levels.prices[level] as bigint;
    const previous = levels.prices[level - 1];
    if (previous !== undefined && !(name === 'bid' ? previous > price : previous < price)) {
      throw new AssertionError(`gathered ${name} levels are not strictly in priority at ${price}`);
    }
    if (name === 'bid' && price === 0n) throw new AssertionError('gathered bid level limited at 0');
    const to = levels.ends[level] as number;
    if (!(to > from)) throw new AssertionError(`gathered ${name} level ${price} holds no order`);
    let atLevel = 0;
    for (let index = from; index < to; index += 1) {
      const remaining = units.remaining[index] as number;
      const minFill = units.minFill[index] as number;
      if (!(Number.isSafeInteger(remaining) && remaining > 0 && minFill >= 1 && minFill <= remaining)) {
        throw new AssertionError(
          `gathered ${name} ${refs[index]}: remaining ${remaining} and minFill ${minFill} out of range`,
        );
      }
      atLevel += remaining;
    }
    if (atLevel !== levels.units[level]) {
      throw new AssertionError(
        `gathered ${name} level ${price}: total ${levels.units[level]} is not the sum`,
      );
    }
    total += atLevel;
    from = to;
  }
  if (!(total === units.total && total <= SAFE_UNITS)) {
    throw new AssertionError(`gathered ${name} side: total ${units.total} is not the exact sum ${total}`);
  }
}
