/**
 * What both allocation walks share: the round they allocate, the budget of pairs passed over, and
 * the blame bits of the strict walk (allocate.ts describes the walk).
 */
import { AssertionError } from '@venue/protocol';
import type { AuctionOrder } from './types.ts';
import type { BookUnits } from './units.ts';

/** What is left of the batch's allowance of pairs passed over (limits.ts ALLOCATION_PASSES_MAX). */
export interface PassBudget {
  passesLeft: number;
}

export interface AllocationRound {
  /** Bids eligible at the clearing price, in priority. */
  readonly bids: readonly AuctionOrder[];
  /** Asks eligible at the clearing price, in priority. */
  readonly asks: readonly AuctionOrder[];
  readonly clearingPrice: bigint;
  /** The winning candidate's executable volume: total base filled never exceeds it. */
  readonly volumeMax: bigint;
  readonly priceScale: bigint;
  /** The book's quantities as numbers, when they fit (units.ts); index i is the side's i-th order. */
  readonly units: BookUnits | null;
}

/**
 * Which order's own constraint made a pair pass over, as a bit mask: the later one of a self-trade,
 * the one(s) whose minimum was not met, the one(s) whose whole size moves no quote. Only the strict
 * walk acts on it, by parking those orders (docs/core-auction.md, "Limits on the work of one batch").
 */
export const BLAME_BID = 1;
export const BLAME_ASK = 2;

/** The strict walk's bound, kept on: each of its passes parked a bid or an ask for the round. */
export function assertStrictBound(strictPasses: number, round: AllocationRound): void {
  const orders = round.bids.length + round.asks.length;
  if (strictPasses > orders) {
    throw new AssertionError(`the strict walk passed over ${strictPasses} pairs for ${orders} orders`);
  }
}
