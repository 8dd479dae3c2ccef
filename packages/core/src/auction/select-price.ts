/**
 * Choosing the clearing price (decisions section 2): "One clearing price per market per batch,
 * chosen among the limit prices of the eligible orders: maximise executable volume; then minimise
 * the unmatched surplus at that price; then nearest to the oracle reference price; then the lower
 * price."
 *
 * Cost: one pass over price levels after the priority sort, so O(n) here and O(n log n) overall.
 */
import { AssertionError } from '@venue/protocol';
import type { LevelTotals } from './gathered.ts';
import type { BookByPriority } from './priority.ts';
import { AUCTION_SHORTLIST_MAX, type AuctionOrder, type CandidatePrice, type DecidedBy } from './types.ts';
import type { BookUnits } from './units.ts';

if (AUCTION_SHORTLIST_MAX < 2) {
  // The runner-up must survive in the shortlist for `decidedBy` to be computed.
  throw new AssertionError(`AUCTION_SHORTLIST_MAX must be >= 2, is ${AUCTION_SHORTLIST_MAX}`);
}

export interface OracleBand {
  readonly oraclePrice: bigint;
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
}

export interface PriceRanking {
  readonly candidatesConsidered: number;
  readonly candidatesOutOfBand: number;
  /** In-band candidates in rank order, best first, at most AUCTION_SHORTLIST_MAX. */
  readonly shortlist: readonly CandidatePrice[];
}

/** Negative when `a` ranks above `b`. Candidate prices are distinct, so two candidates never tie. */
export function compareCandidates(a: CandidatePrice, b: CandidatePrice): number {
  if (a.executable !== b.executable) return a.executable > b.executable ? -1 : 1;
  if (a.surplus !== b.surplus) return a.surplus < b.surplus ? -1 : 1;
  if (a.oracleDistance !== b.oracleDistance) return a.oracleDistance < b.oracleDistance ? -1 : 1;
  if (a.price !== b.price) return a.price < b.price ? -1 : 1;
  return 0;
}

/** The first criterion, in the decisions' order, on which the winner beats the runner-up. */
export function decidedBy(shortlist: readonly CandidatePrice[]): DecidedBy {
  const [winner, runnerUp] = shortlist;
  if (winner === undefined) throw new AssertionError('decidedBy needs at least one candidate');
  if (runnerUp === undefined) return 'only_candidate';
  if (winner.executable !== runnerUp.executable) return 'volume';
  if (winner.surplus !== runnerUp.surplus) return 'surplus';
  if (winner.oracleDistance !== runnerUp.oracleDistance) return 'oracle_distance';
  return 'lower_price';
}

/**
 * Evaluates every candidate price of the book and keeps the best AUCTION_SHORTLIST_MAX in band.
 * With `units` (units.ts) the running demand and supply are numbers, converted to bigints once per
 * price level; without, bigints throughout. Both give the same candidates.
 */
export function rankCandidates(
  book: BookByPriority,
  band: OracleBand,
  units: BookUnits | null,
): PriceRanking {
  const { bids, asks } = book;
  const shortlist: CandidatePrice[] = [];
  let candidatesConsidered = 0;
  let candidatesOutOfBand = 0;
  // Walk the limits upwards: bids are in descending limit, so from their end; asks from their start
  // (limit 0 first). Demand at p is every bid's volume minus the bids limited strictly below p;
  // supply at p is every ask limited at or below p.
  let demand = units === null ? bids.reduce((sum, bid) => sum + bid.remaining, 0n) : 0n;
  let supply = 0n;
  let demandUnits = units === null ? 0 : units.bids.total;
  let supplyUnits = 0;
  let b = bids.length - 1;
  let a = 0;
  // decisions 2: "A zero-limit ask accepts any clearing price but never proposes one." Zero-limit
  // asks come first among the asks: they count as supply at every price and are never candidates.
  // (A bid's limit is never 0: the decoder refuses it and validate-input.ts asserts it.)
  for (let next = asks[a]; next !== undefined && next.priceLimit === 0n; next = asks[a]) {
    if (units === null) supply += next.remaining;
    else supplyUnits += units.asks.remaining[a] as number;
    a += 1;
  }
  for (let step = 0; step < bids.length + asks.length; step += 1) {
    if (b < 0 && a >= asks.length) break;
    const price = lowerLimit(bids[b], asks[a]);
    for (let next = asks[a]; next !== undefined && next.priceLimit === price; next = asks[a]) {
      if (units === null) supply += next.remaining;
      else supplyUnits += units.asks.remaining[a] as number;
      a += 1;
    }
    const demandAtPrice = demand;
    const demandUnitsAtPrice = demandUnits;
    for (let next = bids[b]; next !== undefined && next.priceLimit === price; next = bids[b]) {
      if (units === null) demand -= next.remaining;
      else demandUnits -= units.bids.remaining[b] as number;
      b -= 1;
    }
    candidatesConsidered += 1;
    // decisions 2: "Candidate prices outside the market's oracle band (the circuit-breaker policy)
    // are never chosen".
    if (price < band.bandLow || price > band.bandHigh) {
      candidatesOutOfBand += 1;
      continue;
    }
    const demandHere = units === null ? demandAtPrice : BigInt(demandUnitsAtPrice);
    const supplyHere = units === null ? supply : BigInt(supplyUnits);
    offer(shortlist, candidate(price, demandHere, supplyHere, band.oraclePrice));
  }
  return { candidatesConsidered, candidatesOutOfBand, shortlist };
}

/**
 * rankCandidates for a book the core gathered (gathered.ts): the same upward sweep, a price level at
 * a time instead of an order at a time, from the levels' totals. The sums are of safe integers in
 * the same order as the per-order sweep adds them, so every candidate is the same.
 */
export function rankLevels(bids: LevelTotals, asks: LevelTotals, band: OracleBand): PriceRanking {
  const shortlist: CandidatePrice[] = [];
  let candidatesConsidered = 0;
  let candidatesOutOfBand = 0;
  let demand = 0;
  for (let level = 0; level < bids.count; level += 1) demand += bids.units[level] as number;
  let supply = 0;
  let b = bids.count - 1;
  let a = 0;
  // decisions 2: a zero-limit ask is supply at every price and never a candidate (see above).
  if (a < asks.count && asks.prices[a] === 0n) {
    supply += asks.units[a] as number;
    a += 1;
  }
  while (b >= 0 || a < asks.count) {
    const bidPrice = bids.prices[b];
    const askPrice = asks.prices[a];
    const price =
      bidPrice === undefined
        ? (askPrice as bigint)
        : askPrice === undefined || bidPrice < askPrice
          ? bidPrice
          : askPrice;
    if (askPrice === price) {
      supply += asks.units[a] as number;
      a += 1;
    }
    const demandAtPrice = demand;
    if (bidPrice === price) {
      demand -= bids.units[b] as number;
      b -= 1;
    }
    candidatesConsidered += 1;
    if (price < band.bandLow || price > band.bandHigh) {
      candidatesOutOfBand += 1;
      continue;
    }
    offer(shortlist, candidate(price, BigInt(demandAtPrice), BigInt(supply), band.oraclePrice));
  }
  return { candidatesConsidered, candidatesOutOfBand, shortlist };
}

/** The lower limit of two orders, at least one of which exists. */
function lowerLimit(bid: AuctionOrder | undefined, ask: AuctionOrder | undefined): bigint {
  if (bid === undefined) {
    if (ask === undefined) throw new AssertionError('the candidate walk ran past both sides');
    return ask.priceLimit;
  }
  if (ask === undefined) return bid.priceLimit;
  return bid.priceLimit < ask.priceLimit ? bid.priceLimit : ask.priceLimit;
}

function absoluteDifference(a: bigint, b: bigint): bigint {
  return a > b ? a - b : b - a;
}

export function candidate(
  price: bigint,
  demand: bigint,
  supply: bigint,
  oraclePrice: bigint,
): CandidatePrice {
  return {
    price,
    demand,
    supply,
    executable: demand < supply ? demand : supply,
    surplus: absoluteDifference(demand, supply),
    oracleDistance: absoluteDifference(price, oraclePrice),
  };
}

/** Inserts `entry` into the rank-ordered shortlist if it belongs among the best AUCTION_SHORTLIST_MAX. */
function offer(shortlist: CandidatePrice[], entry: CandidatePrice): void {
  const last = shortlist[shortlist.length - 1];
  if (shortlist.length === AUCTION_SHORTLIST_MAX && last !== undefined) {
    if (compareCandidates(entry, last) > 0) return;
    shortlist.pop();
  }
  let at = shortlist.length;
  for (; at > 0; at -= 1) {
    const above = shortlist[at - 1];
    if (above !== undefined && compareCandidates(above, entry) < 0) break;
  }
  shortlist.splice(at, 0, entry);
}
