/**
 * One pass of the auction over a fixed set of orders: rank the candidate prices, pick the winner,
 * allocate at it. `clearBatch` repeats it while fill-or-kill orders drop out.
 */
import { allocate, type PassBudget } from './allocate.ts';
import { NO_FILLS } from './fill-columns.ts';
import type { LevelTotals } from './gathered.ts';
import type { Arithmetic } from './limits.ts';
import type { BookByPriority } from './priority.ts';
import { decidedBy, type OracleBand, type PriceRanking, rankCandidates, rankLevels } from './select-price.ts';
import { SkipLog } from './skip-log.ts';
import type { AuctionOrder, AuctionResult, DecidedBy, Fills } from './types.ts';
import { type BookUnits, bookUnits } from './units.ts';

/** What the core gathered for the book's first round (gathered.ts): its columns and level totals. */
export interface GatheredRound {
  readonly units: BookUnits;
  readonly bidLevels: LevelTotals;
  readonly askLevels: LevelTotals;
}

export interface RoundOutcome {
  readonly ranking: PriceRanking;
  readonly clearingPrice: bigint | null;
  readonly noClearReason: Exclude<AuctionResult['noClearReason'], 'no_oracle'>;
  readonly decidedBy: DecidedBy | null;
  readonly fills: Fills;
  readonly skips: SkipLog;
}

export function clearRound(
  book: BookByPriority,
  band: OracleBand,
  priceScale: bigint,
  budget: PassBudget,
  orderCount: number,
  arithmetic: Arithmetic,
  gathered: GatheredRound | null = null,
): RoundOutcome {
  const units = gathered !== null ? gathered.units : arithmetic === 'fastest' ? bookUnits(book) : null;
  const ranking =
    gathered !== null
      ? rankLevels(gathered.bidLevels, gathered.askLevels, band)
      : rankCandidates(book, band, units);
  const skips = new SkipLog(orderCount);
  const winner = ranking.shortlist[0];
  const notCleared = { ranking, clearingPrice: null, decidedBy: null, fills: NO_FILLS, skips } as const;
  if (winner === undefined) return { ...notCleared, noClearReason: 'no_candidate_in_band' };
  if (winner.executable === 0n) return { ...notCleared, noClearReason: 'no_volume' };
  const price = winner.price;
  const fills = allocate(
    {
      // decisions 2: "A bid is eligible when the clearing price is at or below its `price_limit`;
      // an ask when it is at or above its limit (or the limit is 0)." A zero limit is <= any price.
      bids: priorityPrefix(book.bids, (bid) => bid.priceLimit >= price),
      asks: priorityPrefix(book.asks, (ask) => ask.priceLimit <= price),
      clearingPrice: price,
      volumeMax: winner.executable,
      priceScale,
      units,
    },
    skips,
    budget,
  );
  return {
    ranking,
    clearingPrice: price,
    noClearReason: null,
    decidedBy: decidedBy(ranking.shortlist),
    fills,
    skips,
  };
}

/**
 * In priority order the eligible orders form a prefix: once one order is not eligible, none after
 * it is. So the prefix ends at the first ineligible order, found by binary search.
 */
function priorityPrefix(
  sorted: readonly AuctionOrder[],
  eligible: (order: AuctionOrder) => boolean,
): readonly AuctionOrder[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (eligible(sorted[middle] as AuctionOrder)) low = middle + 1;
    else high = middle;
  }
  return sorted.slice(0, low);
}
