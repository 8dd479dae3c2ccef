/**
 * The declared fields of every command kind and of the annotations: what the journal's codec
 * writes and accepts (record-codec.ts). `ShapeOf<T>` ties each declaration to its type, so a field
 * added to a core command or an annotation fails the type check until it is declared here, and a
 * field declared here that the type does not have fails it too.
 */
import type { Command, MarketConfig } from '@venue/core';
import type { CancelParams, ModifyRequest, PlaceOrder } from '@venue/protocol';
import type { Annotations, ChangeOpening } from './journal-record.ts';

export type Shape =
  | 'string'
  | 'number'
  | 'bigint'
  | 'boolean'
  | { readonly nullable: Shape }
  | { readonly list: Shape }
  | { readonly fields: Readonly<Record<string, Shape | { readonly optional: Shape }>> };

/** The shape a value of type T must have. */
export type ShapeOf<T> = [T] extends [string]
  ? 'string'
  : [T] extends [bigint]
    ? 'bigint'
    : [T] extends [number]
      ? 'number'
      : [T] extends [boolean]
        ? 'boolean'
        : [T] extends [readonly (infer I)[]]
          ? { readonly list: ShapeOf<I> }
          : null extends T
            ? { readonly nullable: ShapeOf<Exclude<T, null>> }
            : [T] extends [object]
              ? { readonly fields: FieldsOf<T> }
              : never;

/** Every property of T, required ones as their shape and optional ones wrapped in `optional`. */
type FieldsOf<T> = {
  readonly [K in keyof T]-?: object extends Pick<T, K>
    ? { readonly optional: ShapeOf<Exclude<T[K], undefined>> }
    : ShapeOf<T[K]>;
};

const PLACE_ORDER: ShapeOf<PlaceOrder> = {
  fields: {
    symbol: 'string',
    side: 'string',
    order_type: 'string',
    amount: 'bigint',
    price_limit: 'bigint',
    min_fill_size: { optional: 'bigint' },
    expiry_slot: 'bigint',
    order_id: 'string',
    note_commitment: 'string',
    arrival_nonce: 'bigint',
    trading_key: 'string',
    trading_key_signature: 'string',
    owner_commitment: 'string',
    note_inner_hash: 'string',
    merkle_root: 'string',
    valid_input_proof: 'string',
    collateral_amount: { optional: 'bigint' },
    tree_id: { optional: 'number' },
    viewing_pubkey: 'string',
    session_id: 'string',
  },
};

const CANCEL_PARAMS: ShapeOf<CancelParams> = {
  fields: {
    trading_key: 'string',
    cancel_nonce: 'bigint',
    session_id: 'string',
    trading_key_signature: 'string',
  },
};

const MODIFY_REQUEST: ShapeOf<ModifyRequest> = {
  fields: { cancel_signature: 'string', cancel_nonce: 'bigint', replacement: PLACE_ORDER },
};

const MARKET_CONFIG: ShapeOf<MarketConfig> = {
  fields: {
    symbol: 'string',
    marketId: 'string',
    baseMint: 'string',
    quoteMint: 'string',
    tickSize: 'bigint',
    minSize: 'bigint',
    priceScale: 'bigint',
    oracleFeed: 'string',
    bandBps: 'bigint',
    batchIntervalSlots: 'bigint',
  },
};

/** Per command type, the shape of that command. */
export const COMMAND_SHAPES: { readonly [C in Command as C['type']]: ShapeOf<C> } = {
  boot: { fields: { type: 'string', sessionId: 'string', slot: 'bigint' } },
  add_market: { fields: { type: 'string', market: MARKET_CONFIG } },
  place: {
    fields: {
      type: 'string',
      order: PLACE_ORDER,
      bodyDigest: 'string',
      accountId: 'string',
      connectionId: { nullable: 'string' },
      slot: 'bigint',
    },
  },
  cancel: {
    fields: { type: 'string', orderId: 'string', params: CANCEL_PARAMS, accountId: 'string', slot: 'bigint' },
  },
  modify: {
    fields: {
      type: 'string',
      oldOrderId: 'string',
      request: MODIFY_REQUEST,
      replacementDigest: 'string',
      accountId: 'string',
      connectionId: { nullable: 'string' },
      slot: 'bigint',
    },
  },
  disconnect: { fields: { type: 'string', connectionId: 'string', slot: 'bigint' } },
  tick: { fields: { type: 'string', slot: 'bigint' } },
  oracle_price: {
    fields: { type: 'string', marketId: 'string', price: { nullable: 'bigint' }, slot: 'bigint' },
  },
  market_gate: {
    fields: { type: 'string', marketId: 'string', pausedReason: { nullable: 'string' }, slot: 'bigint' },
  },
  venue_gate: { fields: { type: 'string', pauseReasons: { list: 'string' }, slot: 'bigint' } },
  roots: { fields: { type: 'string', treeId: 'number', roots: { list: 'string' }, slot: 'bigint' } },
  match_settled: {
    fields: {
      type: 'string',
      marketId: 'string',
      matchId: 'bigint',
      changeNote: {
        nullable: { fields: { commitment: 'string', value: 'bigint', treeId: 'number' } },
      },
      slot: 'bigint',
    },
  },
  match_failed: {
    fields: { type: 'string', marketId: 'string', matchId: 'bigint', reason: 'string', slot: 'bigint' },
  },
  notes_consumed: { fields: { type: 'string', noteCommitments: { list: 'string' }, slot: 'bigint' } },
  dead_man: {
    fields: { type: 'string', accountId: 'string', timeoutSlots: { nullable: 'bigint' }, slot: 'bigint' },
  },
};

const CHANGE_OPENING: ShapeOf<ChangeOpening> = {
  fields: { commitment: 'string', ownerCommitment: 'string', innerHash: 'string' },
};

export const ANNOTATIONS_SHAPE: ShapeOf<Annotations> = {
  fields: { changeOpening: { optional: CHANGE_OPENING }, landedBatchSeq: { optional: 'bigint' } },
};

/** The shape of a command of `type`, or undefined for a type no command has. */
export function commandShape(type: string): Shape | undefined {
  return Object.hasOwn(COMMAND_SHAPES, type) ? COMMAND_SHAPES[type as Command['type']] : undefined;
}
