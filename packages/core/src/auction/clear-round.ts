/**
 * One pass of the auction over a fixed set of orders: rank the candidate prices, pick the winner,
 * allocate at it. `clearBatch` repeats it while fill-or-kill orders drop out.
 */
import { allocate } from './allocate.ts';
import type { BookByPriority } from './priority.ts';
import { decidedBy, type OracleBand, type PriceRanking, rankCandidates } from './select-price.ts';
import { SkipLog } from './skip-log.ts';
import type { AuctionOrder, AuctionResult, DecidedBy, Fill } from './types.ts';

export interface RoundOutcome {
  readonly ranking: PriceRanking;
  readonly clearingPrice: bigint | null;
  readonly noClearReason: Exclude<AuctionResult['noClearReason'], 'no_oracle'>;
  readonly decidedBy: DecidedBy | null;
  readonly fills: readonly Fill[];
  readonly skips: SkipLog;
}

export function clearRound(book: BookByPriority, band: OracleBand, priceScale: bigint): RoundOutcome {
  const ranking = rankCandidates(book, band);
  const skips = new SkipLog();
  const winner = ranking.shortlist[0];
  const notCleared = { ranking, clearingPrice: null, decidedBy: null, fills: [], skips } as const;
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
    },
    skips,
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

/** In priority order the eligible orders form a prefix: once one order is not eligible, none after it is. */
function priorityPrefix(
  sorted: readonly AuctionOrder[],
  eligible: (order: AuctionOrder) => boolean,
): readonly AuctionOrder[] {
  let count = 0;
  for (const order of sorted) {
    if (!eligible(order)) break;
    count += 1;
  }
  return sorted.slice(0, count);
}
