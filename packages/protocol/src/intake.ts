import { isAcceptableTradingKey } from './crypto/ed25519.ts';
import { isLowOrderX25519 } from './crypto/x25519.ts';
import { VenueError } from './errors/venue-error.ts';
import { decode } from './schema/decode.ts';
import {
  type CancelParams,
  CancelParamsSchema,
  type ModifyRequest,
  ModifyRequestSchema,
  type PlaceOrder,
  PlaceOrderSchema,
} from './schema/orders.ts';

/**
 * Decoding of the three signed requests from parsed JSON: schema first, then the rules of spec 2.1
 * that need no venue state. Both the venue and the SDK run these, so a client learns of a bad order
 * before it is sent. Rules that need the market or the book (tick, minimum size, expiry window,
 * nonces, notes) belong to the core.
 */

const ZERO_ORDER_ID = '0'.repeat(32);

/** spec 2.1 field rules that hold for any market. `path` prefixes field names in messages. */
export function checkPlaceOrderFields(order: PlaceOrder, path = ''): void {
  const at = (field: string) => `field \`${path}${field}\``;
  if (order.order_id === ZERO_ORDER_ID) {
    throw new VenueError(
      'ZERO_ORDER_ID',
      `${at('order_id')}: must not be all zeros; choose a random 16-byte id`,
    );
  }
  if (order.side === 'bid' && order.price_limit === 0n) {
    throw new VenueError(
      'BID_PRICE_ZERO',
      `${at('price_limit')}: a bid needs a price above 0 (only an ask may use 0)`,
    );
  }
  if (order.amount === 0n) {
    throw new VenueError('BELOW_MIN_SIZE', `${at('amount')}: must be at least 1 base unit`);
  }
  if ((order.min_fill_size ?? 0n) > order.amount) {
    throw new VenueError(
      'MIN_FILL_ABOVE_AMOUNT',
      `${at('min_fill_size')}: ${order.min_fill_size} is larger than amount ${order.amount}`,
    );
  }
  if (!isAcceptableTradingKey(order.trading_key)) {
    throw new VenueError(
      'INVALID_TRADING_KEY',
      `${at('trading_key')}: not a canonical Ed25519 public key of full order; use the key your signer reports`,
    );
  }
  if (isLowOrderX25519(order.viewing_pubkey)) {
    throw new VenueError(
      'LOW_ORDER_VIEWING_KEY',
      `${at('viewing_pubkey')}: a low-order X25519 key would expose fill memos; generate a fresh viewing key`,
    );
  }
}

export function decodePlaceOrder(json: unknown): PlaceOrder {
  const order = decode(PlaceOrderSchema, json);
  checkPlaceOrderFields(order);
  return order;
}

export function decodeCancelParams(json: unknown): CancelParams {
  return decode(CancelParamsSchema, json);
}

export function decodeModifyRequest(json: unknown): ModifyRequest {
  const request = decode(ModifyRequestSchema, json);
  checkPlaceOrderFields(request.replacement, 'replacement.');
  return request;
}
