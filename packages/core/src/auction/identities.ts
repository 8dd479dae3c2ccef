/**
 * Cheap self-trade checks for walks that pass over many pairs. Comparing two orders' trading keys
 * and owners reads four strings, each a cache miss on a large book: that is most of the cost of a
 * pair passed over. After IDENTITIES_AFTER_PASSES passes, the number walk names each key and owner
 * by a small integer the first time a pair needs it (one lookup per order), and each pair's check
 * then reads two typed arrays. The same is done for time priority, which self-trades need. Names
 * and times are only ever compared for equality and order, so results are unchanged.
 */
import { compareTime } from './priority.ts';
import type { AuctionOrder } from './types.ts';

/** Passes after which a walk starts naming identities (a normal batch never gets there). */
export const IDENTITIES_AFTER_PASSES = 4_096;

const UNNAMED = -1;
/** Below every arrival slot: the order's time keys have not been read yet. */
const UNTIMED = -1;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Names and time keys of one side's orders, each filled in when the walk first needs it. */
export class SideIdentities {
  readonly key: Int32Array;
  readonly owner: Int32Array;
  /**
   * arrivalSlot and sequence as numbers, NaN when either is beyond 2^53 (compare the bigints), and
   * UNTIMED (negative, unlike any slot) until first read.
   */
  readonly slot: Float64Array;
  readonly sequence: Float64Array;

  constructor(count: number) {
    this.key = new Int32Array(count).fill(UNNAMED);
    this.owner = new Int32Array(count).fill(UNNAMED);
    this.slot = new Float64Array(count).fill(UNTIMED);
    this.sequence = new Float64Array(count);
  }
}

export class RoundIdentities {
  readonly bids: SideIdentities;
  readonly asks: SideIdentities;
  readonly #printed: boolean;
  readonly #keys: IdentityNames;
  readonly #owners: IdentityNames;

  /** `printed`: every order comes with its identity prints (units.ts IdentityPrints). */
  constructor(bidCount: number, askCount: number, printed = false) {
    this.bids = new SideIdentities(bidCount);
    this.asks = new SideIdentities(askCount);
    this.#printed = printed;
    this.#keys = new IdentityNames(printed);
    this.#owners = new IdentityNames(printed);
  }

  /**
   * Same trading key or same owner. With prints, a kind of identity whose prints differ differs and
   * is neither compared nor named: in a book of one owner only the owner is ever named, so the walk
   * builds no table of every order's key. The prints are not read when the instance is not printed.
   */
  selfTrade(
    bidIndex: number,
    bid: AuctionOrder,
    bidKeyPrint: number,
    bidOwnerPrint: number,
    askIndex: number,
    ask: AuctionOrder,
    askKeyPrint: number,
    askOwnerPrint: number,
  ): boolean {
    const printed = this.#printed;
    const { bids, asks } = this;
    if (!printed || bidKeyPrint === askKeyPrint) {
      const bidKey = named(bids.key, bidIndex, this.#keys, bid.tradingKey, bidKeyPrint);
      if (bidKey === named(asks.key, askIndex, this.#keys, ask.tradingKey, askKeyPrint)) return true;
    }
    if (!printed || bidOwnerPrint === askOwnerPrint) {
      const bidOwner = named(bids.owner, bidIndex, this.#owners, bid.owner, bidOwnerPrint);
      if (bidOwner === named(asks.owner, askIndex, this.#owners, ask.owner, askOwnerPrint)) return true;
    }
    return false;
  }

  /** Negative when the bid arrived first (compareTime's sign). */
  compareTime(bid: AuctionOrder, bidIndex: number, ask: AuctionOrder, askIndex: number): number {
    const { bids, asks } = this;
    const bidSlot = timed(bids, bidIndex, bid);
    const askSlot = timed(asks, askIndex, ask);
    if (Number.isNaN(bidSlot) || Number.isNaN(askSlot)) return compareTime(bid, ask);
    if (bidSlot !== askSlot) return bidSlot < askSlot ? -1 : 1;
    const bidSequence = bids.sequence[bidIndex] as number;
    const askSequence = asks.sequence[askIndex] as number;
    return bidSequence < askSequence ? -1 : bidSequence > askSequence ? 1 : 0;
  }
}

function named(names: Int32Array, index: number, table: IdentityNames, text: string, print: number): number {
  let name = names[index] as number;
  if (name === UNNAMED) {
    name = table.nameOf(text, print);
    names[index] = name;
  }
  return name;
}

/** The order's arrival slot as a number (NaN when not exact), recording both time keys once. */
function timed(side: SideIdentities, index: number, order: AuctionOrder): number {
  const slot = side.slot[index] as number;
  if (slot !== UNTIMED) return slot;
  const exact = order.arrivalSlot <= SAFE && order.sequence <= SAFE;
  side.slot[index] = exact ? Number(order.arrivalSlot) : Number.NaN;
  side.sequence[index] = exact ? Number(order.sequence) : Number.NaN;
  return side.slot[index] as number;
}

/**
 * Small-integer names for identity strings: equal strings get equal names, different strings
 * different names. Looking a string up in a Map hashes it, and the core's keys and owners are
 * 64-character strings the process has not hashed yet (about 100 ns each here). With prints (equal
 * strings have equal prints) a name is found by its print instead: a print not seen before is a
 * string not seen before, and a print seen before leads to the first string named with it, which
 * is then compared in full. Only a second string with the same print (a collision) needs the map
 * by string, which is built at the first collision from the strings named so far.
 */
class IdentityNames {
  readonly #printed: boolean;
  /** name -> its string: every string named, each once. */
  readonly #texts: string[] = [];
  /** print -> the name of the first string named with that print. */
  readonly #byPrint = new Map<number, number>();
  /** string -> name for every string named: from the start without prints, else from the first collision. */
  #byText: Map<string, number> | null;

  constructor(printed: boolean) {
    this.#printed = printed;
    this.#byText = printed ? null : new Map();
  }

  nameOf(text: string, print: number): number {
    if (this.#printed) {
      const first = this.#byPrint.get(print);
      if (first === undefined) {
        // Had this string been named, its print would be here (entries are never removed).
        const name = this.#add(text);
        this.#byPrint.set(print, name);
        return name;
      }
      if (this.#texts[first] === text) return first;
    }
    let byText = this.#byText;
    if (byText === null) {
      byText = new Map(this.#texts.map((named, name) => [named, name]));
      this.#byText = byText;
    }
    return byText.get(text) ?? this.#add(text);
  }

  #add(text: string): number {
    const name = this.#texts.length;
    this.#texts.push(text);
    this.#byText?.set(text, name);
    return name;
  }
}

/**
 * Lives as long as the process, so the maps of RoundIdentities and SideIdentities (reached by weak
 * transitions, see skip-log.ts SKIP_LOG_SHAPE_KEEPER) survive full collections and the walk's
 * optimised code with them.
 */
export const IDENTITIES_SHAPE_KEEPER = new RoundIdentities(0, 0);
