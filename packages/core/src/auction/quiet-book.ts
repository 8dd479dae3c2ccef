/**
 * The price ranking of a book that cannot cross: no resting bid's limit reaches a resting ask's
 * (docs/core-auction.md, "A book that cannot cross"). Every candidate then executes nothing, so the
 * batch does not clear, and what its record still says (candidates counted, out of band, the
 * shortlist) follows from the levels nearest the spread alone:
 * - at a bid's limit p no ask is eligible (every ask asks more), so supply is 0 and the surplus is
 *   the demand, which grows strictly as p falls (each level adds resting base): the best bid
 *   candidates are the highest bid levels in band. Symmetrically for asks, from the lowest up.
 * - the shortlist is therefore the best AUCTION_SHORTLIST_MAX of the first AUCTION_SHORTLIST_MAX
 *   in-band levels of each side, in the same rank order rankCandidates uses.
 * The walk reads levels from the spread outwards and stops once it has its candidates and has
 * passed every level with no resting order; the levels beyond are counted by binary search. Its
 * cost is the levels outside the band on the near side plus the shortlist, not the book.
 */
import { AssertionError } from '@venue/protocol';
import { candidate, compareCandidates, type OracleBand, type PriceRanking } from './select-price.ts';
import { AUCTION_SHORTLIST_MAX, type CandidatePrice } from './types.ts';

/** A price level as the ranking reads it: what its resting orders (the batch's participants) hold. */
export interface QuietLevel {
  readonly price: bigint;
  /** Resting orders at this price (0: every order here is pending settlement). */
  readonly resting: number;
  /** Their remaining base, summed. */
  readonly restingUnits: bigint;
}

/** One side, best price first (bids descending, asks ascending with limit 0 first). */
export interface QuietSide {
  readonly descending: boolean;
  readonly levels: readonly QuietLevel[];
  /** Levels with resting > 0. */
  readonly restingLevels: number;
}

/** The best level holding a resting order, or null. Skips levels whose orders all wait on settlement. */
export function bestRestingLevel(side: QuietSide): QuietLevel | null {
  for (const level of side.levels) if (level.resting > 0) return level;
  return null;
}

/** True when no resting bid can meet a resting ask at any price (a zero-limit ask meets every bid). */
export function cannotCross(bids: QuietSide, asks: QuietSide): boolean {
  const bid = bestRestingLevel(bids);
  const ask = bestRestingLevel(asks);
  return bid === null || ask === null || bid.price < ask.price;
}

/** rankCandidates's result for a book that cannot cross (the caller checked it with cannotCross). */
export function rankQuietBook(bids: QuietSide, asks: QuietSide, band: OracleBand): PriceRanking {
  if (!cannotCross(bids, asks)) throw new AssertionError('rankQuietBook on a book that can cross');
  const bidWalk = walkSide(bids, band);
  const askWalk = walkSide(asks, band);
  const shortlist = [...bidWalk.candidates, ...askWalk.candidates]
    .sort(compareCandidates)
    .slice(0, AUCTION_SHORTLIST_MAX);
  return {
    candidatesConsidered: bidWalk.considered + askWalk.considered,
    candidatesOutOfBand: bidWalk.outOfBand + askWalk.outOfBand,
    shortlist,
  };
}

interface SideWalk {
  readonly candidates: CandidatePrice[];
  readonly considered: number;
  readonly outOfBand: number;
}

function walkSide(side: QuietSide, band: OracleBand): SideWalk {
  const { levels } = side;
  const idleLevels = levels.length - side.restingLevels;
  const candidates: CandidatePrice[] = [];
  let idleSeen = 0;
  let considered = 0;
  let outOfBand = 0;
  // Demand (bids) or supply (asks) at the level reached: its own base and every better level's.
  let cumulative = 0n;
  let index = 0;
  for (; index < levels.length; index += 1) {
    if (candidates.length === AUCTION_SHORTLIST_MAX && idleSeen === idleLevels) break;
    const level = levels[index] as QuietLevel;
    if (level.resting === 0) {
      idleSeen += 1;
      continue;
    }
    cumulative += level.restingUnits;
    // decisions 2: a zero-limit ask is supply at every price and never a candidate.
    if (level.price === 0n) continue;
    considered += 1;
    if (level.price < band.bandLow || level.price > band.bandHigh) {
      outOfBand += 1;
      continue;
    }
    if (candidates.length === AUCTION_SHORTLIST_MAX) continue;
    candidates.push(
      side.descending
        ? candidate(level.price, cumulative, 0n, band.oraclePrice)
        : candidate(level.price, 0n, cumulative, band.oraclePrice),
    );
  }
  // Every level not walked holds a resting order (the idle ones were all passed) and lies beyond an
  // in-band candidate, so it is in band or past the band's far edge.
  const far = firstPastFarEdge(side, index, band);
  considered += levels.length - index;
  outOfBand += levels.length - far;
  return { candidates, considered, outOfBand };
}

/** The first index from `from` whose price lies past the band on the side's far end (binary search). */
function firstPastFarEdge(side: QuietSide, from: number, band: OracleBand): number {
  const { levels, descending } = side;
  let low = from;
  let high = levels.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const price = (levels[middle] as QuietLevel).price;
    const past = descending ? price < band.bandLow : price > band.bandHigh;
    if (past) high = middle;
    else low = middle + 1;
  }
  return low;
}
