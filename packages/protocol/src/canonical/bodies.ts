import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { VenueError } from '../errors/venue-error.ts';
import { BYTES } from '../limits.ts';
import { ORDER_TYPES, type PlaceOrder, SIDES, type UnsignedPlaceOrder } from '../schema/orders.ts';
import { decodeLayout, encodeLayout, type LayoutField, place } from './layout.ts';

/**
 * The three signed bodies of the interface (spec section 5 item 3; byte layout ours, documented in
 * docs/protocol.md). Each begins with its own zero-terminated domain tag, so a signature over one
 * kind of body can never be read as a signature over another.
 */

/** spec section 9: the order signature domain. */
export const PLACE_ORDER_DOMAIN = 'venue-order-v5';
/** Our cancel domain, versioned with the order domain. */
export const CANCEL_DOMAIN = 'venue-cancel-v5';
/** Our modify domain: the cancel half of a modify, bound to its replacement. */
export const MODIFY_DOMAIN = 'venue-modify-v5';

const hex = (bytes: number) => ({ kind: 'hex', bytes }) as const;
const u64 = { kind: 'u64' } as const;

/**
 * The place-order body. The signature covers every field of the body except itself, a superset of
 * what spec 2.1 requires it to cover: no relay can swap the proof, the root or the note under a
 * valid signature, and "the same signed body" means the same canonical bytes.
 */
export const PLACE_ORDER_LAYOUT = place([
  {
    name: 'domain',
    type: { kind: 'domain', tag: PLACE_ORDER_DOMAIN },
    note: 'ASCII "venue-order-v5" then one 0x00',
  },
  { name: 'symbol', type: { kind: 'symbol' }, note: 'length byte, ASCII symbol, zero padding to 32 bytes' },
  { name: 'side', type: { kind: 'enum', values: SIDES }, note: 'bid = 0x00, ask = 0x01' },
  {
    name: 'order_type',
    type: { kind: 'enum', values: ORDER_TYPES },
    note: 'limit = 0x00, ioc = 0x01, fok = 0x02',
  },
  { name: 'amount', type: u64, note: 'u64 big-endian' },
  { name: 'price_limit', type: u64, note: 'u64 big-endian' },
  { name: 'min_fill_size', type: u64, note: 'u64 big-endian; absent in JSON = 0' },
  { name: 'expiry_slot', type: u64, note: 'u64 big-endian' },
  { name: 'order_id', type: hex(BYTES.orderId), note: 'raw bytes of the hex' },
  { name: 'note_commitment', type: hex(BYTES.hash), note: 'raw bytes of the hex' },
  { name: 'arrival_nonce', type: u64, note: 'u64 big-endian' },
  { name: 'trading_key', type: hex(BYTES.publicKey), note: 'raw Ed25519 public key' },
  { name: 'owner_commitment', type: hex(BYTES.hash), note: 'raw bytes of the hex' },
  { name: 'note_inner_hash', type: hex(BYTES.hash), note: 'raw bytes of the hex' },
  { name: 'merkle_root', type: hex(BYTES.hash), note: 'raw bytes of the hex' },
  { name: 'valid_input_proof', type: hex(BYTES.proof), note: 'raw proof bytes A || B || C' },
  {
    name: 'collateral_amount',
    type: { kind: 'optional-u64' },
    note: 'presence byte (0x00 absent, 0x01 present), then u64 big-endian (zero when absent)',
  },
  { name: 'tree_id', type: { kind: 'u8' }, note: 'one byte; absent in JSON = 0' },
  { name: 'viewing_pubkey', type: hex(BYTES.publicKey), note: 'raw X25519 public key' },
  { name: 'session_id', type: hex(BYTES.sessionId), note: 'raw boot session id' },
] satisfies LayoutField[]);

/** The cancel body (spec 2.4, section 5 item 3): order id, trading key, cancel nonce, boot session. */
export const CANCEL_LAYOUT = place([
  {
    name: 'domain',
    type: { kind: 'domain', tag: CANCEL_DOMAIN },
    note: 'ASCII "venue-cancel-v5" then one 0x00',
  },
  { name: 'order_id', type: hex(BYTES.orderId), note: 'the order to cancel (path or frame order_id)' },
  { name: 'trading_key', type: hex(BYTES.publicKey), note: 'raw Ed25519 public key' },
  { name: 'cancel_nonce', type: u64, note: 'u64 big-endian (the JSON carries it as a decimal string)' },
  { name: 'session_id', type: hex(BYTES.sessionId), note: 'raw boot session id' },
] satisfies LayoutField[]);

/**
 * The cancel half of a modify (spec 2.2, 4.1): the cancel body of the OLD order under its own
 * domain, plus the sha256 of the replacement's canonical bytes. The trading key and session are the
 * replacement's (spec 4.1 rules 3 and 6). Binding the replacement means this signature cannot be
 * detached and replayed as a bare cancel, nor paired with another replacement.
 */
export const MODIFY_LAYOUT = place([
  {
    name: 'domain',
    type: { kind: 'domain', tag: MODIFY_DOMAIN },
    note: 'ASCII "venue-modify-v5" then one 0x00',
  },
  { name: 'order_id', type: hex(BYTES.orderId), note: 'the OLD order id (path or frame order_id)' },
  { name: 'trading_key', type: hex(BYTES.publicKey), note: "the replacement's trading_key" },
  { name: 'cancel_nonce', type: u64, note: 'u64 big-endian (the JSON carries it as a decimal string)' },
  { name: 'session_id', type: hex(BYTES.sessionId), note: "the replacement's session_id" },
  {
    name: 'replacement_digest',
    type: hex(32),
    note: "sha256 of the replacement's canonical place-order bytes",
  },
] satisfies LayoutField[]);

export interface CancelBody {
  order_id: string;
  trading_key: string;
  cancel_nonce: bigint;
  session_id: string;
}

export interface ModifyCancelBody extends CancelBody {
  /** sha256 of the replacement's canonical bytes, hex. */
  replacement_digest: string;
}

/** One-shot crypto.hash where Node has it (20.12+): about half the cost of a Hash object. */
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer })
  .hash;

export function sha256(bytes: Uint8Array): Uint8Array {
  if (oneShot !== undefined) return oneShot('sha256', bytes, 'buffer');
  return createHash('sha256').update(bytes).digest();
}

export function encodePlaceOrder(order: UnsignedPlaceOrder | PlaceOrder): Uint8Array {
  return encodeLayout(
    PLACE_ORDER_LAYOUT.fields,
    PLACE_ORDER_LAYOUT.size,
    order as unknown as Record<string, unknown>,
  );
}

export function encodeCancel(body: CancelBody): Uint8Array {
  return encodeLayout(CANCEL_LAYOUT.fields, CANCEL_LAYOUT.size, body as unknown as Record<string, unknown>);
}

export function encodeModifyCancel(body: ModifyCancelBody): Uint8Array {
  return encodeLayout(MODIFY_LAYOUT.fields, MODIFY_LAYOUT.size, body as unknown as Record<string, unknown>);
}

/** Builds the modify-cancel body of spec 4.1 from the request's parts. */
export function modifyCancelBody(
  oldOrderId: string,
  cancelNonce: bigint,
  replacement: UnsignedPlaceOrder,
): ModifyCancelBody {
  return {
    order_id: oldOrderId,
    trading_key: replacement.trading_key,
    cancel_nonce: cancelNonce,
    session_id: replacement.session_id,
    replacement_digest: Buffer.from(sha256(encodePlaceOrder(replacement))).toString('hex'),
  };
}

/** Reads canonical place-order bytes back into the unsigned JSON form (min_fill_size and tree_id explicit). */
export function decodePlaceOrderBytes(bytes: Uint8Array): UnsignedPlaceOrder {
  const result = decodeLayout(PLACE_ORDER_LAYOUT.fields, PLACE_ORDER_LAYOUT.size, bytes);
  if (!result.ok) throw new VenueError('INVALID_FORMAT', `canonical place-order bytes: ${result.problem}`);
  const { domain: _domain, ...values } = result.values;
  return values as unknown as UnsignedPlaceOrder;
}

export function decodeCancelBytes(bytes: Uint8Array): CancelBody {
  const result = decodeLayout(CANCEL_LAYOUT.fields, CANCEL_LAYOUT.size, bytes);
  if (!result.ok) throw new VenueError('INVALID_FORMAT', `canonical cancel bytes: ${result.problem}`);
  const { domain: _domain, ...values } = result.values;
  return values as unknown as CancelBody;
}

export function decodeModifyCancelBytes(bytes: Uint8Array): ModifyCancelBody {
  const result = decodeLayout(MODIFY_LAYOUT.fields, MODIFY_LAYOUT.size, bytes);
  if (!result.ok) throw new VenueError('INVALID_FORMAT', `canonical modify bytes: ${result.problem}`);
  const { domain: _domain, ...values } = result.values;
  return values as unknown as ModifyCancelBody;
}
