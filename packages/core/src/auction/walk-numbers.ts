/**
 * The allocation walk over numbers, for rounds whose quantities are all safe integers (below 2^53,
 * where doubles add, subtract and compare exactly). The steps are walk-bigints.ts's, in the same
 * order with the same records; what changes is the arithmetic: quantities live in typed arrays, the
 * zero-quote check compares with the smallest quantity that moves quote (computed once, exactly),
 * and only a fill computes its quote, in doubles while the product is a safe integer (bigints past
 * it). Fills go to columns (fill-columns.ts), with no object per fill. allocate.ts describes the walk.
 */
import { AssertionError } from '@venue/protocol';
import {
  type AllocationRound,
  assertStrictBound,
  BLAME_ASK,
  BLAME_BID,
  type PassBudget,
} from './allocation-round.ts';
import { FillColumns } from './fill-columns.ts';
import { IDENTITIES_AFTER_PASSES, RoundIdentities } from './identities.ts';
import { compareTime } from './priority.ts';
import { quoteAmount, quoteUnitsOf } from './quote.ts';
import type { SkipLog } from './skip-log.ts';
import type { AuctionOrder } from './types.ts';
import { type BookUnits, SAFE_UNITS } from './units.ts';

const SAFE = BigInt(SAFE_UNITS);

/**
 * The smallest quantity whose quote is at least 1: floor(q x P / S) >= 1 exactly when q >= ceil(S / P).
 * Infinity when that is beyond every safe quantity (then no pair moves quote).
 */
function smallestQuoted(price: bigint, priceScale: bigint): number {
  const smallest = (priceScale + price - 1n) / price;
  return smallest > SAFE ? Number.POSITIVE_INFINITY : Number(smallest);
}

/** The walk reads the eligible prefix of each side's columns (the round's bids and asks). */
function checkedUnits(round: AllocationRound, units: BookUnits): void {
  if (units.bids.remaining.length < round.bids.length || units.asks.remaining.length < round.asks.length) {
    throw new AssertionError('the number walk was given columns shorter than its round');
  }
}

export function walkNumbers(
  round: AllocationRound,
  units: BookUnits,
  skips: SkipLog,
  budget: PassBudget,
): FillColumns {
  const { bids, asks, clearingPrice, priceScale } = round;
  if (!(clearingPrice > 0n)) throw new AssertionError('allocation needs a positive clearing price');
  checkedUnits(round, units);
  const quoted = smallestQuoted(clearingPrice, priceScale);
  // NaN when beyond 2^53: quoteUnitsOf then answers NaN and the bigints decide.
  const priceUnits = clearingPrice <= SAFE ? Number(clearingPrice) : Number.NaN;
  const scaleUnits = priceScale <= SAFE ? Number(priceScale) : Number.NaN;
  const end = asks.length;
  const askLeft = units.asks.remaining.slice(0, end);
  const askMin = units.asks.minFill;
  // A singly linked list over the asks with base left, in priority; `end` terminates it.
  const nextLive = new Int32Array(end);
  for (let index = 0; index < end; index += 1) nextLive[index] = index + 1;
  let head = 0;
  // The executable volume is at most a side's total, so it is a safe integer too.
  let volumeLeft = Number(round.volumeMax);
  let strictPasses = 0;
  let passes = 0;
  // Named identities, once this walk has passed over enough pairs to pay for naming (identities.ts).
  let names: RoundIdentities | null = null;
  // A gathered book (gathered.ts) brings refs and identity prints as columns: the walk then reads
  // an order only when the prints cannot rule out a self-trade.
  const bidRefs = units.bids.refs;
  const askRefs = units.asks.refs;
  const bidPrints = units.bids.prints;
  const askPrints = units.asks.prints;
  const fills = new FillColumns();
  for (let bidIndex = 0; bidIndex < bids.length; bidIndex += 1) {
    if (volumeLeft === 0) break;
    const bid = bids[bidIndex] as AuctionOrder;
    const bidRef = bidRefs === null ? bid.ref : (bidRefs[bidIndex] as number);
    const bidKey = bidPrints === null ? 0 : (bidPrints.key[bidIndex] as number);
    const bidOwner = bidPrints === null ? 0 : (bidPrints.owner[bidIndex] as number);
    let bidLeft = units.bids.remaining[bidIndex] as number;
    const bidMin = units.bids.minFill[bidIndex] as number;
    let previous = -1;
    let index = head;
    while (index !== end && bidLeft > 0 && volumeLeft > 0) {
      const ask = asks[index] as AuctionOrder;
      const left = askLeft[index] as number;
      const following = nextLive[index] as number;
      let blamed = 0;
      let askRanOut = false;
      const askRef = askRefs === null ? ask.ref : (askRefs[index] as number);
      // Checks in walk-bigints.ts's order; the first failing one is the only one recorded.
      let selfTrade = false;
      const printsDiffer =
        bidPrints !== null &&
        askPrints !== null &&
        bidKey !== askPrints.key[index] &&
        bidOwner !== askPrints.owner[index];
      if (!printsDiffer) {
        // The prints are read only by a printed RoundIdentities (both sides gathered).
        selfTrade =
          names === null
            ? bid.tradingKey === ask.tradingKey || bid.owner === ask.owner
            : names.selfTrade(
                bidIndex,
                bid,
                bidKey,
                bidOwner,
                index,
                ask,
                askPrints === null ? 0 : (askPrints.key[index] as number),
                askPrints === null ? 0 : (askPrints.owner[index] as number),
              );
      }
      if (selfTrade) {
        const earlier = names === null ? compareTime(bid, ask) : names.compareTime(bid, bidIndex, ask, index);
        const askIsLater = earlier < 0;
        skips.record(askIsLater ? askRef : bidRef, 'self_trade');
        blamed = askIsLater ? BLAME_ASK : BLAME_BID;
      } else {
        const quantity = Math.min(bidLeft, left, volumeLeft);
        const askMinFill = askMin[index] as number;
        if (quantity < bidMin || quantity < askMinFill) {
          if (quantity < bidMin) skips.record(bidRef, 'min_fill');
          if (quantity < askMinFill) skips.record(askRef, 'min_fill');
          blamed = (quantity < bidMin ? BLAME_BID : 0) | (quantity < askMinFill ? BLAME_ASK : 0);
        } else if (quantity < quoted) {
          skips.record(bidRef, 'zero_quote');
          skips.record(askRef, 'zero_quote');
          // The order whose whole size moves no quote; both only if neither (see walk-bigints.ts).
          const dust = (bidLeft < quoted ? BLAME_BID : 0) | (left < quoted ? BLAME_ASK : 0);
          blamed = dust === 0 ? BLAME_BID | BLAME_ASK : dust;
        } else {
          // The quote in numbers while exact; NaN sends it to the bigints (a product beyond 2^53).
          const quote = quoteUnitsOf(quantity, priceUnits, scaleUnits);
          if (Number.isNaN(quote)) {
            const base = BigInt(quantity);
            fills.push(bidRef, askRef, base, quoteAmount(base, clearingPrice, priceScale));
          } else {
            fills.pushUnits(bidRef, askRef, quantity, quote);
          }
          bidLeft -= quantity;
          volumeLeft -= quantity;
          askLeft[index] = left - quantity;
          askRanOut = left === quantity;
        }
      }
      if (blamed !== 0) {
        passes += 1;
        if (names === null && passes >= IDENTITIES_AFTER_PASSES)
          names = new RoundIdentities(bids.length, end, bidPrints !== null && askPrints !== null);
        if (budget.passesLeft > 0) {
          budget.passesLeft -= 1;
          blamed = 0;
        } else {
          strictPasses += 1;
        }
      }
      // An ask that ran out, or that the strict walk parked, leaves the list for this round.
      if (askRanOut || (blamed & BLAME_ASK) !== 0) {
        if (previous === -1) head = following;
        else nextLive[previous] = following;
      } else {
        previous = index;
      }
      index = following;
      if ((blamed & BLAME_BID) !== 0) break;
    }
  }
  assertStrictBound(strictPasses, round);
  return fills;
}
