import { AssertionError } from '@venue/protocol';
import type { GatheredSide } from '../auction/gathered.ts';
import { SAFE_UNITS, sideUnitsOf } from '../auction/units.ts';
import {
  AT_KEY_PRINT,
  AT_MIN_FILL,
  AT_NEXT,
  AT_OWNER_PRINT,
  AT_REF,
  AT_REMAINING,
  type MarketColumns,
  NO_SLOT,
  SLOT_F64,
  SLOT_I32,
} from '../state/market-columns.ts';
import type { BookSide, OrderRow, PriceLevel } from '../state/venue-state.ts';

/**
 * A gathered side with what the batch itself reads after the auction: each participant's slot, and
 * the book's level object for each gathered level, so the fills pass can take the filled orders out
 * of their levels' resting totals a level at a time without reading a row (run-batch.ts).
 */
export interface GatheredBookSide extends GatheredSide {
  readonly slots: Int32Array;
  readonly bookLevels: readonly PriceLevel[];
}

/**
 * One pass over a book side in priority, collecting the batch's participants (slots with a ref)
 * and everything the auction's first round reads from them into columns: remaining and minimum
 * fill as numbers, refs, identity prints, the base open per price level, and how many are
 * fill-or-kill. It reads the market's columns only (state/market-columns.ts), never a row: in
 * priority order rows are scattered in memory, and reading them was half of a batch's time.
 *
 * Returns null when some quantity, or the side's total, is not exact as a number (beyond 2^53):
 * the batch then takes the bigint path (clearSortedBatch on the rows).
 */
export function gatherSide(side: BookSide, columns: MarketColumns<OrderRow>): GatheredBookSide | null {
  let capacity = 0;
  for (const level of side.levels) capacity += level.size;
  // Sized once, and cut to the participants at the end, rather than grown by copies.
  const orders: OrderRow[] = new Array(capacity);
  const refs = new Int32Array(capacity);
  const slots = new Int32Array(capacity);
  const remaining = new Float64Array(capacity);
  const minFill = new Float64Array(capacity);
  const keyPrint = new Int32Array(capacity);
  const ownerPrint = new Int32Array(capacity);
  const prices: bigint[] = [];
  const bookLevels: PriceLevel[] = [];
  const levelUnits = new Float64Array(side.levels.length);
  const ends = new Int32Array(side.levels.length);
  // The slot records (market-columns.ts SLOT_F64): one cache line or less per order visited.
  const { rows, f64, i32, fillOrKill } = columns;
  let total = 0;
  let fillOrKillCount = 0;
  let count = 0;
  for (const level of side.levels) {
    const first = count;
    let atLevel = 0;
    for (let slot = level.headSlot; slot !== NO_SLOT; slot = i32[slot * SLOT_I32 + AT_NEXT] as number) {
      const at = slot * SLOT_I32;
      const ref = i32[at + AT_REF] as number;
      if (ref < 0) continue;
      const row = rows[slot];
      if (row === undefined || count === capacity) {
        throw new AssertionError(`price level ${level.price} chains a free slot ${slot}`);
      }
      const units = f64[slot * SLOT_F64 + AT_REMAINING] as number;
      atLevel += units;
      if (!(units <= SAFE_UNITS && atLevel <= SAFE_UNITS)) return null;
      orders[count] = row;
      refs[count] = ref;
      slots[count] = slot;
      remaining[count] = units;
      minFill[count] = f64[slot * SLOT_F64 + AT_MIN_FILL] as number;
      keyPrint[count] = i32[at + AT_KEY_PRINT] as number;
      ownerPrint[count] = i32[at + AT_OWNER_PRINT] as number;
      fillOrKillCount += fillOrKill[slot] as number;
      count += 1;
    }
    if (count === first) continue;
    total += atLevel;
    if (!(total <= SAFE_UNITS)) return null;
    levelUnits[prices.length] = atLevel;
    ends[prices.length] = count;
    prices.push(level.price);
    bookLevels.push(level);
  }
  orders.length = count;
  return {
    orders,
    refs: refs.subarray(0, count),
    slots: slots.subarray(0, count),
    bookLevels,
    units: sideUnitsOf(remaining.subarray(0, count), minFill.subarray(0, count), total, null, null),
    prints: { key: keyPrint.subarray(0, count), owner: ownerPrint.subarray(0, count) },
    levels: {
      prices,
      units: levelUnits.subarray(0, prices.length),
      ends: ends.subarray(0, prices.length),
      count: prices.length,
    },
    fillOrKillCount,
  };
}
