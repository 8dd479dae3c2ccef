import type { CancelReason, OrderState, OrderType, SettlementFailureReason, Side } from '@venue/protocol';
import type { MarketConfig } from '../market.ts';

/**
 * The whole state of the venue core. Plain data: Maps iterate in insertion order, so two cores fed
 * the same commands hold the same state in the same order, which is what stateHash() and snapshots
 * rely on. Every collection has a bound stated in CoreLimits.
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

export interface OrderRow {
  /** Intake sequence: unique, increasing, the last tie-break of time priority. */
  readonly sequence: bigint;
  readonly orderId: string;
  readonly accountId: string;
  readonly tradingKey: string;
  readonly ownerCommitment: string;
  readonly marketId: string;
  readonly symbol: string;
  readonly side: Side;
  readonly orderType: OrderType;
  readonly amount: bigint;
  readonly priceLimit: bigint;
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
  pending: PendingMatch | null;
  lastMatchId: bigint | null;
  reason: SettlementFailureReason | null;
  cancelReason: CancelReason | null;
  lockExpirySlot: bigint | null;
  lastUpdateSlot: bigint;
}

export interface MarketState {
  readonly config: MarketConfig;
  oraclePrice: bigint | null;
  pausedReason: string | null;
  /** Batches run so far (the next batch's number). */
  batchCount: bigint;
  /** Match ids issued so far (the next match id). */
  matchCount: bigint;
  /** Order ids of this market that are resting or pending settlement, in intake order. */
  readonly live: Set<string>;
}

export interface KeyNonces {
  arrival: bigint;
  cancel: bigint;
}

/** A note is held by a live order, or blocked until a failed settlement's lock expires. */
export type NoteHold = { readonly orderId: string } | { readonly lockedUntilSlot: bigint };

export interface VenueState {
  sessionId: string;
  slot: bigint;
  nextSequence: bigint;
  venuePauseReasons: string[];
  readonly markets: Map<string, MarketState>;
  readonly marketIdBySymbol: Map<string, string>;
  readonly orders: Map<string, OrderRow>;
  readonly notes: Map<string, NoteHold>;
  readonly nonces: Map<string, KeyNonces>;
  /** Signed-body digest -> order id, for repeats (spec 2.1: exact-body idempotency). */
  readonly bodies: Map<string, string>;
  /** Open (non-terminal) order ids per account. */
  readonly openByAccount: Map<string, Set<string>>;
  /** Resting order ids per stream connection that asked for cancel-on-disconnect. */
  readonly byConnection: Map<string, Set<string>>;
  /** `${marketId}:${matchId}` -> order id, while the match is unsettled. */
  readonly pendingMatches: Map<string, string>;
  /** Recent-root window per Merkle shard (spec 2.1 merkle_root), newest last. */
  readonly roots: Map<number, readonly string[]>;
  /** Slot -> order ids to look at then: expiry of resting orders, end of retention of finished ones. */
  readonly wakeups: Map<bigint, string[]>;
  /** Every slot below it has been processed by the wake-up walk. */
  wakeupCursor: bigint;
}

export function emptyState(): VenueState {
  return {
    sessionId: '',
    slot: 0n,
    nextSequence: 1n,
    venuePauseReasons: [],
    markets: new Map(),
    marketIdBySymbol: new Map(),
    orders: new Map(),
    notes: new Map(),
    nonces: new Map(),
    bodies: new Map(),
    openByAccount: new Map(),
    byConnection: new Map(),
    pendingMatches: new Map(),
    roots: new Map(),
    wakeups: new Map(),
    wakeupCursor: 0n,
  };
}

export function matchKey(marketId: string, matchId: bigint): string {
  return `${marketId}:${matchId}`;
}

export function isTerminal(state: OrderState): boolean {
  return (
    state === 'fully_filled' || state === 'settlement_failed' || state === 'cancelled' || state === 'expired'
  );
}
