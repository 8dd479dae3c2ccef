/**
 * The batch auction of one market (decisions section 2, "Matching: frequent uniform-price batch
 * auctions inside an oracle band"): a pure function from the orders taking part and the oracle band
 * to one clearing price, the fills at that price and a record of why.
 *
 * Two entries: `clearBatch` takes the orders in any order and sorts them by priority;
 * `clearSortedBatch` takes both sides already in priority (the core keeps its book that way) and
 * only checks that they are. Both then run the same rounds.
 *
 * Cost: per round O(n) for the price and O(n + pairs passed over) for the allocation. Pairs passed
 * over are bounded per batch and rounds by FILL_OR_KILL_ROUNDS_MAX + 1 (limits.ts), so a batch is
 * O(ALLOCATION_PASSES_MAX + rounds x n) whatever the book.
 */
import { AssertionError } from '@venue/protocol';
import type { PassBudget } from './allocate.ts';
import { clearRound, type GatheredRound, type RoundOutcome } from './clear-round.ts';
import { NO_FILLS } from './fill-columns.ts';
import { fillOrKillOrders, shortFillOrKill, withoutOrders } from './fill-or-kill.ts';
import { assertGatheredSides, type GatheredAuctionInput } from './gathered.ts';
import { type Arithmetic, AUCTION_LIMITS, type AuctionLimits } from './limits.ts';
import { type BookByPriority, type SortedAuctionInput, sortByPriority } from './priority.ts';
import type { OracleBand } from './select-price.ts';
import { SkipLog } from './skip-log.ts';
import type { AuctionInput, AuctionOrder, AuctionResult } from './types.ts';
import { sideUnitsOf } from './units.ts';
import { assertAuctionInput, assertMarketFields, assertSortedAuctionInput } from './validate-input.ts';

/** `limits` and `arithmetic` are for tests: the venue runs with AUCTION_LIMITS, 'fastest'. */
export function clearBatch(
  input: AuctionInput,
  limits: AuctionLimits = AUCTION_LIMITS,
  arithmetic: Arithmetic = 'fastest',
): AuctionResult {
  assertAuctionInput(input);
  const { oraclePrice } = input;
  if (oraclePrice === null) return noOracle();
  const market = marketOf(input, oraclePrice, arithmetic);
  return clearBook(sortByPriority(input.orders), market, limits, input.orders.length);
}

export function clearSortedBatch(
  input: SortedAuctionInput,
  limits: AuctionLimits = AUCTION_LIMITS,
  arithmetic: Arithmetic = 'fastest',
): AuctionResult {
  assertSortedAuctionInput(input);
  const { oraclePrice } = input;
  if (oraclePrice === null) return noOracle();
  const count = input.bids.length + input.asks.length;
  return clearBook(
    { bids: input.bids, asks: input.asks },
    marketOf(input, oraclePrice, arithmetic),
    limits,
    count,
  );
}

/**
 * The core's entry for books it gathered in one pass (gathered.ts): the same auction as
 * clearSortedBatch on the same orders, with the first round reading the gathered columns and level
 * totals instead of the orders. Later fill-or-kill rounds work from the orders, as clearSortedBatch does.
 */
export function clearGatheredBatch(
  input: GatheredAuctionInput,
  limits: AuctionLimits = AUCTION_LIMITS,
): AuctionResult {
  assertMarketFields(input);
  const { bids, asks, oraclePrice } = input;
  assertGatheredSides(bids, asks);
  if (oraclePrice === null) return noOracle();
  const count = bids.orders.length + asks.orders.length;
  const gathered: GatheredRound = {
    units: {
      bids: sideUnitsOf(bids.units.remaining, bids.units.minFill, bids.units.total, bids.refs, bids.prints),
      asks: sideUnitsOf(asks.units.remaining, asks.units.minFill, asks.units.total, asks.refs, asks.prints),
    },
    bidLevels: bids.levels,
    askLevels: asks.levels,
  };
  return clearBook(
    { bids: bids.orders, asks: asks.orders },
    marketOf(input, oraclePrice, 'fastest'),
    limits,
    count,
    { round: gathered, fillOrKillCount: bids.fillOrKillCount + asks.fillOrKillCount },
  );
}

/** decisions 2: "with no valid oracle price the market does not clear." No candidate is looked at. */
export function noOracle(): AuctionResult {
  return {
    clearingPrice: null,
    noClearReason: 'no_oracle',
    candidatesConsidered: 0,
    candidatesOutOfBand: 0,
    shortlist: [],
    decidedBy: null,
    fills: NO_FILLS,
    skipped: [],
  };
}

interface Market extends OracleBand {
  readonly priceScale: bigint;
  readonly arithmetic: Arithmetic;
}

/** One literal for every entry, so the rounds see one shape of market (see units.ts sideUnitsOf). */
function marketOf(
  input: { readonly bandLow: bigint; readonly bandHigh: bigint; readonly priceScale: bigint },
  oraclePrice: bigint,
  arithmetic: Arithmetic,
): Market {
  return {
    oraclePrice,
    bandLow: input.bandLow,
    bandHigh: input.bandHigh,
    priceScale: input.priceScale,
    arithmetic,
  };
}

/**
 * Rounds until no fill-or-kill order is left short. A round that leaves fok orders short removes
 * them and prices the batch again without them, at most FILL_OR_KILL_ROUNDS_MAX times; past that,
 * every fok order left is removed at once and the last round runs without any.
 */
function clearBook(
  sorted: BookByPriority,
  market: Market,
  limits: AuctionLimits,
  orderCount: number,
  gathered: { readonly round: GatheredRound; readonly fillOrKillCount: number } | null = null,
): AuctionResult {
  const budget: PassBudget = { passesLeft: limits.allocationPassesMax };
  const killed = new SkipLog(orderCount);
  let book = sorted;
  let fokLeft = gathered === null ? fillOrKillOrders(book).length : gathered.fillOrKillCount;
  for (let round = 0; round < limits.fillOrKillRoundsMax; round += 1) {
    // The gathered columns describe the book as handed over: the first round's only.
    const columns = round === 0 && gathered !== null ? gathered.round : null;
    const outcome = clearRound(
      book,
      market,
      market.priceScale,
      budget,
      orderCount,
      market.arithmetic,
      columns,
    );
    const short = outcome.clearingPrice === null || fokLeft === 0 ? [] : shortFillOrKill(book, outcome.fills);
    if (short.length === 0) return batchResult(outcome, killed, orderCount);
    for (const order of short) killed.record(order.ref, 'fill_or_kill');
    book = withoutOrders(book, short);
    fokLeft -= short.length;
  }
  const rest = fillOrKillOrders(book).sort(bySequence);
  for (const order of rest) killed.record(order.ref, 'fill_or_kill');
  const outcome = clearRound(
    withoutOrders(book, rest),
    market,
    market.priceScale,
    budget,
    orderCount,
    market.arithmetic,
  );
  return batchResult(outcome, killed, orderCount);
}

function bySequence(a: AuctionOrder, b: AuctionOrder): number {
  return a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0;
}

/** The last round's outcome, preceded in `skipped` by the fok orders earlier rounds removed. */
function batchResult(outcome: RoundOutcome, killed: SkipLog, orderCount: number): AuctionResult {
  const result: AuctionResult = {
    clearingPrice: outcome.clearingPrice,
    noClearReason: outcome.noClearReason,
    candidatesConsidered: outcome.ranking.candidatesConsidered,
    candidatesOutOfBand: outcome.ranking.candidatesOutOfBand,
    shortlist: outcome.ranking.shortlist,
    decidedBy: outcome.decidedBy,
    fills: outcome.fills,
    skipped:
      killed.entries.length === 0 ? outcome.skips.entries : [...killed.entries, ...outcome.skips.entries],
  };
  assertBatchResult(result, orderCount);
  return result;
}

/** Result invariants that are cheap to check on every batch (TigerBeetle style: kept on). */
function assertBatchResult(result: AuctionResult, orderCount: number): void {
  const winner = result.shortlist[0];
  const executable = result.clearingPrice === null ? 0n : (winner?.executable ?? 0n);
  const fills = result.fills;
  for (let index = 0; index < fills.length; index += 1) {
    const quantity = fills.quantityUnits(index);
    const quote = fills.quoteUnits(index);
    // NaN: an amount beyond 2^53, checked as a bigint.
    const moves =
      !Number.isNaN(quantity) && !Number.isNaN(quote)
        ? quantity > 0 && quote > 0
        : fills.quantity(index) > 0n && fills.quoteAmount(index) > 0n;
    if (!moves) {
      throw new AssertionError(
        `auction fill ${fills.bidRef(index)}/${fills.askRef(index)} moves nothing: ${fills.quantity(index)}`,
      );
    }
  }
  const filled = fills.totalQuantity();
  if (filled > executable) {
    throw new AssertionError(`auction filled ${filled} base, more than the executable ${executable}`);
  }
  if (result.skipped.length > 4 * orderCount) {
    throw new AssertionError(`auction skip log holds ${result.skipped.length} entries, over 4 per order`);
  }
}
