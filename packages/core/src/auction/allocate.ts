/**
 * Allocation at the clearing price: a greedy, deterministic walk. Bids are taken in priority; each
 * bid walks the asks in priority that still have base left and fills
 * q = min(bid left, ask left, volume left), where volume left starts at the winning candidate's
 * executable volume. (That cap cannot bind before one side runs out, since the executable volume is
 * the smaller of the two sides' totals; it is kept as the stated bound the result is checked
 * against.) A pair that would break a rule is passed over, never partly filled, and the walk moves
 * on to the next ask.
 *
 * Cost: asks that run out are unlinked, so a walk only revisits asks it passed over; with no pair
 * passed over the whole walk is O(bids + asks). The worst case is O(bids x asks) pairs, each O(1).
 */
import { AssertionError } from '@venue/protocol';
import { compareTime } from './priority.ts';
import { quoteAmount } from './quote.ts';
import type { SkipLog } from './skip-log.ts';
import type { AuctionOrder, Fill } from './types.ts';

export interface AllocationRound {
  /** Bids eligible at the clearing price, in priority. */
  readonly bids: readonly AuctionOrder[];
  /** Asks eligible at the clearing price, in priority. */
  readonly asks: readonly AuctionOrder[];
  readonly clearingPrice: bigint;
  /** The winning candidate's executable volume: total base filled never exceeds it. */
  readonly volumeMax: bigint;
  readonly priceScale: bigint;
}

const MISSING = 'allocation walked past the end of its ask arrays';

export function allocate(round: AllocationRound, skips: SkipLog): Fill[] {
  const { bids, asks } = round;
  const end = asks.length;
  const askLeft = asks.map((ask) => ask.remaining);
  // A singly linked list over the asks with base left, in priority; `end` terminates it.
  const nextLive = new Int32Array(end);
  for (let index = 0; index < end; index += 1) nextLive[index] = index + 1;
  let head = 0;
  let volumeLeft = round.volumeMax;
  const fills: Fill[] = [];
  for (const bid of bids) {
    if (volumeLeft === 0n) break;
    let bidLeft = bid.remaining;
    let previous = -1;
    let index = head;
    while (index !== end && bidLeft > 0n && volumeLeft > 0n) {
      const ask = asks[index];
      const left = askLeft[index];
      const following = nextLive[index];
      if (ask === undefined || left === undefined || following === undefined)
        throw new AssertionError(MISSING);
      const quantity = min(min(bidLeft, left), volumeLeft);
      const quote = pairQuote(bid, ask, quantity, round, skips);
      if (quote > 0n) {
        fills.push({ bidRef: bid.ref, askRef: ask.ref, quantity, quoteAmount: quote });
        bidLeft -= quantity;
        volumeLeft -= quantity;
        askLeft[index] = left - quantity;
        if (left === quantity) {
          if (previous === -1) head = following;
          else nextLive[previous] = following;
          index = following;
          continue;
        }
      }
      previous = index;
      index = following;
    }
  }
  return fills;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/**
 * The quote the pair would exchange for `quantity`, or 0 when the pair is passed over (the reason
 * is logged). Checks run in a fixed order and the first failing one is the only one recorded.
 */
function pairQuote(
  bid: AuctionOrder,
  ask: AuctionOrder,
  quantity: bigint,
  round: AllocationRound,
  skips: SkipLog,
): bigint {
  // decisions 2: "Self-trade: two orders of the same trading key, or backed by notes of the same
  // owner, never match each other; say which one waits." The later arrival waits: the earlier
  // order keeps the place its time priority earned, and either may still fill against others.
  if (bid.tradingKey === ask.tradingKey || bid.owner === ask.owner) {
    skips.record(compareTime(bid, ask) < 0 ? ask.ref : bid.ref, 'self_trade');
    return 0n;
  }
  // decisions 2: "`min_fill_size` binds both sides of every fill; `min_fill_size == amount` is
  // all-or-none; an order that cannot be filled within its constraints is skipped for that batch,
  // never partly violated."
  const bidRefuses = quantity < bid.minFill;
  const askRefuses = quantity < ask.minFill;
  if (bidRefuses || askRefuses) {
    if (bidRefuses) skips.record(bid.ref, 'min_fill');
    if (askRefuses) skips.record(ask.ref, 'min_fill');
    return 0n;
  }
  // A fill must move quote (types.ts: quoteAmount > 0); base for nothing is passed over.
  const quote = quoteAmount(quantity, round.clearingPrice, round.priceScale);
  if (quote === 0n) {
    skips.record(bid.ref, 'zero_quote');
    skips.record(ask.ref, 'zero_quote');
  }
  return quote;
}
