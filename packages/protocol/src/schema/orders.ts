import Type, { type Static } from 'typebox';
import { BYTES } from '../limits.ts';
import { DecimalU64, Hex, MarketSymbol, OneOf, Strict, U8, U64 } from './primitives.ts';

/** spec 2.1 `side`: bid buys base, ask sells base. Canonical byte: bid 0, ask 1. */
export const SIDES = ['bid', 'ask'] as const;
export type Side = (typeof SIDES)[number];

/** spec 2.1 `order_type`. Canonical byte: limit 0, ioc 1, fok 2. */
export const ORDER_TYPES = ['limit', 'ioc', 'fok'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

const placeOrderFields = {
  symbol: MarketSymbol({ description: 'Market the order routes to (spec 2.1).' }),
  side: OneOf(SIDES, { description: 'bid buys base, ask sells base.' }),
  order_type: OneOf(ORDER_TYPES, {
    description: 'limit rests; ioc and fok take part in their arrival batch only.',
  }),
  amount: U64({ description: 'Size in base units.' }),
  price_limit: U64({
    description:
      'Worst acceptable price in quote units per base, in the market price scale. Bids need > 0; an ask may use 0.',
  }),
  min_fill_size: Type.Optional(
    U64({ description: 'Smallest acceptable fill; default 0. Equal to amount means all-or-none.' }),
  ),
  expiry_slot: U64({ description: 'Chain slot after which the order expires.' }),
  order_id: Hex(BYTES.orderId, { description: 'Client-chosen, unique, non-zero.' }),
  note_commitment: Hex(BYTES.hash, { description: 'Poseidon commitment of the collateral note.' }),
  arrival_nonce: U64({ description: 'Strictly increasing per trading key.' }),
  trading_key: Hex(BYTES.publicKey, { description: 'Ed25519 public key owning the order.' }),
  trading_key_signature: Hex(BYTES.signature, {
    description: 'Ed25519 signature over sha256 of the canonical place-order bytes (docs/protocol.md).',
  }),
  owner_commitment: Hex(BYTES.hash, { description: 'Poseidon2(32, spending key).' }),
  note_inner_hash: Hex(BYTES.hash, { description: 'Amount-independent inner hash of the note.' }),
  merkle_root: Hex(BYTES.hash, { description: 'Root the proof was generated against.' }),
  valid_input_proof: Hex(BYTES.proof, { description: 'Groth16 VALID_INPUT proof: A || B || C.' }),
  collateral_amount: Type.Optional(
    U64({ description: 'Real note value when above the nominal cost; omit for exact.' }),
  ),
  tree_id: Type.Optional(U8({ description: 'Merkle shard of the note; default 0.' })),
  viewing_pubkey: Hex(BYTES.publicKey, { description: 'X25519 key fill memos are encrypted to.' }),
  session_id: Hex(BYTES.sessionId, { description: 'Boot session id from GET /info.' }),
};

/** spec 2.1: the signed place-order body (POST /orders, stream order.place params, modify replacement). */
export const PlaceOrderSchema = Strict(placeOrderFields, { title: 'PlaceOrder' });
export type PlaceOrder = Static<typeof PlaceOrderSchema>;

/** A place-order body before signing: everything but the signature. */
export type UnsignedPlaceOrder = Omit<PlaceOrder, 'trading_key_signature'>;

/**
 * spec 2.4: cancel parameters, the JSON body of DELETE /orders/{order_id} and the `params` of the
 * stream's order.cancel. The order id comes from the path or the frame. `cancel_nonce` travels as a
 * canonical decimal string, as in the modify request (2.2), so one rule covers both.
 */
export const CancelParamsSchema = Strict(
  {
    trading_key: Hex(BYTES.publicKey, { description: 'The key the order was placed with.' }),
    cancel_nonce: DecimalU64({ description: 'Strictly increasing per trading key, shared with modify.' }),
    session_id: Hex(BYTES.sessionId, { description: 'Current boot session id.' }),
    trading_key_signature: Hex(BYTES.signature, {
      description: 'Ed25519 signature over sha256 of the canonical cancel bytes.',
    }),
  },
  { title: 'CancelParams' },
);
export type CancelParams = Static<typeof CancelParamsSchema>;

/** spec 2.2: the body of PUT /orders/{order_id} and the `params` of the stream's order.modify. */
export const ModifyRequestSchema = Strict(
  {
    cancel_signature: Hex(BYTES.signature, {
      description: 'Ed25519 signature over sha256 of the canonical modify-cancel bytes of the old order.',
    }),
    cancel_nonce: DecimalU64({ description: 'Strictly increasing per trading key, shared with cancel.' }),
    replacement: PlaceOrderSchema,
  },
  { title: 'ModifyRequest' },
);
export type ModifyRequest = Static<typeof ModifyRequestSchema>;

/** spec 2.5: place response, also the `result` of the stream's order.place reply. */
export const PlaceResponseSchema = Strict(
  {
    order_id: Hex(BYTES.orderId),
    status: Type.Literal('accepted'),
    arrival_slot: U64({ description: 'Slot stamped on the order at intake.' }),
  },
  { title: 'PlaceResponse' },
);
export type PlaceResponse = Static<typeof PlaceResponseSchema>;

/** spec 2.3: modify response, also the `result` of the stream's order.modify reply. */
export const ModifyResponseSchema = Strict(
  {
    old_order_id: Hex(BYTES.orderId),
    order_id: Hex(BYTES.orderId, { description: 'Equals old_order_id on a reprice in place.' }),
    status: Type.Literal('modified'),
    arrival_slot: U64({ description: 'Slot stamped on the replacement.' }),
  },
  { title: 'ModifyResponse' },
);
export type ModifyResponse = Static<typeof ModifyResponseSchema>;

/**
 * Cancel response (not shown in the spec; ours): the id, the final status and the slot at which
 * the venue took the cancel. Also the `result` of the stream's order.cancel reply.
 */
export const CancelResponseSchema = Strict(
  {
    order_id: Hex(BYTES.orderId),
    status: Type.Literal('cancelled'),
    cancelled_slot: U64({ description: 'Venue slot at which the cancel was sequenced.' }),
  },
  { title: 'CancelResponse' },
);
export type CancelResponse = Static<typeof CancelResponseSchema>;
