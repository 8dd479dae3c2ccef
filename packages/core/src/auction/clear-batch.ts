/**
 * The batch auction of one market (decisions section 2, "Matching: frequent uniform-price batch
 * auctions inside an oracle band"): a pure function from the orders taking part and the oracle band
 * to one clearing price, the fills at that price and a record of why.
 *
 * Cost: one priority sort, then per round O(n) for the price and O(n + pairs passed over) for the
 * allocation. Rounds are bounded by the number of fok orders plus one, since every repeated round
 * follows the removal of at least one fok order.
 */
import { AssertionError } from '@venue/protocol';
import { clearRound, type RoundOutcome } from './clear-round.ts';
import { shortFillOrKill, withoutOrders } from './fill-or-kill.ts';
import { sortByPriority } from './priority.ts';
import { SkipLog } from './skip-log.ts';
import type { AuctionInput, AuctionResult } from './types.ts';
import { assertAuctionInput } from './validate-input.ts';

export function clearBatch(input: AuctionInput): AuctionResult {
  assertAuctionInput(input);
  const { oraclePrice, bandLow, bandHigh, priceScale } = input;
  // decisions 2: "with no valid oracle price the market does not clear." No candidate is looked at.
  if (oraclePrice === null) {
    return {
      clearingPrice: null,
      noClearReason: 'no_oracle',
      candidatesConsidered: 0,
      candidatesOutOfBand: 0,
      shortlist: [],
      decidedBy: null,
      fills: [],
      skipped: [],
    };
  }
  const band = { oraclePrice, bandLow, bandHigh };
  let book = sortByPriority(input.orders);
  const killed = new SkipLog();
  const roundsMax = input.orders.filter((order) => order.fillOrKill).length + 1;
  for (let round = 0; round < roundsMax; round += 1) {
    const outcome = clearRound(book, band, priceScale);
    const short = outcome.clearingPrice === null ? [] : shortFillOrKill(book, outcome.fills);
    if (short.length === 0) return batchResult(outcome, killed, input);
    for (const order of short) killed.record(order.ref, 'fill_or_kill');
    book = withoutOrders(book, short);
  }
  throw new AssertionError(`fill-or-kill re-runs exceeded ${roundsMax} rounds`);
}

/** The last round's outcome, preceded in `skipped` by the fok orders earlier rounds removed. */
function batchResult(outcome: RoundOutcome, killed: SkipLog, input: AuctionInput): AuctionResult {
  const result: AuctionResult = {
    clearingPrice: outcome.clearingPrice,
    noClearReason: outcome.noClearReason,
    candidatesConsidered: outcome.ranking.candidatesConsidered,
    candidatesOutOfBand: outcome.ranking.candidatesOutOfBand,
    shortlist: outcome.ranking.shortlist,
    decidedBy: outcome.decidedBy,
    fills: outcome.fills,
    skipped: [...killed.entries, ...outcome.skips.entries],
  };
  assertBatchResult(result, input);
  return result;
}

/** Result invariants that are cheap to check on every batch (TigerBeetle style: kept on). */
function assertBatchResult(result: AuctionResult, input: AuctionInput): void {
  const winner = result.shortlist[0];
  const executable = result.clearingPrice === null ? 0n : (winner?.executable ?? 0n);
  let filled = 0n;
  for (const fill of result.fills) {
    if (fill.quantity <= 0n || fill.quoteAmount <= 0n) {
      throw new AssertionError(`auction fill ${fill.bidRef}/${fill.askRef} moves nothing: ${fill.quantity}`);
    }
    filled += fill.quantity;
  }
  if (filled > executable) {
    throw new AssertionError(`auction filled ${filled} base, more than the executable ${executable}`);
  }
  if (result.skipped.length > 4 * input.orders.length) {
    throw new AssertionError(`auction skip log holds ${result.skipped.length} entries, over 4 per order`);
  }
}
