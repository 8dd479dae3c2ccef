import Type, { type Static } from 'typebox';
import { BYTES } from '../limits.ts';
import { AccountId } from './auth.ts';
import { ORDER_TYPES, SIDES } from './orders.ts';
import { Base58Address, DecimalU64, Hex, MarketSymbol, OneOf, Strict, U8, U64 } from './primitives.ts';

/**
 * What the venue tells an account about its own orders: the order record of GET /orders/{order_id}
 * (spec 4.3, used to reconcile after a stream gap, spec 6.1), the open-order list of GET /account,
 * and the account settings of spec 2.9. No balances or notes beyond the one backing each order
 * (spec 4.3: the venue keeps no ledger).
 */

/** spec 3.1: the order lifecycle. Terminal: fully_filled, settlement_failed, cancelled, expired. */
export const ORDER_STATES = [
  'resting',
  'pending_settlement',
  'partially_filled',
  'fully_filled',
  'settlement_failed',
  'cancelled',
  'expired',
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

export const TERMINAL_ORDER_STATES: readonly OrderState[] = [
  'fully_filled',
  'settlement_failed',
  'cancelled',
  'expired',
];

/**
 * Why a settlement definitively failed (spec 3.1 `reason`, spec 6.1). One machine-readable word per
 * check the chain makes on a batch (design decisions section 3), so bots can branch without parsing
 * prose. Shared by the order record, the orders event and the settlement status.
 */
export const SETTLEMENT_FAILURE_REASONS = [
  'root_expired', // the input proof's root left the on-chain recent-root window
  'note_consumed', // an input note was already consumed on chain
  'note_locked', // an input note is locked by another settlement
  'lock_expired', // the lock expired before the batch landed
  'lock_reverted', // the chain reverted the lock of an input note
  'signer_rejected', // the chain did not accept the batch signer (governance)
  'confirmation_timeout', // the batch never confirmed before its deadline
  'proof_invalid', // a leg's VALID_MATCH proof did not verify, or the fills did not pair
  'chain_rejected', // any other definitive rejection by the chain
] as const;
export type SettlementFailureReason = (typeof SETTLEMENT_FAILURE_REASONS)[number];

/**
 * Why an order ended `cancelled`. Not in the orders event (spec 6.1 fixes its fields); the record
 * carries it so a reconciling bot can tell its own cancels from the venue's.
 */
export const CANCEL_REASONS = [
  'owner', // cancel request signed by the trading key
  'modify', // retired by a modify with a new order_id (spec 3.1)
  'disconnect', // cancel-on-disconnect sweep (spec 4.8 rule 2)
  'ioc_remainder', // the part of an ioc order its arrival batch did not fill
  'fok_unfilled', // a fok order its arrival batch could not fill whole
  'note_consumed', // its note was consumed on chain (withdrawn, merged or settled elsewhere)
  'dead_man', // the account's dead-man timer ran out (POST /account/dead-man)
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/**
 * Why an order that took part in a batch auction got nothing in it (docs/core-auction.md, "What an
 * owner is told"). Each word depends on the order's own terms and on the batch's outcome relative to
 * them, never on another order's identity or size.
 */
export const NO_FILL_REASONS = [
  'market_paused', // trading was paused: the batch did not clear at all
  'no_oracle', // no valid oracle price: the market cannot clear
  'outside_band', // no candidate price inside the oracle band, or the order's limit lies beyond it
  'no_counterparty', // no price at which both sides had volume
  'limit', // the batch cleared at a price worse than the order's limit
  'priority', // eligible at the clearing price, but orders ahead of it (price, then time) took the volume
  'unmatched', // eligible, nothing ahead of it filled, yet no pairing met both sides' terms (theirs or self-trade)
  'min_fill', // the fill available to it was below its own min_fill_size
  'all_or_none', // the fill available to it was below its whole remaining size (min_fill_size == amount)
  'fill_or_kill', // a fok order whose whole amount could not be filled in its arrival batch
  'self_trade', // the only volume left was of the same trading key or note owner
  'zero_quote', // the fill available to it was too small to move one quote unit
] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];

/** The latest batch in which an open order took part and got nothing, and why. */
export const UnfilledBatchSchema = Strict(
  {
    batch: U64({ description: "The market's auction batch number (GET /admin/auctions/... for auditors)." }),
    slot: U64({ description: 'Slot at which the batch ran.' }),
    reason: OneOf(NO_FILL_REASONS),
  },
  { title: 'UnfilledBatch' },
);

/** GET /orders/{order_id}: the venue's current view of one order of the caller's account. */
export const OrderRecordSchema = Strict(
  {
    order_id: Hex(BYTES.orderId),
    market_id: Base58Address({ description: 'On-chain market configuration address (spec 6.1).' }),
    symbol: MarketSymbol(),
    side: OneOf(SIDES),
    order_type: OneOf(ORDER_TYPES),
    state: OneOf(ORDER_STATES),
    amount: U64({ description: 'Original size in base units, as signed.' }),
    remaining_amount: U64({
      description: 'amount - filled_quantity: base units not (yet) executed. Still resting only while open.',
    }),
    filled_quantity: U64({ description: 'Cumulative base units filled by confirmed settlements.' }),
    price_limit: U64({ description: 'As signed.' }),
    min_fill_size: U64({ description: 'As signed; 0 when the order omitted it.' }),
    expiry_slot: U64(),
    arrival_slot: U64({ description: 'Slot stamped at intake (or on the replacement of a modify).' }),
    note_commitment: Hex(BYTES.hash, {
      description: 'Note currently backing the order: the change note after a partial fill.',
    }),
    tree_id: U8({ description: 'Merkle shard of that note.' }),
    trading_key: Hex(BYTES.publicKey, { description: 'Key that owns the order.' }),
    match_id: Type.Optional(
      DecimalU64({ description: 'Latest per-market match that involved the order, once matched.' }),
    ),
    reason: Type.Optional(
      OneOf(SETTLEMENT_FAILURE_REASONS, { description: 'Present in state settlement_failed.' }),
    ),
    cancel_reason: Type.Optional(OneOf(CANCEL_REASONS, { description: 'Present in state cancelled.' })),
    lock_expiry_slot: Type.Optional(
      U64({
        description:
          'While pending_settlement or after settlement_failed: the note lock ends here; reuse the note after it.',
      }),
    ),
    last_update_slot: U64({
      description: 'Slot of the last state change; orders the record against events.',
    }),
    last_unfilled: Type.Optional(UnfilledBatchSchema),
  },
  { title: 'OrderRecord' },
);
export type OrderRecord = Static<typeof OrderRecordSchema>;

/** spec 2.9: account settings. PUT replaces the whole object, so every field is required. */
export const AccountSettingsSchema = Strict(
  {
    cancel_on_disconnect_default: Type.Boolean({
      description: 'Applies to logins that do not state cancel_on_disconnect; default false.',
    }),
  },
  { title: 'AccountSettings' },
);
export type AccountSettings = Static<typeof AccountSettingsSchema>;

/**
 * Most orders one account may have open (resting, pending_settlement or partially_filled) at once.
 * GET /account returns them all in one array, so the bound on the array is the bound on the book
 * share of an account; the venue refuses a place or modify that would exceed it.
 */
export const ACCOUNT_OPEN_ORDERS_MAX = 1000;

/** spec 4.3: GET /account. Open orders only, no balances or notes. */
export const AccountResponseSchema = Strict(
  {
    account_id: AccountId(),
    open_orders: Type.Array(OrderRecordSchema, {
      maxItems: ACCOUNT_OPEN_ORDERS_MAX,
      description: 'Every open order of the account, oldest arrival first.',
    }),
    settings: AccountSettingsSchema,
  },
  { title: 'AccountResponse' },
);
export type AccountResponse = Static<typeof AccountResponseSchema>;
