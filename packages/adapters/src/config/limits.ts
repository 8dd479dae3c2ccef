import { assert, BYTES, ORDER_LIFETIME_SLOTS_MAX } from '@venue/protocol';

/**
 * Venue-side operating limits, one place for all of them (TigerBeetle style: a limit on
 * everything, unit last in the name). Protocol bounds a client must know live in @venue/protocol's
 * limits; these are the server's own. `assertLimits()` runs at start-up so that an edit that breaks
 * a relation between two limits stops the venue before it serves anything.
 */

// HTTP transport.

/**
 * Largest request body any route accepts. The biggest valid body (a modify: cancel fields plus a
 * full place-order body with a 256-byte proof) is under 2 KiB of JSON; 16 KiB leaves room without
 * letting a client make the venue buffer much.
 */
export const BODY_BYTES_MAX = 16 * 1024;

/** Largest request head (request line plus headers). Node's own default, stated here on purpose. */
export const HEADER_BYTES_MAX = 16 * 1024;

/** A request must arrive completely within this time, or the connection is closed. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** An idle keep-alive connection is closed after this long. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** A TLS handshake that has not finished by then is abandoned (Node's default is 120 s). */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Concurrent connections one venue process accepts; beyond it new sockets are refused. */
export const CONNECTIONS_MAX = 1_024;

/** How long a graceful stop waits for in-flight requests before giving up. */
export const SHUTDOWN_GRACE_MS = 5_000;

/** Longest `x-request-id` the venue echoes (matches the protocol's RequestId pattern). */
export const REQUEST_ID_LENGTH_MAX = 64;

// Boot identity (enclave boundary).

/** The boot session id is 32 random bytes (spec 2.1 `session_id`: 64 hex characters). */
export const SESSION_ID_BYTES = BYTES.sessionId;

/**
 * Lifetime of the per-boot TLS certificate. A boot is expected to be replaced well before then; a
 * short life bounds how long a leaked key is worth anything.
 */
export const CERT_VALIDITY_MS = 3 * 24 * 60 * 60 * 1000;

/** notBefore is set this far in the past so a client whose clock lags slightly still accepts it. */
export const CERT_BACKDATE_MS = 5 * 60 * 1000;

// Chain clock (dev mode, until the chain simulator drives it).

/** Nominal slot length of the Solana-like chain (decisions section 3). */
export const SLOT_DURATION_MS = 400;

/** A slot counts as final this many slots after it was produced. */
export const FINALITY_DEPTH_SLOTS = 32n;

// Venue parameters published by GET /info.

/**
 * expiry_slot must be at least this many slots after the current slot (spec 2.1 and 8: the matcher
 * settlement buffer). 150 slots is one minute at 400 ms, room for a batch to lock, settle and
 * finalise before the order could expire.
 */
export const SETTLEMENT_BUFFER_SLOTS = 150n;

/** Merkle shards of the dev chain; valid tree_id values are 0 to DEV_TREE_COUNT - 1. */
export const DEV_TREE_COUNT = 4;

/** Checks the relations between limits. Throws at start-up, never later. */
export function assertLimits(): void {
  const checks: Array<[boolean, string]> = [
    [BODY_BYTES_MAX > 0 && BODY_BYTES_MAX <= 64 * 1024, 'BODY_BYTES_MAX must be within 1 B to 64 KiB'],
    [HEADER_BYTES_MAX >= 1024, 'HEADER_BYTES_MAX must be at least 1 KiB'],
    [KEEP_ALIVE_TIMEOUT_MS < REQUEST_TIMEOUT_MS, 'KEEP_ALIVE_TIMEOUT_MS must be below REQUEST_TIMEOUT_MS'],
    [TLS_HANDSHAKE_TIMEOUT_MS > 0, 'TLS_HANDSHAKE_TIMEOUT_MS must be positive'],
    [CONNECTIONS_MAX > 0, 'CONNECTIONS_MAX must be positive'],
    [SESSION_ID_BYTES === 32, 'SESSION_ID_BYTES must be 32 (spec 2.1)'],
    [CERT_VALIDITY_MS > CERT_BACKDATE_MS, 'CERT_VALIDITY_MS must exceed CERT_BACKDATE_MS'],
    [SLOT_DURATION_MS > 0 && SLOT_DURATION_MS <= 60_000, 'SLOT_DURATION_MS must be 1 ms to 60 s'],
    [SETTLEMENT_BUFFER_SLOTS > FINALITY_DEPTH_SLOTS, 'settlement buffer must outlast finality depth'],
    [
      SETTLEMENT_BUFFER_SLOTS < ORDER_LIFETIME_SLOTS_MAX,
      'settlement buffer must leave a valid expiry window',
    ],
    [DEV_TREE_COUNT >= 1 && DEV_TREE_COUNT <= 256, 'DEV_TREE_COUNT must be 1 to 256 (tree_id is a u8)'],
  ];
  for (const [holds, message] of checks) assert(holds, `limits: ${message}`);
}
