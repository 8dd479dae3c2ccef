import type {
  CancelReason,
  CancelResponse,
  DeadManStatus,
  ModifyResponse,
  NoFillReason,
  OrderEventKind,
  PlaceResponse,
  SettlementFailureReason,
} from '@venue/protocol';
import type { AuctionResult, Fills } from './auction/types.ts';

/**
 * What applying a command produced. A command that is refused produces no events and changes
 * nothing: the core throws a VenueError instead (intake rules) before touching state.
 */
export type CoreEvent = ReplyEvent | OrderEvent | MatchesEvent | MatchEvent | BatchEvent;

/** The answer to the request that carried the command (REST response body, stream reply result). */
export type ReplyEvent =
  | {
      readonly type: 'placed';
      readonly accountId: string;
      readonly response: PlaceResponse;
      readonly repeat: boolean;
    }
  | { readonly type: 'cancelled_reply'; readonly accountId: string; readonly response: CancelResponse }
  | { readonly type: 'modified'; readonly accountId: string; readonly response: ModifyResponse }
  | { readonly type: 'dead_man_reply'; readonly accountId: string; readonly response: DeadManStatus };

/**
 * A spec 6.1 order event, routed to the owning account only. `server_time_ms` and `seq` are added
 * by the stream adapter; everything else is decided here. A filled order's `pending_settlement`
 * event is not in the list as one: its match event stands for it (batch/pending-events.ts).
 */
export interface OrderEvent {
  readonly type: 'order';
  readonly accountId: string;
  readonly orderId: string;
  readonly marketId: string;
  readonly kind: OrderEventKind;
  readonly slot: bigint;
  readonly matchId?: bigint;
  readonly filledQuantity?: bigint;
  readonly newAmount?: bigint;
  readonly newNoteAmount?: bigint;
  readonly reason?: SettlementFailureReason;
  readonly lockExpirySlot?: bigint;
  /** Not on the wire (spec 6.1 fixes the fields); kept for the order record. */
  readonly cancelReason?: CancelReason;
  /** ioc/fok cancelled after an arrival batch that gave it nothing: why (sent as `unfilled_reason`). */
  readonly unfilledReason?: NoFillReason;
}

/**
 * The matches of one batch, as one record (decisions D148): a batch that fills half of a 100,000-order
 * book builds no object per filled order. The core hands this over where it used to hand one match
 * event per filled order, in the same order; read them with `matchEventsOf` or the record's
 * `event(k)`, and the order events they stand for with `orderEventsOf`/`expandedEvents`
 * (batch/pending-events.ts).
 */
export interface MatchesEvent {
  readonly type: 'matches';
  readonly matches: BatchMatchesRecord;
}

/** A batch's matches: the k-th (0 <= k < count) has match id firstMatchId + k. */
export interface BatchMatchesRecord {
  readonly marketId: string;
  readonly batch: bigint;
  readonly slot: bigint;
  readonly count: number;
  readonly firstMatchId: bigint;
  /** firstMatchId + k. */
  matchId(k: number): bigint;
  /** The account whose order the k-th match is (what routing reads without building the event). */
  accountId(k: number): string;
  /** The k-th match as its own event, built on each call. */
  event(k: number): MatchEvent;
}

/**
 * One order's part in one batch, handed to the settlement pipeline: lock `noteCommitment`, move
 * `baseQuantity` and `quoteAmount`, and return the change. Private: never sent to other accounts.
 * It also stands for its order's `pending_settlement` order event, which the core does not build:
 * read order events through `orderEventsOf` (batch/pending-events.ts, decisions D146). The core
 * hands matches over as a batch's record (MatchesEvent); a match event is one of them spelled out.
 */
export interface MatchEvent {
  readonly type: 'match';
  readonly marketId: string;
  readonly matchId: bigint;
  readonly batch: bigint;
  /** The batch's slot: the `slot` of the order event the match event stands for. */
  readonly slot: bigint;
  readonly orderId: string;
  readonly accountId: string;
  readonly side: 'bid' | 'ask';
  readonly clearingPrice: bigint;
  readonly baseQuantity: bigint;
  readonly quoteAmount: bigint;
  readonly noteCommitment: string;
  readonly noteValue: bigint;
  readonly treeId: number;
  readonly merkleRoot: string;
  readonly viewingPubkey: string;
  readonly lockExpirySlot: bigint;
  /**
   * Who this order filled against: its batch's pairing record and its index there (its ref among the
   * batch's participants). Read the lists with `matchCounterparties` and `matchFills`
   * (batch/match-pairing.ts); the batch builds none.
   */
  readonly pairing: BatchPairing;
  readonly pairingRef: number;
}

/**
 * Who filled against whom in one batch, kept once for the whole batch (decisions D120) rather than
 * as two lists and a fill object per filled order: the auction's fills, each participant's fills
 * as a range of `fillAt` (those of ref r are fillAt[start[r]] to fillAt[start[r + 1] - 1], in fill
 * order), and each filled participant's match id (firstMatchId plus its rank among the filled, in
 * ref order). Shared by the batch's matches; never changed.
 */
export interface BatchPairing {
  readonly fills: Fills;
  readonly start: Int32Array;
  readonly fillAt: Int32Array;
  /** ref -> its rank among the filled refs (its match is firstMatchId + rank), or -1. */
  readonly rank: Int32Array;
  readonly firstMatchId: bigint;
}

/** One pair's fill in a batch, as one of its two orders sees it. */
export interface MatchFill {
  readonly counterpartyMatchId: bigint;
  /** Base units that change hands between the two orders. */
  readonly baseQuantity: bigint;
  /** floor(baseQuantity x clearing price / price scale): fixed per pair, not per order. */
  readonly quoteAmount: bigint;
}

/** A market's batch auction ran; the record explains the price (decisions section 2). */
export interface BatchEvent {
  readonly type: 'batch';
  readonly marketId: string;
  readonly batch: bigint;
  readonly slot: bigint;
  readonly result: AuctionResult;
  /** Orders that took part (set once the batch's outcome is applied). */
  participants: number;
  /** Participants that got nothing, by reason (what the admin explanation publishes). */
  readonly unfilled: Partial<Record<NoFillReason, number>>;
}
