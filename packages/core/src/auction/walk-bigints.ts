/**
 * The allocation walk over bigints: exact for any u64 quantity, used when some quantity of the round
 * is beyond 2^53 (walk-numbers.ts takes the others, with the same steps). allocate.ts describes the
 * walk.
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
import { compareTime } from './priority.ts';
import { quoteAmount } from './quote.ts';
import type { SkipLog } from './skip-log.ts';
import type { AuctionOrder } from './types.ts';

export function walkBigints(round: AllocationRound, skips: SkipLog, budget: PassBudget): FillColumns {
  const { bids, asks, clearingPrice, priceScale } = round;
  const end = asks.length;
  const askLeft = asks.map((ask) => ask.remaining);
  // A singly linked list over the asks with base left, in priority; `end` terminates it.
  const nextLive = new Int32Array(end);
  for (let index = 0; index < end; index += 1) nextLive[index] = index + 1;
  let head = 0;
  let volumeLeft = round.volumeMax;
  let strictPasses = 0;
  const fills = new FillColumns();
  for (const bid of bids) {
    if (volumeLeft === 0n) break;
    let bidLeft = bid.remaining;
    let previous = -1;
    let index = head;
    while (index !== end && bidLeft > 0n && volumeLeft > 0n) {
      const ask = asks[index] as AuctionOrder;
      const left = askLeft[index] as bigint;
      const following = nextLive[index] as number;
      let blamed = 0;
      let askRanOut = false;
      // Checks in a fixed order; the first failing one is the only one recorded.
      // decisions 2: "Self-trade: two orders of the same trading key, or backed by notes of the same
      // owner, never match each other; say which one waits." The later arrival waits: the earlier
      // order keeps the place its time priority earned, and either may still fill against others.
      if (bid.tradingKey === ask.tradingKey || bid.owner === ask.owner) {
        const askIsLater = compareTime(bid, ask) < 0;
        skips.record(askIsLater ? ask.ref : bid.ref, 'self_trade');
        blamed = askIsLater ? BLAME_ASK : BLAME_BID;
      } else {
        const quantity = min(min(bidLeft, left), volumeLeft);
        // decisions 2: "`min_fill_size` binds both sides of every fill; `min_fill_size == amount` is
        // all-or-none; an order that cannot be filled within its constraints is skipped for that
        // batch, never partly violated."
        const bidRefuses = quantity < bid.minFill;
        const askRefuses = quantity < ask.minFill;
        if (bidRefuses || askRefuses) {
          if (bidRefuses) skips.record(bid.ref, 'min_fill');
          if (askRefuses) skips.record(ask.ref, 'min_fill');
          blamed = (bidRefuses ? BLAME_BID : 0) | (askRefuses ? BLAME_ASK : 0);
        } else {
          const quote = quoteAmount(quantity, clearingPrice, priceScale);
          if (quote === 0n) {
            // A fill must move quote (types.ts: quoteAmount > 0); base for nothing is passed over.
            skips.record(bid.ref, 'zero_quote');
            skips.record(ask.ref, 'zero_quote');
            blamed = dustBlame(bidLeft, left, round);
          } else {
            fills.push(bid.ref, ask.ref, quantity, quote);
            bidLeft -= quantity;
            volumeLeft -= quantity;
            askLeft[index] = left - quantity;
            askRanOut = left === quantity;
          }
        }
      }
      if (blamed !== 0) {
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
  if (volumeLeft < 0n) throw new AssertionError('allocation filled beyond the executable volume');
  assertStrictBound(strictPasses, round);
  return fills;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * A zero-quote pass is blamed on the order(s) whose whole remaining size would move no quote: the
 * other one could still fill against a larger counterparty, so a dust order does not hold it back.
 * Both when neither (only possible if the volume cap bound, which it cannot; see allocate.ts).
 */
function dustBlame(bidLeft: bigint, askLeft: bigint, round: AllocationRound): number {
  const dust =
    (quoteAmount(bidLeft, round.clearingPrice, round.priceScale) === 0n ? BLAME_BID : 0) |
    (quoteAmount(askLeft, round.clearingPrice, round.priceScale) === 0n ? BLAME_ASK : 0);
  return dust === 0 ? BLAME_BID | BLAME_ASK : dust;
}
