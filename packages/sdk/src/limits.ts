import { assert, ORDER_LIFETIME_SLOTS_MAX, TOKEN_LIFETIME_SECONDS_MAX } from '@venue/protocol';

/**
 * The SDK's limits and defaults, all of them, unit last in the name: every queue, buffer, timeout
 * and retry count of the client. Bounds of the wire itself are the protocol's. `checkSdkLimits()`
 * asserts the relations between them when a client connects.
 */

// HTTP transport (http.ts, pinning.ts, client.ts).

/** Largest response body read; the venue's largest (a page of tree leaves) is far below it. */
export const RESPONSE_BYTES_MAX = 4 * 1024 * 1024;

/** A request that has not completed within this time is abandoned with an error. */
export const REQUEST_TIMEOUT_MS_DEFAULT = 10_000;

/** How long a TCP connect plus TLS handshake may take before the attempt is abandoned. */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Most concurrent HTTPS connections, by default. The venue's trading limit binds long before. */
export const HTTP_SOCKETS_MAX_DEFAULT = 8;

/**
 * Rate-limit retries (spec 4.2, 7): a 429 (codes 1400, 1401) says the venue did nothing and names a
 * delay, so the same request is sent again after that delay, a bounded number of times. A 503 with
 * 1402 (credential verification at capacity) is a refusal, never a queue: it goes straight back to
 * the caller, who decides when to try again.
 */
export const RATE_LIMIT_RETRIES_MAX_DEFAULT = 3;

/** Longest retry-after delay the client waits out before it hands a 429 back to the caller. */
export const RATE_LIMIT_WAIT_MS_MAX_DEFAULT = 10_000;

/** Largest number of order ids reconcile() reads in one call; each read costs a trading-limit unit. */
export const RECONCILE_ORDERS_MAX = 200;

// Tokens (tokens.ts).

/**
 * Renew this long before the expiry. Two minutes is more than the stream's one-minute warning
 * (`auth_expired`), so REST normally renews first and the stream reuses the fresh token.
 */
export const TOKEN_REFRESH_MARGIN_MS_DEFAULT = 120_000;

// The session stream (stream.ts).

/** Outstanding requests per stream; a bot past this is not reading its replies. */
export const STREAM_PENDING_REQUESTS_MAX = 1024;

/** Largest frame read from the venue (its largest, a tree page, is far below). */
export const STREAM_INCOMING_BYTES_MAX = 1024 * 1024;

/** A stream request whose reply has not come within this time fails with an error. */
export const STREAM_REQUEST_TIMEOUT_MS_DEFAULT = 10_000;

/** Reconnect delays double from the minimum up to the maximum, with jitter (half to full). */
export const RECONNECT_DELAY_MS_MIN = 250;

/** Longest pause between reconnect attempts: a venue back after a restart is found within 10 s. */
export const RECONNECT_DELAY_MS_MAX = 10_000;

/** The venue pings every 15 s; a socket silent for this long is presumed dead and replaced. */
export const STREAM_SILENCE_MS_MAX = 45_000;

// Trading (trader.ts).

/** Default order lifetime: 600 slots, four minutes at 400 ms a slot. */
export const ORDER_LIFETIME_SLOTS_DEFAULT = 600n;

/**
 * Slots added to the venue's minimum lead (settlement buffer) when checking a lifetime: the slot
 * moves on between the read of /time and the order's intake.
 */
export const EXPIRY_SLACK_SLOTS = 5n;

/** A /time read is reused for this long; a slot is 400 ms, and the slack covers the drift. */
export const TIME_READ_REUSE_MS = 1_000;

/** Pause before an order whose outcome is unknown is sent again (after a lost connection). */
export const RESEND_PAUSE_MS = 200;

/**
 * Reads of one batch of records during a reconcile: a record is adopted only when no event or
 * reply changed its order while it was read, and read again otherwise.
 */
export const RECONCILE_READS_MAX = 4;

// Local files (sealed-log.ts, durable-nonces.ts).

/** Largest sealed record, so a corrupted length cannot make a reader allocate without bound. */
export const SEALED_RECORD_BYTES_MAX = 64 * 1024;

/** Nonces reserved per fsync. Larger means fewer writes and a larger skip after a restart. */
export const NONCE_RESERVE_BLOCK = 1000n;

// The note wallet (note-wallet.ts, wallet/).

/**
 * Settlement outputs checked by inclusion per scan: a memo or event can name a note whose leaf the
 * paging already passed. One request each; more wait for the next scan.
 */
export const SCAN_INCLUSION_CHECKS_MAX = 256;

/**
 * Expected outputs (matches without a memo) searched for per scan; each costs up to
 * OUTPUT_VALUES_MAX hashes and a read of the leaves appended after its spent note.
 */
export const SCAN_OUTPUT_SEARCHES_MAX = 64;

/** Wallet errors kept for the bot to read (memos that do not open, outcomes that do not apply). */
export const WALLET_ERRORS_KEPT_MAX = 100;

/** Candidate values one expected output is searched over (each costs a hash). */
export const OUTPUT_VALUES_MAX = 4096;

/**
 * Prices and (price, shortfall) pairs one candidate search looks at, at most: 64 Ki steps of a
 * few bigint operations each, some milliseconds. A bid's search covers every price from its
 * limit down to one tick within it when its quote at the limit is below OUTPUT_VALUES_MAX.
 */
export const CANDIDATE_STEPS_MAX = 16 * OUTPUT_VALUES_MAX;

/** The relations between the SDK's limits; returns those that do not hold. */
export function brokenSdkLimitRelations(limits: {
  readonly RECONNECT_DELAY_MS_MIN: number;
  readonly RECONNECT_DELAY_MS_MAX: number;
  readonly TOKEN_REFRESH_MARGIN_MS_DEFAULT: number;
  readonly EXPIRY_SLACK_SLOTS: bigint;
  readonly ORDER_LIFETIME_SLOTS_DEFAULT: bigint;
  readonly OUTPUT_VALUES_MAX: number;
  readonly CANDIDATE_STEPS_MAX: number;
}): string[] {
  const l = limits;
  const relations: Array<[boolean, string]> = [
    [
      0 < l.RECONNECT_DELAY_MS_MIN && l.RECONNECT_DELAY_MS_MIN < l.RECONNECT_DELAY_MS_MAX,
      'RECONNECT_DELAY_MS_MIN < RECONNECT_DELAY_MS_MAX: reconnect delays double from the one up to the other',
    ],
    [
      l.TOKEN_REFRESH_MARGIN_MS_DEFAULT < TOKEN_LIFETIME_SECONDS_MAX * 1000,
      'TOKEN_REFRESH_MARGIN_MS_DEFAULT < TOKEN_LIFETIME_SECONDS_MAX: a fresh token is not renewed at once',
    ],
    [
      l.EXPIRY_SLACK_SLOTS < l.ORDER_LIFETIME_SLOTS_DEFAULT &&
        l.ORDER_LIFETIME_SLOTS_DEFAULT <= ORDER_LIFETIME_SLOTS_MAX,
      'EXPIRY_SLACK_SLOTS < ORDER_LIFETIME_SLOTS_DEFAULT <= ORDER_LIFETIME_SLOTS_MAX: the default lifetime is one the venue accepts',
    ],
    [
      l.CANDIDATE_STEPS_MAX >= l.OUTPUT_VALUES_MAX,
      'CANDIDATE_STEPS_MAX >= OUTPUT_VALUES_MAX: a candidate search can look at every output value',
    ],
  ];
  return relations.filter(([holds]) => !holds).map(([, relation]) => relation);
}

/** Asserts the relations between the SDK's limits; run when a client connects. */
export function checkSdkLimits(
  limits: Parameters<typeof brokenSdkLimitRelations>[0] = {
    RECONNECT_DELAY_MS_MIN,
    RECONNECT_DELAY_MS_MAX,
    TOKEN_REFRESH_MARGIN_MS_DEFAULT,
    EXPIRY_SLACK_SLOTS,
    ORDER_LIFETIME_SLOTS_DEFAULT,
    OUTPUT_VALUES_MAX,
    CANDIDATE_STEPS_MAX,
  },
): void {
  const broken = brokenSdkLimitRelations(limits);
  assert(broken.length === 0, `sdk limits: ${broken.join('; ')}`);
}

/** How long a client's failover keeps attesting its endpoints before it gives up (ConnectOptions). */
export const FAILOVER_WAIT_MS_MAX_DEFAULT = 30_000;

/** The pause between two rounds over the endpoints while none answers (a standby is taking over). */
export const FAILOVER_PAUSE_MS = 100;
