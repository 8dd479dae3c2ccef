import { NOTES_CONSUMED_PER_COMMAND_MAX } from '@venue/core';
import {
  assert,
  BYTES,
  JSON_TEXT_BYTES_MAX,
  LEAVES_PAGE_MAX,
  ORDER_LIFETIME_SLOTS_MAX,
  SETTLEMENT_VIEW_KEYS_MAX,
  STREAM_FRAME_BYTES_MAX,
  TOKEN_LIFETIME_SECONDS_MAX,
} from '@venue/protocol';

/**
 * The venue server's limits, all of them (TigerBeetle's constants.zig: a limit on everything, the
 * unit last in the name, each with why it has its value). Bounds a client must know to build a valid
 * request are the protocol's (@venue/protocol limits); every other queue, buffer, timeout, size and
 * slot count of the server is declared here, once. `checkLimitRelations()` runs at boot, so an edit
 * that breaks a relation the code relies on stops the venue before it serves anything.
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

/**
 * A request (head and body) must arrive completely within this time, counted from its first byte
 * (or from the end of the TLS handshake for a connection's first request), or the connection is
 * closed.
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A request head must arrive within this time. A head is a few hundred bytes in one packet, so 5 s
 * is generous. It must not exceed REQUEST_TIMEOUT_MS: Node 20 silently swaps the two when it does,
 * and a body would then live as long as the headers timeout (its own default, 60 s, did exactly
 * that: issue 20 finding 2).
 */
export const HEADERS_TIMEOUT_MS = 5_000;

/**
 * Node checks request timeouts on this beat (30 s by default), so a slow-loris connection would
 * outlive REQUEST_TIMEOUT_MS by up to that much; a one-second beat keeps the bound close.
 */
export const REQUEST_TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** An idle keep-alive connection is closed after this long. */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** A TLS handshake that has not finished by then is abandoned (Node's default is 120 s). */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Concurrent connections one venue process accepts; beyond it new sockets are refused. */
export const CONNECTIONS_MAX = 1_024;

/**
 * Concurrent connections one remote address may hold (an IPv6 address counts by its /64, what one
 * host is usually given). Beyond it a new connection is closed as it arrives, before any TLS work,
 * so 1,024 stalled connections from one host can no longer take every slot. Room for a bot host
 * with an account's full set of stream sockets and its REST calls, or a few bots behind one NAT.
 * Loopback peers are not counted (docs/security.md "Connections per address").
 */
export const CONNECTIONS_PER_ADDRESS_MAX = 64;

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

/**
 * Longest wait for a configfs TSM report attribute to become ready (docs/enclave.md section 9). The
 * kernel creates the attributes with the entry and has the quote ready when outblob is read, so on a
 * TD the wait ends at the first look; the bound turns a stuck quoting service into a boot error.
 */
export const TDX_ATTRIBUTE_WAIT_MS_MAX = 10_000;

/**
 * How often the venue asks the TD for a fresh quote to re-check that the hardware still vouches for
 * it (shared fate, `attestation_mismatch`). A quote costs the quoting service tens of milliseconds;
 * once a minute is cheap and catches a changed TD within a minute.
 */
export const TDX_RECHECK_INTERVAL_MS = 60_000;

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

// Login allowances (issue 20 item 4; docs/security.md, "Login allowances").

/**
 * Token issuance allowance per account: a burst of 10 logins, then one every 6 s. Only logins that
 * proved the secret are charged, so someone who merely knows an api_key cannot spend it.
 */
export const TOKEN_ISSUANCE_BUCKET = { capacity: 10, refillPerSecond: 1 / 6 } as const;

/**
 * Failed credential checks (scrypt runs that found a wrong secret) per client address: a burst of
 * 10, then one every 6 s. Beyond it that address gets 429 1405 before any hashing; other addresses,
 * and the account's owner anywhere else, are unaffected.
 */
export const LOGIN_FAILURES_PER_ADDRESS_BUCKET = { capacity: 10, refillPerSecond: 1 / 6 } as const;

/**
 * Client addresses whose failed logins are tracked. Beyond it, new addresses share one bucket, so
 * an attacker with very many addresses still gets no more than one more address's failures.
 */
export const LOGIN_FAILURE_ADDRESSES_MAX = 65_536;

/** Lifetime of an issued access token (spec 5 item 5: at most one hour). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** Verified tokens remembered; beyond it the oldest is forgotten (and verified again if used). */
export const VERIFIED_TOKENS_CACHED_MAX = 100_000;

/** How often expired denylist entries and idle buckets are swept. */
export const AUTH_SWEEP_INTERVAL_MS = 60_000;

/** Most accounts the venue holds (traders and admins). */
export const ACCOUNTS_MAX = 100_000;

/** Largest accounts file read at boot: far above ACCOUNTS_MAX accounts of a few hundred bytes each. */
export const ACCOUNTS_FILE_BYTES_MAX = 64 * 1024 * 1024;

// Trading request rate limits (spec 8: "not shown", our numbers; docs/api.md).

/** Per-account bucket shared by REST and the stream: 400 units, refilled at 200 units a second. */
export const TRADING_BUCKET = { capacity: 400, refillPerSecond: 200 } as const;

/** Units each trading request costs: 100 places a second sustained, or 200 cancels. */
export const TRADING_COST = { place: 2, modify: 2, cancel: 1, read: 1 } as const;

/** Units only a cancel may spend: a client at its place limit can still cancel 50 orders at once. */
export const TRADING_RESERVE_UNITS = 50;

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

/** How long a stopping venue waits for its sockets' close handshakes before the HTTPS server closes. */
export const STREAM_STOP_WAIT_MS = 2_000;

/** Frames of one socket that may await their replies; more get an error frame (5007). */
export const STREAM_FRAMES_IN_FLIGHT_MAX = 512;

/**
 * Frames an account's logged-in sockets are read at, together, sustained and in a burst (issue 20:
 * the event loop under a flood). Past it the venue stops reading the socket that found the bucket
 * empty until it refills: the frames wait in TCP, cost nothing, and are answered later, in order.
 * At least what the trading limit lets an account use (TRADING_BUCKET: 200 units a second, each
 * frame at least one), so only a flood meets it.
 */
export const STREAM_READ_BUCKET = { capacity: 400, refillPerSecond: 200 } as const;

/** Per socket before login: a login frame and a few pings are all such a socket needs. */
export const STREAM_LOGIN_READ_BUCKET = { capacity: 16, refillPerSecond: 8 } as const;

/** Sockets one account may hold at once: a bot with a socket per strategy, not a socket flood. */
export const STREAM_CONNECTIONS_PER_ACCOUNT_MAX = 16;

/**
 * Sockets in all; each holds a session and its send buffer, so this bounds the stream's memory. A
 * socket is also one of the server's CONNECTIONS_MAX, so this cap binds first (1404, not a refused
 * TCP connection) and leaves a quarter of the server's connections to REST.
 */
export const STREAM_CONNECTIONS_MAX = 768;

// Stream send bounds (issue 20 finding 1): every byte queued for a socket, reply or event, counts.

/**
 * Bytes that may wait to be sent to one logged-in socket (ws `bufferedAmount`: what ws and the TLS
 * socket hold above the kernel's buffers). A write that takes a socket over it closes the socket with
 * 1011 at once, whether the write was a reply, an error or a channel message, so a client that sends
 * without reading cannot make the venue hold its replies. Eight full tree pages fit.
 */
export const STREAM_SOCKET_BUFFER_BYTES_MAX = 1024 * 1024;

/**
 * The same bound for a socket that has not logged in yet: it can only draw pongs, a login reply and
 * error frames, a few hundred bytes each, and lives at most STREAM_LOGIN_TIMEOUT_MS.
 */
export const STREAM_LOGIN_BUFFER_BYTES_MAX = 64 * 1024;

/** Largest tree-channel message: a full page of leaves, each at most this many bytes of JSON. */
const TREE_LEAF_JSON_BYTES_MAX = 128;
export const STREAM_TREE_FRAME_BYTES_MAX = LEAVES_PAGE_MAX * TREE_LEAF_JSON_BYTES_MAX + 1024;

// The sequencer (adapters/src/venue).

/**
 * Intake (orders, cancels, modifies, disconnects) may fill the journal's in-flight window only up to
 * here; the rest is kept for the venue's own commands (ticks, roots, oracle prices, gates, settlement
 * outcomes), which cannot be refused and come in bursts (one outcome per match of a batch).
 */
export const INTAKE_IN_FLIGHT_RECORDS_MAX = 4_096;

/** System commands waiting for room in the journal; more means the disk has stopped keeping up. */
export const DEFERRED_COMMANDS_MAX = 1_000_000;

/** Note-commitment derivations waiting for their order to reach the sequencer; the oldest go first. */
export const COMMITMENT_MEMO_ENTRIES_MAX = 65_536;

/**
 * The sequencer's event loop is sampled this often for `venue_event_loop_delay_seconds` (500 timer
 * wake-ups a second, a few microseconds each): fine enough to tell a 10 ms stall from a 5 ms one.
 */
export const EVENT_LOOP_SAMPLE_MS = 2;

// The journal (docs/durability.md).

/**
 * Largest encoded command. The biggest command today is a modify (a cancel plus a full place-order
 * body with a 256-byte proof), about 2 KiB encoded; an `add_market` or a `roots` window is smaller.
 * 64 KiB leaves room for growth while keeping one record's buffer small.
 */
export const JOURNAL_COMMAND_BYTES_MAX = 64 * 1024;

/**
 * Records appended but not yet durable. The sequencer checks `hasRoom` before applying a command, so
 * at most this many acknowledgements wait on one fsync round, and the pending bytes stay under
 * JOURNAL_IN_FLIGHT_RECORDS_MAX * (JOURNAL_COMMAND_BYTES_MAX + overhead). It also bounds one commit
 * batch, which is what recovery may find torn at the end of the journal.
 */
export const JOURNAL_IN_FLIGHT_RECORDS_MAX = 8_192;

/**
 * A segment file is closed and a new one started once it holds this many bytes. A segment may pass
 * it by at most one commit batch, because a batch is never split across files.
 */
export const JOURNAL_SEGMENT_BYTES_MAX = 64 * 1024 * 1024;

/** A snapshot of the core is due after this many records since the last one... */
export const SNAPSHOT_INTERVAL_RECORDS = 100_000;

/** ...or after this long, if at least one record was appended since. */
export const SNAPSHOT_INTERVAL_MS = 60_000;

/**
 * Snapshots kept on disk. Recovery falls back to the previous one if the newest cannot be read, so
 * the journal keeps every segment back to the oldest kept snapshot.
 */
export const SNAPSHOTS_KEPT = 2;

/** Largest snapshot file recovery reads (the core's state for millions of resting orders fits). */
export const SNAPSHOT_BYTES_MAX = 1024 * 1024 * 1024;

/** The sealing key is 32 bytes (AES-256). */
export const SEALING_KEY_BYTES = 32;

// The snapshot replica (docs/durability.md, "The snapshot replica").

/**
 * Journal bytes handed to the replica that it has not applied yet. The replica applies records about
 * as fast as the sequencer does, except while it serialises a snapshot (about 2 s for 100,000 resting
 * orders here), when records queue up: at 10,000 records a second of 1.8 KB that is ~36 MB. Beyond
 * this limit the replica is dropped rather than let memory grow: the sequencer never waits for it.
 */
export const REPLICA_BACKLOG_BYTES_MAX = 256 * 1024 * 1024;

/**
 * How many times one boot starts a new replica after one failed or fell behind. Each restart is
 * seeded from an inline snapshot (the pause the replica exists to avoid), so a replica that keeps
 * failing stops being restarted and the venue keeps inline snapshots until its next boot.
 */
export const REPLICA_RESTARTS_MAX = 3;

/** Records replayed at boot are handed to the replica in chunks of about this many bytes. */
export const REPLICA_BOOT_CHUNK_BYTES = 1024 * 1024;

/**
 * How long a graceful stop waits for a snapshot the replica is producing (about 2 s at 100,000
 * resting orders). A replica stuck past it is closed, the snapshot is skipped, and the stop goes on:
 * nothing is lost, the next boot replays a little more.
 */
export const REPLICA_CLOSE_WAIT_MS = 30_000;

// Settlement (docs/settlement.md section 6): each a hard bound the pipeline asserts.

/** Legs (input notes) per settlement batch: the chain simulator's own cap (docs/chain-sim.md 9). */
export const BATCH_LEGS_MAX = 1024;

/**
 * Longest the settlement pipeline works in one event-loop turn before it yields to intake (ms;
 * turn-budget.ts). Planning, proof requests and memo sealing cost about a millisecond a leg, so a
 * backlog of thousands of legs is spread over many turns; 4 ms keeps the sequencer's event-loop
 * delay under 10 ms with room for the core's own work in the same turn.
 */
export const SETTLEMENT_TURN_BUDGET_MS = 4;

/**
 * Most jobs (leg hashes, fill memos, stand-in proofs) waiting for or on the settlement worker
 * (workers/settlement-pool.ts). The pipeline asks before handing work over and, at the bound,
 * keeps it for a later turn: a backlog waits in the pipeline's lanes, not in the worker's queue.
 */
export const SETTLEMENT_WORKER_JOBS_MAX = 16_384;

/** Most jobs sent to the settlement worker in one message (a turn's hand-over is cut in these). */
export const SETTLEMENT_WORKER_BATCH_JOBS_MAX = 256;

/**
 * How much lower than the sequencer's the settlement worker's scheduling priority is (nice steps,
 * Linux; notes thread-priority.ts). 10 steps is a weight about a tenth of the sequencer's: the
 * worker yields at once when the sequencer wakes, and has the CPU whenever the sequencer waits.
 */
export const SETTLEMENT_WORKER_NICE = 10;

/**
 * How much lower than the sequencer's the match prover's workers run (nice steps, Linux; notes
 * thread-priority.ts). A VALID_MATCH proof takes about a second of one core, and a backlog keeps
 * one worker per core busy for minutes: at the sequencer's priority they left its thread waiting
 * for a core (D132). The same 10 steps as the settlement worker: proving still has every cycle the
 * sequencer leaves, and a batch's deadline is many slots away.
 */
export const MATCH_PROVER_NICE = 10;

/**
 * How much lower than the sequencer's the threads the process starts with run (nice steps, Linux;
 * notes thread-priority.ts `lowerOtherThreads`): V8's platform threads, libuv's pool and Node's own,
 * lowered by `venue serve` and `venue dev` before any worker starts (D138). V8's threads mark,
 * sweep and compile beside the sequencer at its priority, about as much CPU as the sequencer while
 * a backlog settled, and a wake of the sequencer waited in the run queue behind them.
 */
export const HELPER_THREADS_NICE = 10;

/**
 * Keys per getSettlementView call of the remote chain port (the chain answers up to
 * SETTLEMENT_VIEW_KEYS_MAX). Decoding a reply runs on the sequencer's thread, about 10 us a key:
 * a backlog of 2,048 legs read in one reply stopped the thread for 20 to 100 ms, in 256-key
 * reads each decode is a few milliseconds and intake runs between them.
 */
export const SETTLEMENT_VIEW_KEYS_PER_READ = 256;

/** Matches waiting for a batch, per market, before new matches are failed instead of queued. */
export const QUEUED_MATCHES_PER_MARKET_MAX = 100_000;

/**
 * A backstop only: the enclave keeps a note opening exactly while an open order rests on the note
 * (settlement/note-openings.ts), so there are never more than open orders, ACCOUNT_OPEN_ORDERS_MAX
 * per account. Past the cap the oldest untouched opening is forgotten and its order fails to settle.
 */
export const NOTE_OPENINGS_MAX = 1_000_000;

/**
 * Resting orders' notes the consumed-note watch looks up per chain beat (spec 3.2); a larger book is
 * checked in turns. One remote view read holds them (SETTLEMENT_VIEW_KEYS_MAX keys).
 */
export const CONSUMED_WATCH_NOTES_PER_BEAT_MAX = 4_096;

/**
 * Note commitments per `notes_consumed` record: 64 hex characters each, so 128 of them (about
 * 9 KiB) stay far inside one journal record; more consumed at once go in several records.
 */
export const CONSUMED_NOTES_PER_RECORD_MAX = 128;

/** Note-use tags remembered by note commitment, so a resting order's tag is derived once. */
export const NOTE_USE_TAGS_REMEMBERED_MAX = 1_000_000;

/** Fill messages held until the core's matching fill event is out (one per settled match). */
export const FILLS_AWAITING_EVENT_MAX = 100_000;

/** Recent finalized-batch latencies the telemetry keeps for its percentiles. */
export const LATENCY_SAMPLES_MAX = 1024;

// The tree channel (spec 6.2) and the venue's view of the chain's note trees.

/**
 * Announced tree sizes (anchors) remembered per shard, to find where a reorg's surviving fork
 * starts; a reorg deeper than 128 announcements restarts the shard's history. The chain simulator
 * accepts 256 anchors per shard in one read, so every kept anchor can be sent.
 */
export const TREE_ANCHORS_KEPT_MAX = 128;

/** Pages one shard's backlog may take in one beat; beyond that the newest pages go out. */
export const TREE_PAGES_PER_BEAT_MAX = 16;

/** Reads one tree refresh makes while the chain has more pages (a backlog after an outage). */
export const TREE_CATCH_UP_READS_MAX = 16;

/**
 * Lock requests the RPC chain client remembers (unanswered, or refused and not yet read by the
 * pipeline); the oldest are forgotten first, and a forgotten one is simply asked again.
 */
export const LOCK_REQUESTS_REMEMBERED_MAX = 10_000;

// Oracle price recordings (dev and simulation feeds, adapters/src/oracle/price-series.ts).

/** Rows of one recording: a day of per-slot prices for a few markets. */
export const PRICE_SERIES_ROWS_MAX = 100_000;

/** Bytes of one recording file, read whole: 100,000 rows of about 80 bytes fit. */
export const PRICE_SERIES_BYTES_MAX = 8 * 1024 * 1024;

/** Highest step of a recording: about 46 days of 400 ms slots; longer ones are cut into files. */
export const PRICE_SERIES_STEPS_MAX = 10_000_000;

// Code measurement (enclave boundary).

/** Total bytes of measured code held in memory at boot (the workspace is about 2 MiB today). */
export const CODE_SNAPSHOT_BYTES_MAX = 64 * 1024 * 1024;

// Token claims (issue 20 finding 6).

/**
 * How far a token's `iat` may lie ahead of the venue's clock. Only this boot signs tokens, so a later
 * `iat` means the wall clock stepped back since the issue (a small NTP correction is allowed for).
 */
export const ACCESS_TOKEN_IAT_SKEW_MS = 5_000;

const SHIPPED_LIMITS = {
  CONNECTIONS_MAX,
  ACCESS_TOKEN_IAT_SKEW_MS,
  JSON_TEXT_BYTES_MAX,
  STREAM_FRAME_BYTES_MAX,
  ORDER_LIFETIME_SLOTS_MAX,
  TOKEN_LIFETIME_SECONDS_MAX,
  BODY_BYTES_MAX,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  REQUEST_TIMEOUT_CHECK_INTERVAL_MS,
  SHUTDOWN_GRACE_MS,
  SESSION_ID_BYTES,
  CERT_VALIDITY_MS,
  CERT_BACKDATE_MS,
  TDX_ATTRIBUTE_WAIT_MS_MAX,
  TDX_RECHECK_INTERVAL_MS,
  SLOT_DURATION_MS,
  FINALITY_DEPTH_SLOTS,
  SETTLEMENT_BUFFER_SLOTS,
  DEV_TREE_COUNT,
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTH_SWEEP_INTERVAL_MS,
  ACCOUNTS_MAX,
  AUTH_VERIFICATIONS_MAX,
  TOKEN_ISSUANCE_BUCKET,
  LOGIN_FAILURES_PER_ADDRESS_BUCKET,
  LOGIN_FAILURE_ADDRESSES_MAX,
  TRADING_BUCKET,
  TRADING_COST,
  TRADING_RESERVE_UNITS,
  SIGNATURE_QUEUE_JOBS_MAX,
  SIGNATURE_BATCH_JOBS_MAX,
  STREAM_FRAME_HARD_BYTES_MAX,
  STREAM_AUTH_WARNING_MS,
  STREAM_STOP_WAIT_MS,
  STREAM_CONNECTIONS_PER_ACCOUNT_MAX,
  STREAM_CONNECTIONS_MAX,
  STREAM_ACCOUNT_BUFFER_BYTES_MAX,
  STREAM_SOCKET_BUFFER_BYTES_MAX,
  STREAM_LOGIN_BUFFER_BYTES_MAX,
  STREAM_READ_BUCKET,
  STREAM_LOGIN_READ_BUCKET,
  STREAM_TREE_FRAME_BYTES_MAX,
  INTAKE_IN_FLIGHT_RECORDS_MAX,
  JOURNAL_COMMAND_BYTES_MAX,
  JOURNAL_IN_FLIGHT_RECORDS_MAX,
  JOURNAL_SEGMENT_BYTES_MAX,
  SNAPSHOT_INTERVAL_RECORDS,
  SNAPSHOT_INTERVAL_MS,
  SNAPSHOTS_KEPT,
  REPLICA_BACKLOG_BYTES_MAX,
  REPLICA_BOOT_CHUNK_BYTES,
  BATCH_LEGS_MAX,
  SETTLEMENT_TURN_BUDGET_MS,
  SETTLEMENT_WORKER_JOBS_MAX,
  SETTLEMENT_WORKER_BATCH_JOBS_MAX,
  SETTLEMENT_WORKER_NICE,
  MATCH_PROVER_NICE,
  HELPER_THREADS_NICE,
  SETTLEMENT_VIEW_KEYS_PER_READ,
  QUEUED_MATCHES_PER_MARKET_MAX,
  CONSUMED_WATCH_NOTES_PER_BEAT_MAX,
  CONSUMED_NOTES_PER_RECORD_MAX,
  NOTES_CONSUMED_PER_COMMAND_MAX,
  SETTLEMENT_VIEW_KEYS_MAX,
  // Issue 20 finding 2: HTTP timeouts and the per-address connection cap.
  HEADERS_TIMEOUT_MS,
  CONNECTIONS_PER_ADDRESS_MAX,
};

/** Literal types widened, so a test can hand in an edited copy. */
type Widened<T> = T extends number
  ? number
  : T extends bigint
    ? bigint
    : { readonly [K in keyof T]: Widened<T[K]> };

export type VenueLimits = {
  readonly [K in keyof typeof SHIPPED_LIMITS]: Widened<(typeof SHIPPED_LIMITS)[K]>;
};

/** The limits the relations below read, protocol ones included; tests hand in edited copies. */
export const VENUE_LIMITS: VenueLimits = SHIPPED_LIMITS;

/**
 * The relations between limits that the code relies on, each with what breaks without it. Returns
 * the ones that do not hold (empty when all do).
 */
export function brokenLimitRelations(limits: VenueLimits): string[] {
  const l = limits;
  const relations: Array<[boolean, string]> = [
    [
      l.BODY_BYTES_MAX > 0 && l.BODY_BYTES_MAX <= l.JSON_TEXT_BYTES_MAX,
      'BODY_BYTES_MAX <= JSON_TEXT_BYTES_MAX: an accepted body must be one the protocol parser reads',
    ],
    [
      l.BODY_BYTES_MAX < l.JOURNAL_COMMAND_BYTES_MAX,
      'BODY_BYTES_MAX < JOURNAL_COMMAND_BYTES_MAX: an accepted body must fit one journal record',
    ],
    [
      l.STREAM_FRAME_BYTES_MAX < l.JOURNAL_COMMAND_BYTES_MAX,
      'STREAM_FRAME_BYTES_MAX < JOURNAL_COMMAND_BYTES_MAX: an accepted frame must fit one journal record',
    ],
    [
      l.STREAM_FRAME_BYTES_MAX < l.STREAM_FRAME_HARD_BYTES_MAX,
      'STREAM_FRAME_BYTES_MAX < STREAM_FRAME_HARD_BYTES_MAX: an oversized frame gets an error frame before ws closes the socket',
    ],
    [
      l.KEEP_ALIVE_TIMEOUT_MS < l.REQUEST_TIMEOUT_MS,
      'KEEP_ALIVE_TIMEOUT_MS < REQUEST_TIMEOUT_MS: an idle connection closes before a slow request would',
    ],
    [
      l.REQUEST_TIMEOUT_CHECK_INTERVAL_MS < l.HEADERS_TIMEOUT_MS,
      'REQUEST_TIMEOUT_CHECK_INTERVAL_MS < HEADERS_TIMEOUT_MS: a slow head or request is cut near its timeout, not a beat later',
    ],
    [
      l.STREAM_STOP_WAIT_MS < l.SHUTDOWN_GRACE_MS,
      'STREAM_STOP_WAIT_MS < SHUTDOWN_GRACE_MS: closing the sockets leaves time for in-flight requests in a graceful stop',
    ],
    [l.SESSION_ID_BYTES === 32, 'SESSION_ID_BYTES === 32: spec 2.1 session_id is 64 hex characters'],
    [
      l.CERT_VALIDITY_MS > l.CERT_BACKDATE_MS,
      'CERT_VALIDITY_MS > CERT_BACKDATE_MS: the certificate must still be valid after its backdating',
    ],
    [
      l.SLOT_DURATION_MS > 0 && l.SLOT_DURATION_MS <= 60_000,
      'SLOT_DURATION_MS within 1 ms to 60 s: the wall clock derives slots from it',
    ],
    [
      l.SETTLEMENT_BUFFER_SLOTS > l.FINALITY_DEPTH_SLOTS,
      'SETTLEMENT_BUFFER_SLOTS > FINALITY_DEPTH_SLOTS: a batch must finalise before its orders may expire',
    ],
    [
      l.SETTLEMENT_BUFFER_SLOTS < l.ORDER_LIFETIME_SLOTS_MAX,
      'SETTLEMENT_BUFFER_SLOTS < ORDER_LIFETIME_SLOTS_MAX: the settlement buffer must leave a valid expiry window',
    ],
    [l.DEV_TREE_COUNT >= 1 && l.DEV_TREE_COUNT <= 256, 'DEV_TREE_COUNT within 1 to 256: tree_id is a u8'],
    [
      l.ACCESS_TOKEN_LIFETIME_SECONDS > 0 && l.ACCESS_TOKEN_LIFETIME_SECONDS <= l.TOKEN_LIFETIME_SECONDS_MAX,
      'ACCESS_TOKEN_LIFETIME_SECONDS <= TOKEN_LIFETIME_SECONDS_MAX: spec 5 item 5, at most one hour',
    ],
    [
      l.STREAM_AUTH_WARNING_MS < l.ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
      'STREAM_AUTH_WARNING_MS < ACCESS_TOKEN_LIFETIME_SECONDS: auth_expired must come after the login, before the expiry',
    ],
    [
      l.AUTH_SWEEP_INTERVAL_MS < l.ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
      'AUTH_SWEEP_INTERVAL_MS < ACCESS_TOKEN_LIFETIME_SECONDS: expired denylist entries go within a token lifetime',
    ],
    // Login allowances (issue 20 item 4).
    [
      l.AUTH_VERIFICATIONS_MAX >= 1 &&
        l.TOKEN_ISSUANCE_BUCKET.capacity >= 1 &&
        l.LOGIN_FAILURES_PER_ADDRESS_BUCKET.capacity >= 1,
      'AUTH_VERIFICATIONS_MAX, TOKEN_ISSUANCE_BUCKET and LOGIN_FAILURES_PER_ADDRESS_BUCKET capacities >= 1: a first login from a fresh address can always be verified',
    ],
    [
      l.LOGIN_FAILURE_ADDRESSES_MAX >= 1 && l.LOGIN_FAILURE_ADDRESSES_MAX <= l.ACCOUNTS_MAX,
      'LOGIN_FAILURE_ADDRESSES_MAX within 1 to ACCOUNTS_MAX: the address table stays no larger than the accounts table',
    ],
    [
      l.TRADING_RESERVE_UNITS + Math.max(...Object.values(l.TRADING_COST)) <= l.TRADING_BUCKET.capacity,
      'TRADING_RESERVE_UNITS + the dearest request <= TRADING_BUCKET capacity: a place must fit above the cancel reserve',
    ],
    [
      l.TRADING_COST.cancel < l.TRADING_COST.place,
      'TRADING_COST cancel < place: a client at its limit can always still cancel',
    ],
    [
      l.SETTLEMENT_WORKER_BATCH_JOBS_MAX <= l.SETTLEMENT_WORKER_JOBS_MAX,
      'SETTLEMENT_WORKER_BATCH_JOBS_MAX <= SETTLEMENT_WORKER_JOBS_MAX: a message is taken from the queue',
    ],
    [
      Number.isInteger(l.SETTLEMENT_WORKER_NICE) &&
        l.SETTLEMENT_WORKER_NICE >= 0 &&
        l.SETTLEMENT_WORKER_NICE <= 19,
      'SETTLEMENT_WORKER_NICE an integer from 0 to 19: the worker may only lower its priority, and nice stops at 19',
    ],
    [
      Number.isInteger(l.MATCH_PROVER_NICE) && l.MATCH_PROVER_NICE >= 0 && l.MATCH_PROVER_NICE <= 19,
      'MATCH_PROVER_NICE an integer from 0 to 19: the provers may only be lowered, and nice stops at 19',
    ],
    [
      Number.isInteger(l.HELPER_THREADS_NICE) && l.HELPER_THREADS_NICE >= 0 && l.HELPER_THREADS_NICE <= 19,
      'HELPER_THREADS_NICE an integer from 0 to 19: the helper threads may only be lowered, and nice stops at 19',
    ],
    [
      l.SIGNATURE_BATCH_JOBS_MAX <= l.SIGNATURE_QUEUE_JOBS_MAX,
      'SIGNATURE_BATCH_JOBS_MAX <= SIGNATURE_QUEUE_JOBS_MAX: a batch is taken from the queue',
    ],
    [
      l.STREAM_CONNECTIONS_PER_ACCOUNT_MAX <= l.STREAM_CONNECTIONS_MAX,
      'STREAM_CONNECTIONS_PER_ACCOUNT_MAX <= STREAM_CONNECTIONS_MAX',
    ],
    [
      l.STREAM_READ_BUCKET.capacity >= l.TRADING_BUCKET.capacity &&
        l.STREAM_READ_BUCKET.refillPerSecond >= l.TRADING_BUCKET.refillPerSecond,
      'STREAM_READ_BUCKET >= TRADING_BUCKET: reading never slows a socket that stays within its trading limit',
    ],
    [
      l.STREAM_LOGIN_READ_BUCKET.capacity <= l.STREAM_READ_BUCKET.capacity,
      'STREAM_LOGIN_READ_BUCKET capacity <= STREAM_READ_BUCKET capacity: logging in never tightens reading',
    ],
    // Stream send bounds (issue 20 finding 1).
    [
      l.STREAM_LOGIN_BUFFER_BYTES_MAX >= l.STREAM_FRAME_BYTES_MAX,
      'STREAM_LOGIN_BUFFER_BYTES_MAX >= STREAM_FRAME_BYTES_MAX: a socket before login holds several error frames',
    ],
    [
      l.STREAM_LOGIN_BUFFER_BYTES_MAX <= l.STREAM_SOCKET_BUFFER_BYTES_MAX,
      'STREAM_LOGIN_BUFFER_BYTES_MAX <= STREAM_SOCKET_BUFFER_BYTES_MAX: logging in never tightens the bound',
    ],
    [
      l.STREAM_SOCKET_BUFFER_BYTES_MAX >= 8 * l.STREAM_TREE_FRAME_BYTES_MAX,
      'STREAM_SOCKET_BUFFER_BYTES_MAX >= 8 tree pages: a burst of tree pages does not close a reading socket',
    ],
    [
      l.STREAM_SOCKET_BUFFER_BYTES_MAX <= l.STREAM_ACCOUNT_BUFFER_BYTES_MAX,
      "STREAM_SOCKET_BUFFER_BYTES_MAX <= STREAM_ACCOUNT_BUFFER_BYTES_MAX: one socket fits its account's bound",
    ],
    [
      l.JOURNAL_IN_FLIGHT_RECORDS_MAX - l.INTAKE_IN_FLIGHT_RECORDS_MAX >= l.BATCH_LEGS_MAX,
      'JOURNAL_IN_FLIGHT_RECORDS_MAX - INTAKE_IN_FLIGHT_RECORDS_MAX >= BATCH_LEGS_MAX: the outcomes of a full batch find room beside a full intake',
    ],
    [
      l.JOURNAL_SEGMENT_BYTES_MAX >= 4 * l.JOURNAL_COMMAND_BYTES_MAX,
      'JOURNAL_SEGMENT_BYTES_MAX >= 4 * JOURNAL_COMMAND_BYTES_MAX: a segment holds several of the largest records',
    ],
    [l.SNAPSHOTS_KEPT >= 1, 'SNAPSHOTS_KEPT >= 1: recovery starts from a snapshot'],
    [
      l.SNAPSHOT_INTERVAL_RECORDS > 0 && l.SNAPSHOT_INTERVAL_MS > 0,
      'SNAPSHOT_INTERVAL_RECORDS and SNAPSHOT_INTERVAL_MS > 0: snapshots are due at all',
    ],
    [
      l.REPLICA_BOOT_CHUNK_BYTES < l.REPLICA_BACKLOG_BYTES_MAX,
      'REPLICA_BOOT_CHUNK_BYTES < REPLICA_BACKLOG_BYTES_MAX: a boot chunk must not drop the replica it seeds',
    ],
    [
      l.CONSUMED_NOTES_PER_RECORD_MAX <= l.NOTES_CONSUMED_PER_COMMAND_MAX &&
        l.CONSUMED_NOTES_PER_RECORD_MAX * 80 < l.JOURNAL_COMMAND_BYTES_MAX,
      'CONSUMED_NOTES_PER_RECORD_MAX: a notes_consumed record is one the core takes and the journal holds',
    ],
    [
      l.CONSUMED_WATCH_NOTES_PER_BEAT_MAX <= l.SETTLEMENT_VIEW_KEYS_MAX,
      'CONSUMED_WATCH_NOTES_PER_BEAT_MAX <= SETTLEMENT_VIEW_KEYS_MAX: one beat of the watch fits one view read',
    ],
    [
      l.SETTLEMENT_VIEW_KEYS_PER_READ >= 1 && l.SETTLEMENT_VIEW_KEYS_PER_READ <= l.SETTLEMENT_VIEW_KEYS_MAX,
      'SETTLEMENT_VIEW_KEYS_PER_READ <= SETTLEMENT_VIEW_KEYS_MAX: a read the chain answers',
    ],
    [
      l.QUEUED_MATCHES_PER_MARKET_MAX * 2 >= l.BATCH_LEGS_MAX,
      'QUEUED_MATCHES_PER_MARKET_MAX >= BATCH_LEGS_MAX / 2: the matches of a full batch (two legs each) can queue',
    ],
    // Issue 20 finding 6.
    [
      l.STREAM_CONNECTIONS_MAX * 4 <= l.CONNECTIONS_MAX * 3,
      'STREAM_CONNECTIONS_MAX <= 3/4 of CONNECTIONS_MAX: a socket is a server connection too, so the stream cap must bind first and leave room for REST',
    ],
    [
      l.ACCESS_TOKEN_IAT_SKEW_MS >= 0 && l.ACCESS_TOKEN_IAT_SKEW_MS < l.ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
      'ACCESS_TOKEN_IAT_SKEW_MS < ACCESS_TOKEN_LIFETIME_SECONDS: a token from the future is refused, not honoured for longer than its life',
    ],
    // Issue 20 finding 2: HTTP timeouts and the per-address connection cap.
    [
      l.HEADERS_TIMEOUT_MS <= l.REQUEST_TIMEOUT_MS,
      'HEADERS_TIMEOUT_MS <= REQUEST_TIMEOUT_MS: Node swaps the two otherwise, and a stalled body would live as long as the headers timeout',
    ],
    [
      l.CONNECTIONS_PER_ADDRESS_MAX < l.CONNECTIONS_MAX,
      'CONNECTIONS_PER_ADDRESS_MAX < CONNECTIONS_MAX: one address cannot take every connection',
    ],
    [
      l.CONNECTIONS_PER_ADDRESS_MAX > l.STREAM_CONNECTIONS_PER_ACCOUNT_MAX,
      "CONNECTIONS_PER_ADDRESS_MAX > STREAM_CONNECTIONS_PER_ACCOUNT_MAX: one host can hold an account's sockets and still call REST",
    ],
  ];
  return relations.filter(([holds]) => !holds).map(([, relation]) => relation);
}

/** Asserts every relation between the venue's limits. Called at boot; a broken one stops the venue. */
export function checkLimitRelations(limits: VenueLimits = VENUE_LIMITS): void {
  const broken = brokenLimitRelations(limits);
  assert(broken.length === 0, `limits: ${broken.join('; ')}`);
}

/**
 * Batch auction explanations kept for GET /admin/auctions (venue/auction-explanations.ts), newest
 * first out: a minute or more of batches at one per slot on a few markets, a few hundred bytes each.
 */
export const AUCTION_EXPLANATIONS_MAX = 1024;
