/**
 * The one error catalogue of the venue (spec 4.1.0 section 7).
 *
 * Every error the venue can return is listed here with its stable numeric code, the HTTP status it
 * travels with, and what it means. Codes are grouped in the ranges the spec fixes:
 * 1000-1099 request validation, 1100-1199 auth, 1200-1299 conflict, 1300-1399 not found,
 * 1400-1499 rate limit, 5000+ server side. Two codes are fixed by the spec itself: 1102 (trading-key
 * signature does not verify) and 1402 (credential verification at capacity, HTTP 503 not 429).
 *
 * Codes are never reused or renumbered: clients branch on them. docs/errors.md is generated from
 * this table (`npm run docs:errors`) and a test fails if the two disagree.
 */

export type ErrorRange = 'validation' | 'auth' | 'conflict' | 'not_found' | 'rate_limit' | 'server';

export interface ErrorDefinition {
  readonly code: number;
  readonly http: number;
  /** One sentence for the docs: when a client sees this code and what to do about it. */
  readonly meaning: string;
}

export const ERRORS = {
  // 1000-1099: the request is malformed or fails a validation rule. Nothing was changed.
  MALFORMED_JSON: {
    code: 1000,
    http: 400,
    meaning: 'The body or frame is not valid JSON (or repeats a key).',
  },
  UNKNOWN_FIELD: {
    code: 1001,
    http: 400,
    meaning: 'The object carries a field the interface does not define.',
  },
  MISSING_FIELD: { code: 1002, http: 400, meaning: 'A required field is absent.' },
  WRONG_TYPE: {
    code: 1003,
    http: 400,
    meaning: 'A field has the wrong JSON type (e.g. a string where an integer is due).',
  },
  INVALID_HEX: {
    code: 1004,
    http: 400,
    meaning: 'A hex field has the wrong length or characters other than lowercase 0-9a-f.',
  },
  OUT_OF_RANGE: {
    code: 1005,
    http: 400,
    meaning: 'An integer is outside its bounds (u64: 0 to 18446744073709551615; u8: 0 to 255).',
  },
  NON_CANONICAL_NUMBER: {
    code: 1006,
    http: 400,
    meaning: 'A number is not written canonically: no fraction, exponent, sign or leading zero.',
  },
  INVALID_ENUM: {
    code: 1007,
    http: 400,
    meaning: 'A field holds a value outside its fixed set (e.g. side other than bid/ask).',
  },
  BODY_TOO_LARGE: {
    code: 1008,
    http: 413,
    meaning: 'The body or frame exceeds the size limit for its route.',
  },
  INVALID_FORMAT: {
    code: 1009,
    http: 400,
    meaning: 'A string does not match its format (e.g. a market symbol).',
  },
  TOO_DEEP: { code: 1010, http: 400, meaning: 'The JSON nests deeper than any valid request does.' },
  UNSUPPORTED_MEDIA_TYPE: { code: 1011, http: 415, meaning: 'The body is not sent as application/json.' },
  INVALID_QUERY: {
    code: 1012,
    http: 400,
    meaning: 'A query-string or path parameter is missing or malformed.',
  },
  UNKNOWN_OP: { code: 1013, http: 400, meaning: 'A stream frame names an op the stream does not have.' },
  MALFORMED_REQUEST: {
    code: 1014,
    http: 400,
    meaning: 'The HTTP request itself is malformed (request line, headers, or a body length that lies).',
  },
  HEADERS_TOO_LARGE: {
    code: 1015,
    http: 431,
    meaning: 'The request line and headers exceed the size limit.',
  },
  UNKNOWN_SYMBOL: {
    code: 1020,
    http: 400,
    meaning: 'The order names a market symbol this venue does not list.',
  },
  ZERO_ORDER_ID: {
    code: 1021,
    http: 400,
    meaning: 'order_id is all zeros; choose a random non-zero 16-byte id.',
  },
  BID_PRICE_ZERO: {
    code: 1022,
    http: 400,
    meaning: 'A bid must carry price_limit above 0 (only an ask may use 0).',
  },
  PRICE_NOT_ON_TICK: {
    code: 1023,
    http: 400,
    meaning: "price_limit is not a multiple of the market's tick_size.",
  },
  BELOW_MIN_SIZE: { code: 1024, http: 400, meaning: "amount is below the market's minimum order size." },
  MIN_FILL_ABOVE_AMOUNT: { code: 1025, http: 400, meaning: 'min_fill_size is larger than amount.' },
  EXPIRY_TOO_SOON: {
    code: 1026,
    http: 400,
    meaning: "expiry_slot does not leave the venue's settlement buffer after the current slot.",
  },
  EXPIRY_TOO_FAR: {
    code: 1027,
    http: 400,
    meaning: 'expiry_slot is more than 4,500 slots after the current slot.',
  },
  COST_OVERFLOW: {
    code: 1028,
    http: 400,
    meaning: 'amount x price_limit overflows u64 in the market price scale.',
  },
  INSUFFICIENT_COLLATERAL: {
    code: 1029,
    http: 400,
    meaning: "collateral_amount is below the order's nominal cost; the note must cover it.",
  },
  TREE_ID_OUT_OF_RANGE: {
    code: 1030,
    http: 400,
    meaning: 'tree_id names a Merkle shard the chain does not have.',
  },
  UNKNOWN_MERKLE_ROOT: {
    code: 1031,
    http: 400,
    meaning: "merkle_root is not in the shard's recent-root window; re-prove against a fresh root.",
  },
  NOTE_COMMITMENT_MISMATCH: {
    code: 1032,
    http: 400,
    meaning: 'note_commitment does not re-derive from owner_commitment, note_inner_hash and the amount.',
  },
  INVALID_PROOF: {
    code: 1033,
    http: 400,
    meaning: 'valid_input_proof does not verify for the public inputs the order claims.',
  },
  STUB_PROOF_REFUSED: {
    code: 1034,
    http: 400,
    meaning: 'A stub proof was sent to a venue that settles; send a real proof.',
  },
  LOW_ORDER_VIEWING_KEY: {
    code: 1035,
    http: 400,
    meaning: 'viewing_pubkey is a low-order X25519 point that would give an all-zero shared secret.',
  },
  INVALID_TRADING_KEY: {
    code: 1036,
    http: 400,
    meaning: 'trading_key is not a canonical Ed25519 point of full order.',
  },
  CROSS_MARKET_MODIFY: {
    code: 1037,
    http: 400,
    meaning: "A modify's replacement names another symbol; cancel and place a new order instead.",
  },
  UNKNOWN_CHANNEL: {
    code: 1038,
    http: 400,
    meaning: 'subscribe or unsubscribe names a channel other than orders, fills, tree.',
  },
  DEAD_MAN_TIMEOUT_ZERO: {
    code: 1039,
    http: 400,
    meaning:
      'timeout_slots is 0: a dead-man timer needs at least 1 slot; to switch it off, DELETE /account/dead-man.',
  },
  DEAD_MAN_TIMEOUT_TOO_LONG: {
    code: 1040,
    http: 400,
    meaning: 'timeout_slots is above 4,500 (the longest order lifetime); arm a shorter timer and refresh it.',
  },

  // 1100-1199: who the caller is, and what they may do.
  MISSING_TOKEN: {
    code: 1100,
    http: 401,
    meaning: 'No bearer token was sent; send Authorization: Bearer <token>.',
  },
  INVALID_TOKEN: {
    code: 1101,
    http: 401,
    meaning: 'The token is malformed, signed by another key or with another algorithm.',
  },
  BAD_SIGNATURE: {
    code: 1102,
    http: 403,
    meaning: 'The trading-key signature does not verify against the canonical body (fixed by the spec).',
  },
  TOKEN_EXPIRED: {
    code: 1103,
    http: 401,
    meaning: 'The token has passed its exact expiry; obtain a new one.',
  },
  TOKEN_REVOKED: {
    code: 1104,
    http: 401,
    meaning: 'The token was revoked, or all tokens of the account were invalidated; obtain a new one.',
  },
  BAD_CREDENTIALS: {
    code: 1105,
    http: 401,
    meaning: 'api_key, api_secret and passphrase do not match an account.',
  },
  ACCOUNT_DISABLED: {
    code: 1106,
    http: 403,
    meaning: 'The account is suspended by an operator (message: account disabled).',
  },
  NOT_ORDER_OWNER: { code: 1107, http: 403, meaning: 'The order is booked under another trading key.' },
  ADMIN_REQUIRED: { code: 1108, http: 403, meaning: 'The route needs an admin token.' },
  NOT_LOGGED_IN: {
    code: 1109,
    http: 401,
    meaning: 'The stream socket has not logged in yet; send a login frame first.',
  },
  MODIFY_KEY_MISMATCH: {
    code: 1110,
    http: 403,
    meaning: "The modify's cancel and its replacement are not signed by the same trading key.",
  },
  TRADER_REQUIRED: {
    code: 1111,
    http: 403,
    meaning:
      'The route is for trading accounts and the token is an admin token; log in with a trader account.',
  },

  // 1200-1299: the request is well formed but conflicts with the venue's state.
  DUPLICATE_ORDER_ID: {
    code: 1200,
    http: 409,
    meaning: 'order_id is already booked (or was used by another body).',
  },
  STALE_ARRIVAL_NONCE: {
    code: 1201,
    http: 409,
    meaning: 'arrival_nonce is not above every nonce this trading key had accepted before.',
  },
  STALE_CANCEL_NONCE: {
    code: 1202,
    http: 409,
    meaning: 'cancel_nonce is not above every cancel nonce this trading key had accepted before.',
  },
  STALE_SESSION: {
    code: 1203,
    http: 409,
    meaning: 'session_id is not the current boot session; read GET /info and sign again.',
  },
  NOTE_IN_USE: {
    code: 1204,
    http: 409,
    meaning: 'note_commitment already backs a live or settlement-pending order, or its lock has not expired.',
  },
  ORDER_NOT_RESTING: {
    code: 1205,
    http: 409,
    meaning: 'The order is pending settlement or finished, so it cannot be cancelled or modified now.',
  },
  LAST_ENABLED_ADMIN: {
    code: 1206,
    http: 409,
    meaning: 'The last enabled admin account cannot be disabled.',
  },
  ACCOUNT_EXISTS: { code: 1207, http: 409, meaning: 'An account with this api_key already exists.' },
  DRAIN_CONFLICT: {
    code: 1208,
    http: 409,
    meaning: 'The drain request does not fit the current drain state.',
  },
  OPEN_ORDER_LIMIT: {
    code: 1209,
    http: 409,
    meaning: 'The account already has as many open orders as it may (1,000); cancel some first.',
  },
  NOTE_CONSUMED: {
    code: 1210,
    http: 409,
    meaning:
      'The chain has consumed note_commitment (withdrawn, merged or settled), so it can back no order; use another note.',
  },
  ORDER_FINISHED: {
    code: 1211,
    http: 409,
    meaning:
      'This exact body booked an order that has since finished (cancelled, expired, filled or failed); nothing is booked again. GET /orders/{id} tells what became of it while the record is kept (retention_slots after the order ended).',
  },

  // 1300-1399: the thing named does not exist.
  ORDER_NOT_FOUND: {
    code: 1300,
    http: 404,
    meaning: 'No order with this id is known to the venue for this account.',
  },
  UNKNOWN_INSTRUMENT: { code: 1301, http: 404, meaning: 'No market is listed under this symbol.' },
  ROUTE_NOT_FOUND: { code: 1302, http: 404, meaning: 'No route has this path.' },
  METHOD_NOT_ALLOWED: { code: 1303, http: 405, meaning: 'The path exists but not with this method.' },
  ACCOUNT_NOT_FOUND: { code: 1304, http: 404, meaning: 'No account has this api_key.' },
  NOTE_NOT_FOUND: {
    code: 1305,
    http: 404,
    meaning: 'The note commitment is not a leaf of the named tree shard.',
  },
  SETTLEMENT_NOT_FOUND: {
    code: 1306,
    http: 404,
    meaning: 'No settlement batch matches the transaction named.',
  },
  AUCTION_NOT_FOUND: {
    code: 1307,
    http: 404,
    meaning:
      'The venue keeps no explanation of this auction batch: it never ran (nothing took part), or it is older than the last 1,024 kept.',
  },

  // 1400-1499: too much, too fast.
  TOKEN_ALLOWANCE_EXHAUSTED: {
    code: 1400,
    http: 429,
    meaning: "The account's token-issuance allowance is spent; the message gives the retry delay.",
  },
  TRADING_RATE_LIMITED: {
    code: 1401,
    http: 429,
    meaning: "The account's trading request allowance is spent; the message gives the retry delay.",
  },
  AUTH_AT_CAPACITY: {
    code: 1402,
    http: 503,
    meaning:
      'Credential verification is at capacity; the request was refused, not queued (fixed by the spec).',
  },
  SLOW_CONSUMER: {
    code: 1403,
    http: 429,
    meaning: "The stream consumer fell behind its account's buffer; the socket closes with 1011.",
  },
  TOO_MANY_CONNECTIONS: {
    code: 1404,
    http: 429,
    meaning: 'The account holds as many stream sockets as it may.',
  },
  LOGIN_FAILURES_EXHAUSTED: {
    code: 1405,
    http: 429,
    meaning:
      'Logins from this client address failed too often; the message gives the retry delay. Other addresses are unaffected.',
  },

  // 5000+: the venue cannot serve the request right now. Retrying later is safe.
  INTERNAL: {
    code: 5000,
    http: 500,
    meaning: 'An unexpected fault; the request may be retried. It is logged without its payload.',
  },
  TRADING_PAUSED: {
    code: 5001,
    http: 503,
    meaning:
      'New trading is paused venue-wide (attestation, signer or governance mismatch, drain, an unavailable journal, or a state directory that disagrees with the chain).',
  },
  MARKET_PAUSED: {
    code: 5002,
    http: 503,
    meaning: 'New trading is paused on this market (oracle stale or invalid, or circuit breaker).',
  },
  JOURNAL_UNAVAILABLE: {
    code: 5003,
    http: 503,
    meaning:
      'The journal cannot make writes durable; the venue refuses writes until an operator restarts it.',
  },
  CHAIN_UNAVAILABLE: {
    code: 5004,
    http: 503,
    meaning: 'The settlement chain cannot be reached for a read this request needs.',
  },
  SHUTTING_DOWN: { code: 5005, http: 503, meaning: 'The venue is stopping; reconnect to the next boot.' },
  ATTESTATION_UNAVAILABLE: {
    code: 5006,
    http: 503,
    meaning:
      'The venue has no attestation evidence to show (no provider attached); do not send credentials to it.',
  },
  VENUE_BUSY: {
    code: 5007,
    http: 503,
    meaning: 'The venue is verifying as many signatures as it can hold; retry after a short pause.',
  },
  JOURNAL_STALLED: {
    code: 5008,
    http: 503,
    meaning:
      'The replicated journal has lost its broker quorum; nothing acknowledged is lost, and writes resume by themselves once the cluster recovers. Retry later.',
  },
  JOURNAL_FENCED: {
    code: 5009,
    http: 503,
    meaning:
      'Another venue instance has taken over the journal; this one takes no more orders. Reconnect to the current primary.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorName = keyof typeof ERRORS;

/** The range a code belongs to, per spec section 7. */
export function rangeOf(code: number): ErrorRange {
  if (code >= 1000 && code < 1100) return 'validation';
  if (code >= 1100 && code < 1200) return 'auth';
  if (code >= 1200 && code < 1300) return 'conflict';
  if (code >= 1300 && code < 1400) return 'not_found';
  if (code >= 1400 && code < 1500) return 'rate_limit';
  if (code >= 5000) return 'server';
  throw new RangeError(`code ${code} lies outside every range of the catalogue`);
}

const byCode = new Map<number, ErrorName>(
  (Object.keys(ERRORS) as ErrorName[]).map((name) => [ERRORS[name].code, name]),
);

/** The catalogue name of a numeric code, or undefined when the code is not ours. */
export function errorNameOf(code: number): ErrorName | undefined {
  return byCode.get(code);
}
