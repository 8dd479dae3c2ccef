import { assert, BYTES, ORDER_LIFETIME_SLOTS_MAX, TOKEN_LIFETIME_SECONDS_MAX } from '@venue/protocol';

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

// Accounts and tokens (spec 4.2, 5, 8).

/**
 * scrypt cost of a stored credential: N = 2^15, r = 8, p = 1 needs 32 MiB and about 60-100 ms per
 * check on our machines. Memory-hard, so a stolen hash table is slow to attack on GPUs too.
 */
export const CREDENTIAL_SCRYPT = { logN: 15, r: 8, p: 1, keyBytes: 32, saltBytes: 16 } as const;

/**
 * Credential checks allowed to run at once. They run on libuv's thread pool (4 threads), so two
 * leave half of it for disk I/O. A check beyond this is refused at once with 503/1402 (spec 4.2:
 * refused, not queued).
 */
export const AUTH_VERIFICATIONS_MAX = 2;

/**
 * Token issuance allowance per account: a burst of 10 logins, then one every 6 s. Every attempt
 * with a known api_key is charged, right or wrong, which also caps guessing at 10 per minute.
 */
export const TOKEN_ISSUANCE_BUCKET = { capacity: 10, refillPerSecond: 1 / 6 } as const;

/** Lifetime of an issued access token (spec 5 item 5: at most one hour). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** How often expired denylist entries and idle buckets are swept. */
export const AUTH_SWEEP_INTERVAL_MS = 60_000;

/** Most accounts the venue holds (traders and admins). */
export const ACCOUNTS_MAX = 100_000;

// Trading request rate limits (spec 8: "not shown", our numbers; docs/api.md).

/** Per-account bucket shared by REST and the stream: 400 units, refilled at 200 units a second. */
export const TRADING_BUCKET = { capacity: 400, refillPerSecond: 200 } as const;

/** Units each trading request costs: 100 places a second sustained, or 200 cancels. */
export const TRADING_COST = { place: 2, modify: 2, cancel: 1, read: 1 } as const;

// Signature verification pool (design decisions section 6).

/** Most signature checks waiting or running at once; beyond it requests get 503 VENUE_BUSY. */
export const SIGNATURE_QUEUE_JOBS_MAX = 8192;

/** Most checks sent to a worker in one message. */
export const SIGNATURE_BATCH_JOBS_MAX = 256;

// Session stream (spec 4.8, 6; issue 7).

/**
 * Frames above the protocol's STREAM_FRAME_BYTES_MAX (16 KiB) get an error frame and the socket
 * lives; frames above this hard cap make `ws` close the socket with 1009, so nobody can make the
 * venue buffer a large message (the `ws` default of 100 MiB would be a denial of service).
 */
export const STREAM_FRAME_HARD_BYTES_MAX = 64 * 1024;

/** Bytes that may wait to be sent to one account's sockets before the slowest is closed (1011). */
export const STREAM_ACCOUNT_BUFFER_BYTES_MAX = 4 * 1024 * 1024;

/** A socket must log in this soon after it opens, or it is closed (1008). */
export const STREAM_LOGIN_TIMEOUT_MS = 10_000;

/** The venue pings every socket this often; one that has not answered the last ping is closed. */
export const STREAM_HEARTBEAT_INTERVAL_MS = 15_000;

/** `auth_expired` is sent this long before the session's token expires (spec 4.8). */
export const STREAM_AUTH_WARNING_MS = 60_000;

/**
 * After the venue closes a socket it waits this long for the peer's close frame, then drops the
 * connection. A slow consumer's close frame sits behind its backlog; a live client reads its way
 * to it, a dead one is cut off.
 */
export const STREAM_CLOSE_GRACE_MS = 5_000;

/** Frames of one socket that may await their replies; more get an error frame (5007). */
export const STREAM_FRAMES_IN_FLIGHT_MAX = 512;

/** Sockets one account may hold at once, and sockets in all. */
export const STREAM_CONNECTIONS_PER_ACCOUNT_MAX = 16;
export const STREAM_CONNECTIONS_MAX = 4096;

/** Units only a cancel may spend: a client at its place limit can still cancel 50 orders at once. */
export const TRADING_RESERVE_UNITS = 50;

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
    [
      ACCESS_TOKEN_LIFETIME_SECONDS > 0 && ACCESS_TOKEN_LIFETIME_SECONDS <= TOKEN_LIFETIME_SECONDS_MAX,
      'ACCESS_TOKEN_LIFETIME_SECONDS must be within spec 5 item 5 (at most one hour)',
    ],
    [AUTH_VERIFICATIONS_MAX >= 1, 'AUTH_VERIFICATIONS_MAX must be positive'],
    [
      TRADING_RESERVE_UNITS + Math.max(...Object.values(TRADING_COST)) <= TRADING_BUCKET.capacity,
      'a place must fit in the trading bucket above the cancel reserve',
    ],
    [TRADING_COST.cancel < TRADING_COST.place, 'cancels must cost less than places'],
  ];
  for (const [holds, message] of checks) assert(holds, `limits: ${message}`);
}
