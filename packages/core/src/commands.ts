import type { CancelParams, ModifyRequest, PlaceOrder, SettlementFailureReason } from '@venue/protocol';
import type { MarketConfig } from './market.ts';

/**
 * Everything that can change the venue is one of these commands. The sequencer stamps each with
 * the slot it observed, appends it to the journal and applies it; replaying the journal replays the
 * venue. Signatures and proofs are verified BEFORE a command is sequenced (by the intake workers),
 * so a command reaching the core carries only facts: the core never does crypto or I/O.
 */
export type Command =
  | BootCommand
  | AddMarketCommand
  | PlaceCommand
  | CancelCommand
  | ModifyCommand
  | DisconnectCommand
  | TickCommand
  | OraclePriceCommand
  | MarketGateCommand
  | VenueGateCommand
  | RootsCommand
  | MatchSettledCommand
  | MatchFailedCommand
  | NotesConsumedCommand
  | DeadManCommand;

/** A new boot: every body signed for an earlier session id is stale from now on (spec 2.1). */
export interface BootCommand {
  readonly type: 'boot';
  readonly sessionId: string;
  readonly slot: bigint;
}

export interface AddMarketCommand {
  readonly type: 'add_market';
  readonly market: MarketConfig;
}

/** An order whose signature (and proof, on a settling venue) has been verified. */
export interface PlaceCommand {
  readonly type: 'place';
  readonly order: PlaceOrder;
  /** sha256 of the canonical place-order bytes, hex: identity of the signed body for repeats. */
  readonly bodyDigest: string;
  readonly accountId: string;
  /** Stream connection that carried it (for cancel-on-disconnect), or null for REST. */
  readonly connectionId: string | null;
  readonly slot: bigint;
}

/** A cancel whose signature over (order id, key, nonce, session) has been verified. */
export interface CancelCommand {
  readonly type: 'cancel';
  readonly orderId: string;
  readonly params: CancelParams;
  readonly accountId: string;
  readonly slot: bigint;
}

/** A modify whose two signatures have been verified (spec 4.1). */
export interface ModifyCommand {
  readonly type: 'modify';
  readonly oldOrderId: string;
  readonly request: ModifyRequest;
  /** sha256 of the replacement's canonical bytes. */
  readonly replacementDigest: string;
  readonly accountId: string;
  readonly connectionId: string | null;
  readonly slot: bigint;
}

/**
 * The account arms or refreshes its dead-man timer (timeoutSlots from the current slot), or disarms
 * it (null). Authorised by the account's bearer token alone, like cancel-on-disconnect.
 */
export interface DeadManCommand {
  readonly type: 'dead_man';
  readonly accountId: string;
  readonly timeoutSlots: bigint | null;
  readonly slot: bigint;
}

/** A stream session closed with cancel-on-disconnect in force (spec 4.8 rule 2). */
export interface DisconnectCommand {
  readonly type: 'disconnect';
  readonly connectionId: string;
  readonly slot: bigint;
}

/** The chain reached `slot`: orders past expiry expire, and markets due for a batch clear. */
export interface TickCommand {
  readonly type: 'tick';
  readonly slot: bigint;
}

/** The market's oracle reference price (scaled), or null when no valid price is known. */
export interface OraclePriceCommand {
  readonly type: 'oracle_price';
  readonly marketId: string;
  readonly price: bigint | null;
  readonly slot: bigint;
}

/** Why a market's new trading is closed (issue 8 decides when); null reopens it. */
export interface MarketGateCommand {
  readonly type: 'market_gate';
  readonly marketId: string;
  readonly pausedReason: string | null;
  readonly slot: bigint;
}

/** Venue-wide gate: while any reason holds, new trading is refused on every market. */
export interface VenueGateCommand {
  readonly type: 'venue_gate';
  readonly pauseReasons: readonly string[];
  readonly slot: bigint;
}

/** The recent-root window of one Merkle shard, as the chain mirror last saw it (newest last). */
export interface RootsCommand {
  readonly type: 'roots';
  readonly treeId: number;
  readonly roots: readonly string[];
  readonly slot: bigint;
}

/** The chain confirmed a match: the order's note was consumed; a remainder rests on `changeNote`. */
export interface MatchSettledCommand {
  readonly type: 'match_settled';
  readonly marketId: string;
  readonly matchId: bigint;
  /** The note that now backs the order's unfilled remainder; null when nothing remains. */
  readonly changeNote: {
    readonly commitment: string;
    readonly value: bigint;
    readonly treeId: number;
  } | null;
  readonly slot: bigint;
}

/** The chain definitively rejected a match (spec 3.1: terminal, never re-booked). */
export interface MatchFailedCommand {
  readonly type: 'match_failed';
  readonly marketId: string;
  readonly matchId: bigint;
  readonly reason: SettlementFailureReason;
  readonly slot: bigint;
}

/**
 * The chain holds a consume record for each of these notes (spec 3.2: withdrawn, merged or settled),
 * so an order resting on one could never settle: each such order is cancelled (note_consumed).
 * Orders pending settlement are left to their settlement, which resolves them.
 */
export interface NotesConsumedCommand {
  readonly type: 'notes_consumed';
  readonly noteCommitments: readonly string[];
  readonly slot: bigint;
}
