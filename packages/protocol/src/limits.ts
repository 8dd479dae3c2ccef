/**
 * Protocol limits: every bound the wire format itself imposes, named with the unit last.
 * Venue-side operating limits (rate limits, buffers, pools) live in the server's config module;
 * these are the ones a client must know to build a valid request.
 */

/** Largest unsigned 64-bit integer: the bound of every u64 field (spec section 2 conventions). */
export const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** Largest u8: the bound of `tree_id`. */
export const U8_MAX = 255;

/** spec section 8: an order may expire at most this many slots after the venue's current slot. */
export const ORDER_LIFETIME_SLOTS_MAX = 4500n;

/**
 * Longest dead-man timer (POST /account/dead-man): as long as an order may live, so a timer never
 * outlasts every order it could protect. Shorter timers are refreshed.
 */
export const DEAD_MAN_TIMEOUT_SLOTS_MAX = 4500n;

/** Longest market symbol (BASE-QUOTE, each part 1-12 of A-Z and 0-9). */
export const SYMBOL_LENGTH_MAX = 25;

/** Size of a Groth16 VALID_INPUT proof on the wire: A (64) + B (128) + C (64) bytes. */
export const PROOF_BYTES = 256;

/** Deepest JSON nesting any valid request reaches is 4 (order.modify frame > params > replacement). */
export const JSON_DEPTH_MAX = 8;

/** Largest JSON text the protocol parser accepts at all; routes and frames set tighter limits. */
export const JSON_TEXT_BYTES_MAX = 64 * 1024;

/** Hex byte lengths of the fixed-size fields (spec section 2 conventions). */
export const BYTES = {
  orderId: 16,
  hash: 32,
  publicKey: 32,
  signature: 64,
  sessionId: 32,
  proof: PROOF_BYTES,
} as const;
