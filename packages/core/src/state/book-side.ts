import { AssertionError } from '@venue/protocol';
import type { BookSide, MarketState, OrderRow, PriceLevel } from './venue-state.ts';

/**
 * A side of a market's book kept in allocation priority as orders come and go (decisions section
 * 2: "price priority (the more aggressive limit first), then time"). Levels are an array sorted
 * best first; within a level, orders are a doubly linked list in intake order. A new order always
 * has the highest sequence so far, so it joins the tail of its level; an order leaves from anywhere
 * in O(1). An existing level is found through a map by price; adding or dropping a level is a
 * binary search and moves the array's tail.
 * A batch therefore reads the sides in priority without sorting (the auction's radix sort remains
 * for inputs that arrive unsorted).
 */

export function sideOf(market: MarketState, side: 'bid' | 'ask'): BookSide {
  return side === 'bid' ? market.bids : market.asks;
}

/** True when `a` comes before `b` on this side: the higher bid limit, the lower ask limit. */
function ranksBefore(side: BookSide, a: bigint, b: bigint): boolean {
  return side.descending ? a > b : a < b;
}

/** Index of the level at `price`, or -(insertion point) - 1 when there is none. */
export function findLevel(side: BookSide, price: bigint): number {
  const levels = side.levels;
  let low = 0;
  let high = levels.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = (levels[middle] as PriceLevel).price;
    if (at === price) return middle;
    if (ranksBefore(side, at, price)) low = middle + 1;
    else high = middle - 1;
  }
  return -(low + 1);
}

/** Adds an open order at the tail of its price level (it is the newest order there). */
export function enterLevel(side: BookSide, row: OrderRow): void {
  let level = side.byPrice.get(row.priceLimit);
  if (level === undefined) {
    const index = findLevel(side, row.priceLimit);
    if (index >= 0) throw new AssertionError(`price level ${row.priceLimit} is missing from its index`);
    level = {
      price: row.priceLimit,
      headSlot: -1,
      head: null,
      tail: null,
      size: 0,
      resting: 0,
      restingUnits: 0n,
    };
    side.levels.splice(-index - 1, 0, level);
    side.byPrice.set(level.price, level);
  }
  // The row is the newest open order (booking assigns sequences in order), so the tail is its place.
  // Not asserted here, to keep from reading the old tail's sequence; validateInternalState checks it.
  const tail = level.tail;
  // All rows of a level share its price object: a batch reading limits touches one per level.
  row.priceLimit = level.price;
  row.level = level;
  row.levelPrev = tail;
  row.levelNext = null;
  if (tail === null) level.head = row;
  else tail.levelNext = row;
  level.tail = row;
  level.size += 1;
  if (row.state === 'resting') startResting(side, row);
}

/** Removes an order from its price level; a level left empty is dropped. */
export function leaveLevel(side: BookSide, row: OrderRow): void {
  const level = row.level;
  if (level === null) throw new AssertionError(`order ${row.orderId} is in no price level`);
  if (row.state === 'resting') stopResting(side, row);
  const { levelPrev: previous, levelNext: next } = row;
  if (previous === null) level.head = next;
  else previous.levelNext = next;
  if (next === null) level.tail = previous;
  else next.levelPrev = previous;
  row.level = null;
  row.levelPrev = null;
  row.levelNext = null;
  level.size -= 1;
  if (level.size > 0) return;
  const index = findLevel(side, level.price);
  if (index < 0 || side.levels[index] !== level) {
    throw new AssertionError(`price level ${level.price} is missing from its side`);
  }
  side.levels.splice(index, 1);
  side.byPrice.delete(level.price);
}

/**
 * The row, already in its level, counts as resting there from now: call it when the row enters its
 * level as resting, or its state becomes `resting` again (a settlement left a remainder).
 */
export function startResting(side: BookSide, row: OrderRow): void {
  const level = row.level;
  if (level === null) throw new AssertionError(`order ${row.orderId} is in no price level`);
  if (level.resting === 0) side.restingLevels += 1;
  side.restingOrders += 1;
  level.resting += 1;
  level.restingUnits += row.remaining;
  // What a batch's numbering reads instead of the row's state (market-columns.ts).
  side.columns.resting[row.slot] = 1;
}

/** The row stops counting as resting (it is matched, or leaves its level), with its current remaining. */
export function stopResting(side: BookSide, row: OrderRow): void {
  const level = row.level;
  if (level === null || level.resting === 0) {
    throw new AssertionError(`order ${row.orderId} is not counted as resting`);
  }
  level.resting -= 1;
  side.restingOrders -= 1;
  level.restingUnits -= row.remaining;
  if (level.resting === 0) side.restingLevels -= 1;
  side.columns.resting[row.slot] = 0;
}

/**
 * `count` orders of `level`, holding `units` of remaining base between them, stop counting as
 * resting together (a batch filled them): stopResting for many at once, whose callers clear the
 * orders' resting marks in the columns themselves.
 */
export function stopRestingMany(side: BookSide, level: PriceLevel, count: number, units: bigint): void {
  if (!(count > 0 && level.resting >= count)) {
    throw new AssertionError(
      `price level ${level.price} counts ${level.resting} resting orders, not ${count}`,
    );
  }
  level.resting -= count;
  side.restingOrders -= count;
  level.restingUnits -= units;
  if (level.resting === 0) side.restingLevels -= 1;
}

/** Every order of the side in priority: best level first, oldest first within a level. */
export function* ordersByPriority(side: BookSide): Generator<OrderRow> {
  for (const level of side.levels) {
    for (let row = level.head; row !== null; row = row.levelNext) yield row;
  }
}
