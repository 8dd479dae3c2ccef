import type { NoFillReason } from '@venue/protocol';
import type { AuctionResult, SkipReason } from '../auction/types.ts';
import type { OrderRow } from '../state/venue-state.ts';

/**
 * Why an order that took part in a batch got nothing in it (docs/core-auction.md, "What an owner is
 * told"). The answer is built from the order's own terms and the batch's outcome relative to them:
 * whether the batch cleared, whether the price lay inside the order's limit and the oracle band,
 * and what the allocation recorded against this order itself. It never depends on which other
 * orders there were, beyond the fact that volume went to orders ahead of it ('priority'), which is
 * deliberately not split into price and time priority: telling them apart would reveal whether
 * another order sat at exactly this order's limit.
 */

/** What a batch decided, as the explanation of each unfilled participant needs it. */
export interface BatchOutcome {
  /** null: the batch did not run its auction (trading paused). */
  readonly result: AuctionResult | null;
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
  /** Per participant ref, the first reason the allocation passed it over, or undefined. */
  readonly firstSkip: readonly (SkipReason | undefined)[];
  /** The filled order first in allocation priority on each side, or null when none filled. */
  readonly bestFilledBid: OrderRow | null;
  readonly bestFilledAsk: OrderRow | null;
}

/**
 * The reason every participant of a batch that did not clear at a price is given (null: it
 * cleared). It is a fact about the market, not about any order, which is why the market keeps it
 * once (MarketState.lastUncleared) instead of writing it into each row.
 */
export function unclearedReason(result: AuctionResult | null): NoFillReason | null {
  if (result === null) return 'market_paused';
  if (result.clearingPrice !== null) return null;
  if (result.noClearReason === 'no_oracle') return 'no_oracle';
  if (result.noClearReason === 'no_candidate_in_band') return 'outside_band';
  return 'no_counterparty';
}

/** `ref`: the row's index among the batch's participants (its column; the row's own field is not kept). */
export function noFillReason(row: OrderRow, ref: number, outcome: BatchOutcome): NoFillReason {
  const best = row.side === 'bid' ? outcome.bestFilledBid : outcome.bestFilledAsk;
  // minFill is min_fill_size capped at what remains: equal means all-or-none for this remainder.
  const allOrNone = row.minFill === row.remaining;
  const behind = best !== null && ahead(best, row);
  return reasonOf(outcome, outcome.firstSkip[ref], row.side, row.priceLimit, allOrNone, behind);
}

/**
 * The reason, from the batch's outcome, the order's first skip and its own terms: its side and
 * limit, whether its minimum fill is all it has left, and whether a filled order of its side comes
 * before it in allocation priority. Whoever explains an order supplies these, from its row or from
 * the gathered columns (run-batch.ts).
 */
export function reasonOf(
  outcome: BatchOutcome,
  skip: SkipReason | undefined,
  side: 'bid' | 'ask',
  limit: bigint,
  allOrNone: boolean,
  behindBestFilled: boolean,
): NoFillReason {
  const result = outcome.result;
  if (result === null) return 'market_paused';
  // A fok its batch could not fill whole is set aside before the price is chosen.
  if (skip === 'fill_or_kill') return 'fill_or_kill';
  const price = result.clearingPrice;
  const uncleared = unclearedReason(result);
  if (price === null || uncleared !== null) return uncleared ?? 'no_counterparty';
  const marketable = side === 'bid' ? limit >= price : limit === 0n || limit <= price;
  if (!marketable) {
    // A limit beyond the band on its own side could not be met by any price this batch allowed.
    const beyondBand = side === 'bid' ? limit < outcome.bandLow : limit > outcome.bandHigh;
    return beyondBand ? 'outside_band' : 'limit';
  }
  switch (skip) {
    case 'self_trade':
      return 'self_trade';
    case 'min_fill':
      return allOrNone ? 'all_or_none' : 'min_fill';
    case 'zero_quote':
      return 'zero_quote';
    case undefined:
      // Volume went to orders ahead of it, or (nothing ahead filled) the other side's orders could
      // not be paired with it on their own terms.
      return behindBestFilled ? 'priority' : 'unmatched';
  }
}

/** Allocation priority (decisions section 2): the more aggressive limit, then arrival slot, then intake. */
export function ahead(a: OrderRow, b: OrderRow): boolean {
  if (a.priceLimit !== b.priceLimit) {
    return a.side === 'bid' ? a.priceLimit > b.priceLimit : a.priceLimit < b.priceLimit;
  }
  if (a.arrivalSlot !== b.arrivalSlot) return a.arrivalSlot < b.arrivalSlot;
  return a.sequence < b.sequence;
}

/** The first skip reason of each ref (the log keeps them in order of first occurrence). */
export function firstSkips(result: AuctionResult | null, count: number): (SkipReason | undefined)[] {
  const first: (SkipReason | undefined)[] = new Array(count);
  if (result === null) return first;
  for (const { ref, reason } of result.skipped) {
    if (ref >= 0 && ref < count && first[ref] === undefined) first[ref] = reason;
  }
  return first;
}
