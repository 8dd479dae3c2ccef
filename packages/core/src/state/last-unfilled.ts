import { type LastUnfilled, NO_SLOT } from './market-columns.ts';
import type { OrderRow, UnclearedBatch } from './venue-state.ts';

export type { LastUnfilled };

/**
 * The order's latest unfilled batch: the newer of what its row records (batches that cleared, and
 * the arrival batch of an ioc or fok) and its market's latest batch that did not clear, if the order
 * took part in that one. It took part when it rests now and rested then: it arrived before that
 * batch's slot, and no settlement put it back to resting after the batch (a row that waited on a
 * settlement through the batch was not a participant). Rows leaving `resting` keep the answer
 * (keepLastUnfilled), so an order that ended still says why its last batch gave it nothing.
 */
export function lastUnfilled(row: OrderRow): LastUnfilled | null {
  const own = ownRecord(row);
  const uncleared = row.market.lastUncleared;
  if (uncleared === null || row.state !== 'resting' || !tookPart(row, uncleared)) return own;
  return own !== null && own.batch >= uncleared.batch ? own : uncleared;
}

/**
 * Writes lastUnfilled into the row: call it just before the row stops resting. Only the market's
 * record can be newer than the row's own, so without it the row already holds the answer and
 * nothing is read beyond the market (a batch calls this for every order that fills).
 */
export function keepLastUnfilled(row: OrderRow): void {
  const uncleared = row.market.lastUncleared;
  if (uncleared === null || row.state !== 'resting' || !tookPart(row, uncleared)) return;
  const own = ownRecord(row);
  if (own !== null && own.batch >= uncleared.batch) return;
  keepOwn(row, uncleared);
}

/**
 * What the order itself records (its batches that cleared, its arrival batch): in the market's
 * columns while the order holds a slot (a batch writes it there by slot, D148), in the row after.
 */
export function ownRecord(row: OrderRow): LastUnfilled | null {
  if (row.slot !== NO_SLOT) return row.market.columns.unfilled[row.slot] ?? null;
  if (row.unfilledBatch === null || row.unfilledSlot === null || row.unfilledReason === null) return null;
  return { batch: row.unfilledBatch, slot: row.unfilledSlot, reason: row.unfilledReason };
}

/** Records `unfilled` as the order's own latest unfilled batch (shared: it is never changed). */
export function keepOwn(row: OrderRow, unfilled: LastUnfilled): void {
  if (row.slot !== NO_SLOT) {
    row.market.columns.unfilled[row.slot] = unfilled;
    return;
  }
  row.unfilledBatch = unfilled.batch;
  row.unfilledSlot = unfilled.slot;
  row.unfilledReason = unfilled.reason;
}

function tookPart(row: OrderRow, uncleared: UnclearedBatch): boolean {
  if (!(row.arrivalSlot < uncleared.slot)) return false;
  return row.resumedBatch === null || row.resumedBatch <= uncleared.batch;
}
