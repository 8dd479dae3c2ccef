/**
 * Who comes first at the clearing price. Decisions section 2: "price priority (the more
 * aggressive limit first), then time (`arrival_slot`, then the venue's intake sequence)". A higher
 * bid limit is the more aggressive; a lower ask limit is, and 0 (any price) is the lowest of all.
 */
import { AssertionError } from '@venue/protocol';
import { sortByU64Keys, type U64Key } from './radix-sort.ts';
import type { AuctionOrder } from './types.ts';

/** Earlier in time first: arrival slot, then intake sequence. Sequences are unique, so 0 means same order. */
export function compareTime(a: AuctionOrder, b: AuctionOrder): number {
  if (a.arrivalSlot !== b.arrivalSlot) return a.arrivalSlot < b.arrivalSlot ? -1 : 1;
  if (a.sequence !== b.sequence) return a.sequence < b.sequence ? -1 : 1;
  return 0;
}

/** Both sides of a book, each in allocation priority (bid limits descending, ask limits ascending). */
export interface BookByPriority {
  readonly bids: readonly AuctionOrder[];
  readonly asks: readonly AuctionOrder[];
}

/** The auction's input when the caller hands each side over already in allocation priority. */
export interface SortedAuctionInput extends BookByPriority {
  readonly oraclePrice: bigint | null;
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
  readonly priceScale: bigint;
}

const ARRIVAL_SLOT: U64Key<AuctionOrder> = { of: (order) => order.arrivalSlot, descending: false };
const SEQUENCE: U64Key<AuctionOrder> = { of: (order) => order.sequence, descending: false };
const BID_LIMIT: U64Key<AuctionOrder> = { of: (bid) => bid.priceLimit, descending: true };
const ASK_LIMIT: U64Key<AuctionOrder> = { of: (ask) => ask.priceLimit, descending: false };

/**
 * The one ordering step of the auction: everything after it (candidate prices, demand and supply,
 * eligible prefixes, the allocation walk) reads these two arrays in order. Orders are put in time
 * order first (the core normally hands them over that way, which costs one check), then each side
 * is sorted by limit with a stable sort, so equal limits stay in time order.
 */
export function sortByPriority(orders: readonly AuctionOrder[]): BookByPriority {
  const inTime = isStrictlyInTime(orders) ? orders : sortByU64Keys(orders, [ARRIVAL_SLOT, SEQUENCE]);
  if (inTime !== orders && !isStrictlyInTime(inTime)) {
    // types.ts: the sequence is unique. Two orders equal in time would leave priority to input order.
    throw new AssertionError('auction orders must have unique (arrivalSlot, sequence)');
  }
  return {
    bids: sortByU64Keys(
      inTime.filter((order) => order.side === 'bid'),
      [BID_LIMIT],
    ),
    asks: sortByU64Keys(
      inTime.filter((order) => order.side === 'ask'),
      [ASK_LIMIT],
    ),
  };
}

function isStrictlyInTime(orders: readonly AuctionOrder[]): boolean {
  let previous: AuctionOrder | undefined;
  for (const order of orders) {
    if (previous !== undefined && compareTime(previous, order) >= 0) return false;
    previous = order;
  }
  return true;
}
