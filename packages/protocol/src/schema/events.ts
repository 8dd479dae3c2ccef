import Type, { type Static } from 'typebox';
import { BYTES } from '../limits.ts';
import { NO_FILL_REASONS, ORDER_STATES, type OrderState, SETTLEMENT_FAILURE_REASONS } from './account.ts';
import { Base58Address, Count, DecimalU64, Hex, OneOf, Strict, U8, U64, UnixMs } from './primitives.ts';
import { LEAVES_PAGE_MAX, LeafSchema } from './tree.ts';

/**
 * Channel messages of the session stream (spec 6): what the venue pushes after `subscribe`. Every
 * message carries `channel` (never `op`): a client tells pushed events from replies by which of the
 * two keys is present.
 */

/** spec 4.8: the channels a session can subscribe to. */
export const CHANNELS = ['orders', 'fills', 'tree'] as const;
export type Channel = (typeof CHANNELS)[number];

/**
 * Per-connection sequence number of a server frame, from 1 (spec 4.8, spec 6.1). One counter covers
 * every frame the server sends on a connection, replies and channel messages alike, so any gap
 * means a lost frame. A JS-safe integer: 2^53 frames outlast any connection.
 */
export function Seq() {
  return Count(Number.MAX_SAFE_INTEGER, { description: 'Per-connection, +1 per server frame, from 1.' });
}

/** spec 6.1 `kind`: every order state but `resting`, which only the place response reports. */
export const ORDER_EVENT_KINDS = ORDER_STATES.filter(
  (s): s is Exclude<OrderState, 'resting'> => s !== 'resting',
);
export type OrderEventKind = (typeof ORDER_EVENT_KINDS)[number];

/** spec 6.1: orders channel event, field for field. */
export const OrderEventSchema = Strict(
  {
    channel: Type.Literal('orders'),
    seq: Seq(),
    order_id: Hex(BYTES.orderId),
    market_id: Base58Address(),
    match_id: Type.Optional(DecimalU64({ description: 'Settlement events: per-market match id.' })),
    server_time_ms: UnixMs(),
    kind: OneOf(ORDER_EVENT_KINDS),
    filled_quantity: Type.Optional(U64({ description: 'Fill events: cumulative filled base units.' })),
    new_amount: Type.Optional(U64({ description: 'partially_filled: base units still resting.' })),
    new_note_amount: Type.Optional(
      U64({ description: 'partially_filled: value of the re-locked change note.' }),
    ),
    reason: Type.Optional(OneOf(SETTLEMENT_FAILURE_REASONS, { description: 'settlement_failed only.' })),
    lock_expiry_slot: Type.Optional(
      U64({ description: 'pending_settlement and settlement_failed: earliest unlock slot of the note.' }),
    ),
    // An additional field (ours, not in spec 6.1's table): readers that ignore unknown fields, as
    // the SDK does, are unaffected. Only on the `cancelled` event of an ioc or fok order whose
    // arrival batch gave it nothing (docs/api.md, "Why an order did not fill").
    unfilled_reason: Type.Optional(
      OneOf(NO_FILL_REASONS, { description: 'ioc/fok cancelled unfilled: why its batch gave it nothing.' }),
    ),
  },
  { title: 'OrderEvent' },
);
export type OrderEvent = Static<typeof OrderEventSchema>;

/**
 * Fill memo encryption (design decisions section 3): ephemeral X25519 against the order's
 * viewing_pubkey, HKDF-SHA256 to a 32-byte key, ChaCha20-Poly1305 (IETF, 12-byte nonce). The name
 * spells out all three so a client can refuse a scheme it does not implement.
 */
export const FILL_MEMO_SCHEME = 'x25519-hkdf-sha256-chacha20poly1305';

/** HKDF `info` of the memo key; salt is ephemeral_pubkey || viewing_pubkey. */
export const FILL_MEMO_KDF_INFO = 'venue-fill-memo-v1';

/**
 * The plaintext is the memo JSON padded with trailing spaces (valid JSON whitespace) to exactly
 * this many bytes, so the ciphertext length says nothing about the amounts inside.
 */
export const FILL_MEMO_PLAINTEXT_BYTES = 1008;

/** Plaintext plus the 16-byte Poly1305 tag. */
export const FILL_MEMO_CIPHERTEXT_BYTES = FILL_MEMO_PLAINTEXT_BYTES + 16;

export const FillMemoSchema = Strict(
  {
    scheme: Type.Literal(FILL_MEMO_SCHEME),
    ephemeral_pubkey: Hex(BYTES.publicKey, { description: 'Fresh X25519 key for this memo only.' }),
    nonce: Hex(12, { description: 'ChaCha20-Poly1305 nonce.' }),
    ciphertext: Hex(FILL_MEMO_CIPHERTEXT_BYTES, {
      description: 'AEAD output; associated data is order_id (16 bytes) || match_id (u64 big-endian).',
    }),
  },
  { title: 'FillMemo' },
);
export type FillMemo = Static<typeof FillMemoSchema>;

/**
 * Fills channel message: one per order per match, sent when the batch settling the match confirms
 * (the output notes then exist on chain). Only the owner's account receives it, and only the
 * holder of the viewing key can read the amounts.
 */
export const FillMessageSchema = Strict(
  {
    channel: Type.Literal('fills'),
    seq: Seq(),
    order_id: Hex(BYTES.orderId),
    market_id: Base58Address(),
    match_id: DecimalU64(),
    batch_seq: U64({ description: 'Settlement batch of the match: look it up in /settlement/status.' }),
    server_time_ms: UnixMs(),
    memo: FillMemoSchema,
  },
  { title: 'FillMessage' },
);
export type FillMessage = Static<typeof FillMessageSchema>;

/** A note created by settlement, as the memo describes it to its owner. */
export const MemoNoteSchema = Strict(
  {
    commitment: Hex(BYTES.hash, { description: 'Leaf the chain appended.' }),
    inner_hash: Hex(BYTES.hash, {
      description:
        'Amount-independent inner hash: with amount it re-derives commitment, and a later order needs it.',
    }),
    tree_id: U8(),
    leaf_index: Type.Optional(U64({ description: 'Present when the chain reported the append.' })),
    amount: U64({ description: 'Value of the note in base units of its mint.' }),
    mint: Base58Address(),
  },
  { title: 'MemoNote' },
);
export type MemoNote = Static<typeof MemoNoteSchema>;

/** The decrypted memo (JSON, then space padding). Amounts of this order's side of the match. */
export const FillMemoPlaintextSchema = Strict(
  {
    fill_quantity: U64({ description: 'Base units this order traded in the match.' }),
    quote_amount: U64({ description: 'floor(fill_quantity x clearing_price / price_scale).' }),
    clearing_price: U64({ description: 'The batch price, in the market price scale.' }),
    received: MemoNoteSchema,
    change: Type.Optional(MemoNoteSchema),
  },
  { title: 'FillMemoPlaintext' },
);
export type FillMemoPlaintext = Static<typeof FillMemoPlaintextSchema>;

/**
 * Tree channel message: leaves appended to one shard, contiguous from `leaves[0].index`, and the
 * root and size after them. A client that holds leaf_count - leaves.length leaves is in step;
 * otherwise it pages the gap from GET /tree/leaves.
 */
export const TreeMessageSchema = Strict(
  {
    channel: Type.Literal('tree'),
    seq: Seq(),
    tree_id: U8(),
    slot: U64(),
    root: Hex(BYTES.hash),
    leaf_count: U64(),
    leaves: Type.Array(LeafSchema, { maxItems: LEAVES_PAGE_MAX }),
  },
  { title: 'TreeMessage' },
);
export type TreeMessage = Static<typeof TreeMessageSchema>;

/** Channel -> message schema, for the AsyncAPI document and for dispatch on `channel`. */
export const CHANNEL_MESSAGES = {
  orders: OrderEventSchema,
  fills: FillMessageSchema,
  tree: TreeMessageSchema,
} as const satisfies Record<Channel, unknown>;

export type ChannelMessage = OrderEvent | FillMessage | TreeMessage;
