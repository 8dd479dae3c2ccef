import type { OrderEvent as CoreOrderEvent } from '@venue/core';
import {
  type ClientOp,
  type EncodedServerMessage,
  encodeServerMessage,
  type FillMemo,
  type FillMessage,
  type Leaf,
  type OrderEvent,
  type REPLY_OF,
  type ServerFrame,
  type ServerMessage,
  type TreeMessage,
  type Unsequenced,
  type VenueError,
} from '@venue/protocol';

/**
 * The frames the stream sends, each typed by its protocol schema (spec 4.8, 6) and built here, so
 * a frame whose shape drifts from the interface is a type error. They carry no `seq`: the session
 * numbers each frame when it sends it, through the protocol's encoder (encodeServerMessage), which
 * also refuses at run time what a type cannot say (hex lengths, ranges).
 */

/** Anything a session sends. */
export type OutboundFrame = Unsequenced<ServerMessage>;

export type OrderEventFrame = Unsequenced<OrderEvent>;
export type FillFrame = Unsequenced<FillMessage>;
export type TreeFrame = Unsequenced<TreeMessage>;
/** A message of the orders, fills or tree channel (spec 6). */
export type ChannelFrame = OrderEventFrame | FillFrame | TreeFrame;

/** The success reply of a request frame; the session echoes the request's `request_id` on it. */
export type ReplyFrame = Extract<Unsequenced<ServerFrame>, { op: (typeof REPLY_OF)[ClientOp] }>;

type ErrorFrame = Extract<OutboundFrame, { op: 'error' }>;
type AuthExpiredFrame = Extract<OutboundFrame, { op: 'auth_expired' }>;

/**
 * Where the settlement side sends its channel messages (the stream server is one): fill memos go
 * to the sessions of the order's account only, tree pages (public data) to every session.
 */
export interface StreamPublisher {
  publishFill(frame: FillFrame, accountId: string): void;
  publishTree(frame: TreeFrame): void;
}

/** The tree feeds publish tree pages only. */
export type TreePublisher = Pick<StreamPublisher, 'publishTree'>;

/**
 * A channel message on its way to several sessions: encoded once, when the first subscribed session
 * takes it, and numbered by each session with its own seq.
 */
export class SharedChannelFrame {
  readonly frame: ChannelFrame;
  #encoded: EncodedServerMessage | null = null;

  constructor(frame: ChannelFrame) {
    this.frame = frame;
  }

  get encoded(): EncodedServerMessage {
    this.#encoded ??= encodeServerMessage(this.frame);
    return this.#encoded;
  }
}

/**
 * The orders-channel message of spec 6.1 for one core event. Only the fields the spec lists appear;
 * `cancelReason` stays in the order record.
 */
export function orderEventFrame(event: CoreOrderEvent, serverTimeMs: number): OrderEventFrame {
  return {
    channel: 'orders',
    order_id: event.orderId,
    market_id: event.marketId,
    ...(event.matchId === undefined ? {} : { match_id: event.matchId }),
    server_time_ms: serverTimeMs,
    kind: event.kind,
    ...(event.filledQuantity === undefined ? {} : { filled_quantity: event.filledQuantity }),
    ...(event.newAmount === undefined ? {} : { new_amount: event.newAmount }),
    ...(event.newNoteAmount === undefined ? {} : { new_note_amount: event.newNoteAmount }),
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    ...(event.lockExpirySlot === undefined ? {} : { lock_expiry_slot: event.lockExpirySlot }),
    ...(event.unfilledReason === undefined ? {} : { unfilled_reason: event.unfilledReason }),
  };
}

/** A fills-channel message: one order's sealed memo of one settled match (protocol FillMessage). */
export function fillFrame(fill: {
  readonly orderId: string;
  readonly marketId: string;
  readonly matchId: bigint;
  readonly batchSeq: bigint;
  readonly serverTimeMs: number;
  readonly memo: FillMemo;
}): FillFrame {
  return {
    channel: 'fills',
    order_id: fill.orderId,
    market_id: fill.marketId,
    match_id: fill.matchId,
    batch_seq: fill.batchSeq,
    server_time_ms: fill.serverTimeMs,
    memo: fill.memo,
  };
}

/** A tree-channel message: one page of a shard's new leaves, with the root and size after it. */
export function treeFrame(page: {
  readonly treeId: number;
  readonly slot: bigint;
  readonly root: string;
  readonly leafCount: bigint;
  readonly leaves: readonly Leaf[];
}): TreeFrame {
  return {
    channel: 'tree',
    tree_id: page.treeId,
    slot: page.slot,
    root: page.root,
    leaf_count: page.leafCount,
    leaves: [...page.leaves],
  };
}

/** spec 4.8: a failed frame, with the code and message REST would give. */
export function errorFrame(error: VenueError, requestId: string | undefined): ErrorFrame {
  return { op: 'error', ...withRequestId(requestId), code: error.code, message: error.message };
}

/** spec 4.8 auth_expired: sent shortly before the session's token expires. */
export function authExpiredFrame(expiresAtMs: number): AuthExpiredFrame {
  return { op: 'auth_expired', expires_at: expiresAtMs };
}

export function withRequestId(requestId: string | undefined): { request_id?: string } {
  return requestId === undefined ? {} : { request_id: requestId };
}
