import type {
  CancelReason,
  NoFillReason,
  OrderState,
  OrderType,
  SettlementFailureReason,
  Side,
} from '@venue/protocol';
import type { MarketConfig } from '../market.ts';
import { MarketColumns, NO_SLOT } from './market-columns.ts';
import { PendingMatches } from './pending-matches.ts';

/**
 * The whole state of the venue core. Two kinds of fields live here:
 * - persisted facts (what snapshot.ts writes): the orders, notes, nonces, roots, schedule;
 * - indexes derived from them (lists and price levels that hold row references, per-account and
 *   per-market bookkeeping), rebuilt by restore and checked by validateInternalState().
 * Indexes hold references to rows, never ids, so the hot paths follow pointers instead of hashing
 * hex strings. Every collection is bounded by the open orders, the readable window of finished
 * orders and, for their compact remains, the longest order lifetime.
 */

export interface NoteRef {
  readonly commitment: string;
  /** What the note holds: quote units for a bid, base units for an ask. */
  readonly value: bigint;
  readonly treeId: number;
  /** Root the order's proof was made against (the change note of a partial fill keeps it). */
  readonly merkleRoot: string;
}

/** The reservation of an order's current match (decisions section 2: reserved until settled). */
export interface PendingMatch {
  readonly matchId: bigint;
  readonly baseQuantity: bigint;
  readonly quoteAmount: bigint;
  readonly lockExpirySlot: bigint;
}

/**
 * What holds the reservations of several orders at once, each at its own index: a batch's record of
 * its matches (batch/batch-matches.ts), so a batch builds no object per filled order, or one match
 * restored from a snapshot (decisions D148). A row names its record and index (`pending`,
 * `pendingAt`); state/pending-match.ts reads them.
 */
export interface Reservations {
  matchId(at: number): bigint;
  /** matchKey(matchId(at)), without building the bigint. */
  matchKey(at: number): number;
  baseQuantity(at: number): bigint;
  quoteAmount(at: number): bigint;
  readonly lockExpirySlot: bigint;
  /**
   * The match at `at` stops pending (pending-match.ts release), its order's note still the one it
   * matched with: a holder that reads the note from the row keeps it from here on.
   */
  released(at: number, note: NoteRef): void;
}

/**
 * One order. The row is also the order as the auction sees it (it satisfies AuctionOrder), so a
 * batch hands rows to the auction without building a copy of each.
 */
export interface OrderRow {
  // ---- persisted ----
  /** Intake sequence: unique, increasing, the last tie-break of time priority. */
  readonly sequence: bigint;
  readonly orderId: string;
  readonly accountId: string;
  readonly tradingKey: string;
  /** owner_commitment: with the trading key, the self-trade identity. */
  readonly owner: string;
  readonly marketId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly amount: bigint;
  /** Set once at booking; its level's price object replaces it then (the same value). */
  priceLimit: bigint;
  readonly minFillSize: bigint;
  readonly expirySlot: bigint;
  readonly arrivalSlot: bigint;
  readonly viewingPubkey: string;
  readonly connectionId: string | null;
  readonly bodyDigest: string;
  note: NoteRef;
  filled: bigint;
  state: OrderState;
  /** ioc and fok take part in one batch only; set once that batch has run. */
  arrivalBatchDone: boolean;
  /**
   * Its cancel-on-disconnect socket closed while it was pending settlement: what remains after the
   * settlement is cancelled instead of resting unattended (docs/core.md).
   */
  sweepAfterSettlement: boolean;
  /** The reservation of its current match: a record and this order's index there (pending-match.ts). */
  pending: Reservations | null;
  pendingAt: number;
  /**
   * The match id of its latest match that is no longer pending; while one is, pending-match.ts
   * `lastMatchIdOf` answers from the reservation (a batch writes no bigint per filled order).
   */
  lastMatchId: bigint | null;
  reason: SettlementFailureReason | null;
  cancelReason: CancelReason | null;
  lockExpirySlot: bigint | null;
  lastUpdateSlot: bigint;
  /**
   * The latest batch the order took part in and got nothing from, and why (batch/no-fill-reason.ts);
   * all three null until that first happens. Shown to the owner only (GET /orders/{id}), through
   * state/last-unfilled.ts: a batch that did not clear at all is kept once for its market
   * (MarketState.lastUncleared), not written into every row, so a quiet book costs O(1) per batch.
   */
  unfilledBatch: bigint | null;
  unfilledSlot: bigint | null;
  unfilledReason: NoFillReason | null;
  /**
   * The market's batch count when a settlement last put the order back to resting (null if it never
   * waited on one): it takes part in that batch and the ones after, whatever their slot.
   */
  resumedBatch: bigint | null;

  // ---- derived: what the auction reads (kept equal to the persisted facts by order-index.ts) ----
  /** amount - filled. */
  remaining: bigint;
  /** The minimum of every fill: min_fill_size (at least 1) capped at what remains. */
  minFill: bigint;
  /** A fok order that has not had its arrival batch yet. */
  fillOrKill: boolean;
  /**
   * Index among the participants of the batch being cleared, written only when the auction reads
   * it from the orders (run-batch.ts writeRefs); stale otherwise. The batch columns' `ref` is the
   * one numbering keeps for every open order.
   */
  ref: number;
  /** Its slot in the market's batch columns while open (market-columns.ts), else NO_SLOT. */
  slot: number;

  // ---- derived: index links (null when the order is not open) ----
  readonly market: MarketState;
  account: AccountState | null;
  accountPrev: OrderRow | null;
  accountNext: OrderRow | null;
  level: PriceLevel | null;
  levelPrev: OrderRow | null;
  levelNext: OrderRow | null;
}

/** Open orders of one price on one side, oldest first (time priority within the level). */
export interface PriceLevel {
  readonly price: bigint;
  /** The head's slot in the market's columns, whose `next` chains the level (market-columns.ts). */
  headSlot: number;
  head: OrderRow | null;
  tail: OrderRow | null;
  size: number;
  /**
   * Of those, the orders in state `resting` and their remaining base: what a batch would take from
   * this level (an order pending settlement takes no part). Kept at every change of state or
   * quantity, so a batch can tell in O(1) whether the book can cross (batch/quiet-book.ts).
   */
  resting: number;
  restingUnits: bigint;
}

/**
 * One side of a market's book, best price first: bids by descending limit, asks by ascending limit
 * (0, "any price", first of all). Maintained on every booking and ending, so a batch reads the
 * sides in allocation priority without sorting.
 */
export interface BookSide {
  readonly descending: boolean;
  readonly levels: PriceLevel[];
  /** The same levels by price, so booking finds an existing level without a binary search. */
  readonly byPrice: Map<bigint, PriceLevel>;
  /** Levels holding at least one resting order (the others hold only orders pending settlement). */
  restingLevels: number;
  /** Resting orders on the side: a batch over a book that cannot cross counts its participants so. */
  restingOrders: number;
  /**
   * The market's columns, whose resting marks startResting and stopResting keep (held here so that
   * they need not read the row's market, on a cache line nothing else in a batch's fills pass reads).
   */
  readonly columns: { readonly resting: Uint8Array };
}

export interface MarketState {
  readonly config: MarketConfig;
  oraclePrice: bigint | null;
  pausedReason: string | null;
  /** Batches run so far (the next batch's number). */
  batchCount: bigint;
  /** Match ids issued so far (the next match id). */
  matchCount: bigint;
  readonly bids: BookSide;
  readonly asks: BookSide;
  /** Unsettled match id (as a number: see matchKey) -> the order it reserves. */
  readonly pendingMatches: PendingMatches<OrderRow>;
  /**
   * What a batch reads of each open order, by slot, and the live list: the market's open orders
   * (resting or pending settlement) in intake order.
   */
  readonly columns: MarketColumns<OrderRow>;
  /**
   * Open ioc and fok orders that have not had their arrival batch, in intake order (the live list's
   * order): a batch over a book that cannot cross ends them without walking the book.
   */
  readonly arrivalBatchDue: Set<OrderRow>;
  /**
   * The latest batch of this market that did not clear at a price (paused, no oracle, no candidate
   * in the band, no volume). Every order that took part got the same market-wide reason, so it is
   * kept here once instead of in each row (state/last-unfilled.ts reads it).
   */
  lastUncleared: UnclearedBatch | null;
}

/** A batch that did not clear, and the one reason each of its participants was given. */
export interface UnclearedBatch {
  readonly batch: bigint;
  readonly slot: bigint;
  readonly reason: NoFillReason;
}

/** An account's open orders, in intake order. Dropped when the last one ends. */
export interface AccountState {
  readonly accountId: string;
  open: number;
  head: OrderRow | null;
  tail: OrderRow | null;
}

export interface KeyNonces {
  arrival: bigint;
  cancel: bigint;
}

/**
 * What is kept of a finished order once it is no longer readable (docs/core.md, "Repeats,
 * retention and limits"): enough to refuse its body with 1211 and keep its id taken until the body
 * could not be booked anyway, a few hundred bytes instead of the full row.
 */
export interface FinishedOrder {
  readonly accountId: string;
  readonly bodyDigest: string;
  /** Its terminal state, named in the 1211 refusal. */
  readonly state: OrderState;
  /** Dropped at this slot: past its expiry_slot (and its failed lock, if any). */
  readonly until: bigint;
  /** A failed settlement's note, whose expired lock is released when this is dropped; else null. */
  readonly lockedNote: string | null;
}

/** A note is held by an open order, or blocked until the slot a failed settlement's lock expires. */
export type NoteHold = OrderRow | bigint;

export interface VenueState {
  sessionId: string;
  slot: bigint;
  nextSequence: bigint;
  venuePauseReasons: string[];
  /** Markets in listing order. */
  readonly markets: Map<string, MarketState>;
  readonly marketsBySymbol: Map<string, MarketState>;
  /**
   * Every order not yet forgotten, open or finished. Also the repeat index (spec 2.1 exact-body
   * idempotency): a body names its order id, and the row keeps the digest of the body it was booked from.
   */
  readonly orders: Map<string, OrderRow>;
  /** Finished orders past their readable window whose body is still refused (FinishedOrder). */
  readonly finished: Map<string, FinishedOrder>;
  readonly notes: Map<string, NoteHold>;
  readonly nonces: Map<string, KeyNonces>;
  /** Accounts holding at least one open order. */
  readonly accounts: Map<string, AccountState>;
  /** Resting orders per stream connection that asked for cancel-on-disconnect, in intake order. */
  readonly byConnection: Map<string, Set<OrderRow>>;
  /** Recent-root window per Merkle shard (spec 2.1 merkle_root), newest last. */
  readonly roots: Map<number, readonly string[]>;
  /**
   * Slot -> order ids to look at then: expiry of resting orders, end of the readable window of
   * finished ones, end of a compacted order's refusal window.
   */
  readonly wakeups: Map<bigint, string[]>;
  /** Every slot below it has been processed by the wake-up walk. */
  wakeupCursor: bigint;
  /** Armed dead-man timers by account (lifecycle/dead-man.ts). */
  readonly deadMen: Map<string, DeadManTimer>;
  /** Orders pending settlement when their account's timer fired: the remainder is cancelled. */
  readonly deadManSweeps: Set<string>;
}

export interface DeadManTimer {
  readonly armedSlot: bigint;
  readonly timeoutSlots: bigint;
  /** The first tick at or past this slot cancels the account's resting orders. */
  readonly deadlineSlot: bigint;
}

export function emptyState(): VenueState {
  return {
    sessionId: '',
    slot: 0n,
    nextSequence: 1n,
    venuePauseReasons: [],
    markets: new Map(),
    marketsBySymbol: new Map(),
    orders: new Map(),
    finished: new Map(),
    notes: new Map(),
    nonces: new Map(),
    accounts: new Map(),
    byConnection: new Map(),
    roots: new Map(),
    wakeups: new Map(),
    wakeupCursor: 0n,
    deadMen: new Map(),
    deadManSweeps: new Set(),
  };
}

export function emptyMarket(config: MarketConfig): MarketState {
  const columns = new MarketColumns<OrderRow>();
  return {
    config,
    oraclePrice: null,
    pausedReason: null,
    batchCount: 0n,
    matchCount: 0n,
    bids: { descending: true, levels: [], byPrice: new Map(), restingLevels: 0, restingOrders: 0, columns },
    asks: { descending: false, levels: [], byPrice: new Map(), restingLevels: 0, restingOrders: 0, columns },
    pendingMatches: new PendingMatches<OrderRow>(),
    columns,
    arrivalBatchDue: new Set(),
    lastUncleared: null,
  };
}

export { NO_SLOT };

/**
 * Match ids count up from 0 per market, one per matched order, so they stay below 2^53 (about 285
 * years at a million matches a second; run-batch.ts asserts it) and convert to numbers exactly. A
 * number key hashes without allocating, unlike a bigint. Lookups by a client-supplied id compare the
 * row's bigint id as well, so an id above 2^53 can never alias an issued one.
 */
export const MATCH_IDS_MAX = BigInt(Number.MAX_SAFE_INTEGER);

export function matchKey(matchId: bigint): number {
  return Number(matchId);
}

export function isTerminal(state: OrderState): boolean {
  return (
    state === 'fully_filled' || state === 'settlement_failed' || state === 'cancelled' || state === 'expired'
  );
}

/** The open remainder's minimum fill as the auction applies it: at least 1, at most what remains. */
export function effectiveMinFill(minFillSize: bigint, remaining: bigint): bigint {
  if (minFillSize === 0n) return 1n;
  return minFillSize < remaining ? minFillSize : remaining;
}
