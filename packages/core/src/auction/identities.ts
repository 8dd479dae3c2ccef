/**
 * Cheap self-trade checks for walks that pass over many pairs. Comparing two orders' trading keys
 * and owners reads four strings, each a cache miss on a large book: that is most of the cost of a
 * pair passed over. After IDENTITIES_AFTER_PASSES passes, the number walk names each key and owner
 * by a small integer the first time it meets the order (one map lookup per order), and each pair's
 * check then reads two typed arrays. The same is done for time priority, which self-trades need.
 * Names and times are only ever compared for equality and order, so results are unchanged.
 */
import { compareTime } from './priority.ts';
import type { AuctionOrder } from './types.ts';

/** Passes after which a walk starts naming identities (a normal batch never gets there). */
export const IDENTITIES_AFTER_PASSES = 4_096;

const UNNAMED = -1;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Names and time keys of one side's orders, filled in as the walk meets them. */
export class SideIdentities {
  readonly key: Int32Array;
  readonly owner: Int32Array;
  /** arrivalSlot and sequence as numbers, or NaN when either is beyond 2^53 (compare the bigints). */
  readonly slot: Float64Array;
  readonly sequence: Float64Array;

  constructor(count: number) {
    this.key = new Int32Array(count).fill(UNNAMED);
    this.owner = new Int32Array(count).fill(UNNAMED);
    this.slot = new Float64Array(count);
    this.sequence = new Float64Array(count);
  }
}

export class RoundIdentities {
  readonly bids: SideIdentities;
  readonly asks: SideIdentities;
  readonly #keys = new Map<string, number>();
  readonly #owners = new Map<string, number>();

  constructor(bidCount: number, askCount: number) {
    this.bids = new SideIdentities(bidCount);
    this.asks = new SideIdentities(askCount);
  }

  /** Names the order at `index` of `side` if it has no name yet. */
  name(side: SideIdentities, index: number, order: AuctionOrder): void {
    if (side.key[index] !== UNNAMED) return;
    side.key[index] = nameOf(this.#keys, order.tradingKey);
    side.owner[index] = nameOf(this.#owners, order.owner);
    const exact = order.arrivalSlot <= SAFE && order.sequence <= SAFE;
    side.slot[index] = exact ? Number(order.arrivalSlot) : Number.NaN;
    side.sequence[index] = exact ? Number(order.sequence) : Number.NaN;
  }

  /** Both orders named: same trading key or same owner. */
  selfTrade(bidIndex: number, askIndex: number): boolean {
    const { bids, asks } = this;
    return bids.key[bidIndex] === asks.key[askIndex] || bids.owner[bidIndex] === asks.owner[askIndex];
  }

  /** Both orders named: negative when the bid arrived first (compareTime's sign). */
  compareTime(bid: AuctionOrder, bidIndex: number, ask: AuctionOrder, askIndex: number): number {
    const { bids, asks } = this;
    const bidSlot = bids.slot[bidIndex] as number;
    const askSlot = asks.slot[askIndex] as number;
    if (Number.isNaN(bidSlot) || Number.isNaN(askSlot)) return compareTime(bid, ask);
    if (bidSlot !== askSlot) return bidSlot < askSlot ? -1 : 1;
    const bidSequence = bids.sequence[bidIndex] as number;
    const askSequence = asks.sequence[askIndex] as number;
    return bidSequence < askSequence ? -1 : bidSequence > askSequence ? 1 : 0;
  }
}

function nameOf(names: Map<string, number>, identity: string): number {
  let name = names.get(identity);
  if (name === undefined) {
    name = names.size;
    names.set(identity, name);
  }
  return name;
}
