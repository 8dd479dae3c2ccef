import type { BatchEvent, CoreEvent } from '@venue/core';
import { type AuctionExplanation, NO_FILL_REASONS, VenueError } from '@venue/protocol';
import { AUCTION_EXPLANATIONS_MAX } from '../config/limits.ts';

/**
 * The recent batch auctions, explained for auditors (GET /admin/auctions/{market_id}/{batch}). Each
 * batch record the core emits is turned into an AuctionExplanation at once and the newest
 * AUCTION_EXPLANATIONS_MAX are kept in memory, oldest dropped first. What is kept is chosen so that
 * an auditor can re-check the price rule (candidates, the shortlist, the rule that decided) and see
 * what happened to the orders in counts, without learning who took part: no order id, account,
 * trading key, note or single order's size or limit is copied out of the record.
 *
 * Not durable on purpose: it is a window for audit, rebuilt from live batches after a restart,
 * and the orders' own outcomes (the owners' view) live in the core's state.
 */
export class AuctionExplanations {
  /** `${marketId}/${batch}` -> explanation, in the order the batches ran. */
  readonly #kept = new Map<string, AuctionExplanation>();

  follow(events: readonly CoreEvent[]): void {
    for (const event of events) {
      if (event.type !== 'batch') continue;
      this.#kept.set(`${event.marketId}/${event.batch}`, explain(event));
      if (this.#kept.size > AUCTION_EXPLANATIONS_MAX) {
        const oldest = this.#kept.keys().next().value as string;
        this.#kept.delete(oldest);
      }
    }
  }

  get(marketId: string, batch: bigint): AuctionExplanation {
    const kept = this.#kept.get(`${marketId}/${batch}`);
    if (kept === undefined) {
      throw new VenueError(
        'AUCTION_NOT_FOUND',
        `no explanation of batch ${batch} of market ${marketId} is kept: it never ran with orders, or it is older than the last ${AUCTION_EXPLANATIONS_MAX} batches`,
      );
    }
    return kept;
  }
}

export function explain(event: BatchEvent): AuctionExplanation {
  const { result } = event;
  const volume = result.fills.totalQuantity();
  const explanation: AuctionExplanation = {
    market_id: event.marketId,
    batch: event.batch,
    slot: event.slot,
    participants: event.participants,
    candidates_considered: result.candidatesConsidered,
    candidates_out_of_band: result.candidatesOutOfBand,
    shortlist: result.shortlist.map((candidate) => ({
      price: candidate.price,
      demand: candidate.demand,
      supply: candidate.supply,
      executable: candidate.executable,
      surplus: candidate.surplus,
      oracle_distance: candidate.oracleDistance,
    })),
    fills: result.fills.length,
    volume,
    // In the catalogue's order, so equal batches explain byte for byte alike.
    unfilled: NO_FILL_REASONS.flatMap((reason) => {
      const orders = event.unfilled[reason] ?? 0;
      return orders === 0 ? [] : [{ reason, orders }];
    }),
  };
  if (result.clearingPrice !== null) explanation.clearing_price = result.clearingPrice;
  if (result.noClearReason !== null) explanation.no_clear_reason = result.noClearReason;
  if (result.decidedBy !== null) explanation.decided_by = result.decidedBy;
  return explanation;
}
