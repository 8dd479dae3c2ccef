import type { NoFillReason } from '@venue/protocol';
import { AssertionError } from '@venue/protocol';
import { noOracle } from '../auction/clear-batch.ts';
import { NO_FILLS } from '../auction/fill-columns.ts';
import { cannotCross, rankQuietBook } from '../auction/quiet-book.ts';
import type { AuctionResult } from '../auction/types.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { priceBand } from '../market.ts';
import { keepOwn } from '../state/last-unfilled.ts';
import { type Ending, finish } from '../state/order-index.ts';
import type { MarketState, OrderRow, VenueState } from '../state/venue-state.ts';
import { unclearedReason } from './no-fill-reason.ts';

/**
 * A batch over a book that cannot cross, without walking the book (docs/core-auction.md, "A book
 * that cannot cross"). Most markets rest most slots, and the full batch reads every order to learn
 * that nothing trades. Here the price levels' resting counts and totals, kept at every booking,
 * match, settlement and ending (state/book-side.ts), say it in O(1), and the batch record is built
 * from the levels nearest the spread (auction/quiet-book.ts). The events and state are exactly the
 * full batch's: a property test runs both on the same histories.
 *
 * Returns false, having changed nothing, when the shortcut does not apply and the full batch must
 * run: the book can cross, the market or venue is paused, or orders that arrived in this slot are
 * open (they take no part in this batch, but the level totals count them).
 */
export function quietBatch(
  state: VenueState,
  config: CoreConfig,
  market: MarketState,
  events: CoreEvent[],
): boolean {
  const newest = market.columns.newestRow();
  if (newest !== null && newest.arrivalSlot >= state.slot) return false;
  if (market.pausedReason !== null || state.venuePauseReasons.length > 0) return false;
  if (!cannotCross(market.bids, market.asks)) return false;
  // No resting order: no participant, so no batch (as runBatch).
  if (market.bids.restingLevels + market.asks.restingLevels === 0) return true;
  const batch = market.batchCount;
  market.batchCount += 1n;
  const result = quietResult(market);
  // Every resting order takes part (none arrived this slot) and gets the market's reason, as in
  // run-batch.ts applyOutcome: counted from the sides, kept once for the market.
  const reason = unclearedReason(result) as NoFillReason;
  const participants = market.bids.restingOrders + market.asks.restingOrders;
  market.lastUncleared = { batch, slot: state.slot, reason };
  events.push({
    type: 'batch',
    marketId: market.config.marketId,
    batch,
    slot: state.slot,
    result,
    participants,
    unfilled: { [reason]: participants },
  });
  endArrivalBatch(state, config, market, batch, reason, events);
  return true;
}

/** The record clearGatheredBatch would return for this book: not cleared, and why. */
function quietResult(market: MarketState): AuctionResult {
  const oraclePrice = market.oraclePrice;
  if (oraclePrice === null) return noOracle();
  const band = priceBand(market.config, oraclePrice);
  const ranking = rankQuietBook(market.bids, market.asks, {
    oraclePrice,
    bandLow: band.low,
    bandHigh: band.high,
  });
  return {
    clearingPrice: null,
    noClearReason: ranking.shortlist.length === 0 ? 'no_candidate_in_band' : 'no_volume',
    candidatesConsidered: ranking.candidatesConsidered,
    candidatesOutOfBand: ranking.candidatesOutOfBand,
    shortlist: ranking.shortlist,
    decidedBy: null,
    fills: NO_FILLS,
    skipped: [],
  };
}

const IOC_REMAINDER: Ending = { kind: 'cancelled', cancelReason: 'ioc_remainder' };
const FOK_UNFILLED: Ending = { kind: 'cancelled', cancelReason: 'fok_unfilled' };

/**
 * ioc and fok orders in their arrival batch got nothing: they end, in intake order, as in
 * run-batch.ts applyOutcome. Every order due is resting and arrived before this slot (checked by
 * the caller), so each is a participant.
 */
function endArrivalBatch(
  state: VenueState,
  config: CoreConfig,
  market: MarketState,
  batch: bigint,
  reason: NoFillReason,
  events: CoreEvent[],
): void {
  if (market.arrivalBatchDue.size === 0) return;
  const due: OrderRow[] = [...market.arrivalBatchDue];
  market.arrivalBatchDue.clear();
  const unfilled = { batch, slot: state.slot, reason };
  for (const row of due) {
    if (row.state !== 'resting')
      throw new AssertionError(`order ${row.orderId} due its arrival batch is ${row.state}`);
    row.arrivalBatchDone = true;
    row.fillOrKill = false;
    market.columns.fillOrKill[row.slot] = 0;
    keepOwn(row, unfilled);
  }
  for (const row of due) {
    const ended = finish(state, config, row, row.orderType === 'ioc' ? IOC_REMAINDER : FOK_UNFILLED);
    events.push({ ...ended, unfilledReason: reason });
  }
}
