/**
 * Fill-or-kill inside one batch. Decisions section 2: "`fok` fills its whole amount in its arrival
 * batch or is cancelled." A fok order that a round did not fill completely leaves the auction, and
 * the round is run again without it, because an order that will be cancelled must not have shaped
 * the price or the allocation of the others.
 */

import type { BookByPriority } from './priority.ts';
import type { AuctionOrder, Fills } from './types.ts';

/** The fok orders of the book, bids first, each side in priority. */
export function fillOrKillOrders(book: BookByPriority): AuctionOrder[] {
  const fok: AuctionOrder[] = [];
  for (const order of book.bids) if (order.fillOrKill) fok.push(order);
  for (const order of book.asks) if (order.fillOrKill) fok.push(order);
  return fok;
}

/** The fok orders of `book` that `fills` left short of their `remaining`, in intake order. */
export function shortFillOrKill(book: BookByPriority, fills: Fills): AuctionOrder[] {
  const fok = fillOrKillOrders(book);
  if (fok.length === 0) return [];
  const filled = new Map<number, bigint>(fok.map((order) => [order.ref, 0n]));
  for (let index = 0; index < fills.length; index += 1) {
    const bidRef = fills.bidRef(index);
    const askRef = fills.askRef(index);
    const bidFilled = filled.get(bidRef);
    if (bidFilled !== undefined) filled.set(bidRef, bidFilled + fills.quantity(index));
    const askFilled = filled.get(askRef);
    if (askFilled !== undefined) filled.set(askRef, askFilled + fills.quantity(index));
  }
  const short = fok.filter((order) => (filled.get(order.ref) ?? 0n) < order.remaining);
  return short.sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
}

/** The book without `removed`, each side still in priority. */
export function withoutOrders(book: BookByPriority, removed: readonly AuctionOrder[]): BookByPriority {
  if (removed.length === 0) return book;
  const gone = new Set(removed);
  return {
    bids: book.bids.filter((order) => !gone.has(order)),
    asks: book.asks.filter((order) => !gone.has(order)),
  };
}
