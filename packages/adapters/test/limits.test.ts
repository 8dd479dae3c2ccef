// The venue's limits (adapters/src/config/limits.ts): the relations between them hold as shipped,
// and an edit that breaks any one of them stops the boot check with the relation named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssertionError } from '@venue/protocol';
import { brokenLimitRelations, checkLimitRelations, VENUE_LIMITS, type VenueLimits } from '../src/index.ts';

/** One edit per relation, each breaking exactly that relation; the name is the limit it names first. */
const BREAKING_EDITS: ReadonlyArray<[string, Partial<VenueLimits>]> = [
  ['BODY_BYTES_MAX <= JSON_TEXT_BYTES_MAX', { BODY_BYTES_MAX: 16 * 1024, JSON_TEXT_BYTES_MAX: 8 * 1024 }],
  ['BODY_BYTES_MAX < JOURNAL_COMMAND_BYTES_MAX', { BODY_BYTES_MAX: 64 * 1024 }],
  [
    'STREAM_FRAME_BYTES_MAX < JOURNAL_COMMAND_BYTES_MAX',
    { JOURNAL_COMMAND_BYTES_MAX: 16 * 1024, BODY_BYTES_MAX: 8 * 1024 },
  ],
  ['STREAM_FRAME_BYTES_MAX < STREAM_FRAME_HARD_BYTES_MAX', { STREAM_FRAME_HARD_BYTES_MAX: 16 * 1024 }],
  ['KEEP_ALIVE_TIMEOUT_MS < REQUEST_TIMEOUT_MS', { KEEP_ALIVE_TIMEOUT_MS: 10_000 }],
  ['REQUEST_TIMEOUT_CHECK_INTERVAL_MS < HEADERS_TIMEOUT_MS', { REQUEST_TIMEOUT_CHECK_INTERVAL_MS: 5_000 }],
  ['STREAM_STOP_WAIT_MS < SHUTDOWN_GRACE_MS', { STREAM_STOP_WAIT_MS: 5_000 }],
  ['SESSION_ID_BYTES === 32', { SESSION_ID_BYTES: 16 }],
  ['CERT_VALIDITY_MS > CERT_BACKDATE_MS', { CERT_VALIDITY_MS: 60_000 }],
  ['SLOT_DURATION_MS within', { SLOT_DURATION_MS: 0 }],
  ['SETTLEMENT_BUFFER_SLOTS > FINALITY_DEPTH_SLOTS', { FINALITY_DEPTH_SLOTS: 150n }],
  ['SETTLEMENT_BUFFER_SLOTS < ORDER_LIFETIME_SLOTS_MAX', { SETTLEMENT_BUFFER_SLOTS: 4500n }],
  ['DEV_TREE_COUNT within', { DEV_TREE_COUNT: 257 }],
  ['ACCESS_TOKEN_LIFETIME_SECONDS <= TOKEN_LIFETIME_SECONDS_MAX', { ACCESS_TOKEN_LIFETIME_SECONDS: 3601 }],
  ['STREAM_AUTH_WARNING_MS < ACCESS_TOKEN_LIFETIME_SECONDS', { STREAM_AUTH_WARNING_MS: 3_600_000 }],
  ['AUTH_SWEEP_INTERVAL_MS < ACCESS_TOKEN_LIFETIME_SECONDS', { AUTH_SWEEP_INTERVAL_MS: 3_600_000 }],
  ['TRADING_RESERVE_UNITS + the dearest request', { TRADING_RESERVE_UNITS: 399 }],
  ['TRADING_COST cancel < place', { TRADING_COST: { place: 2, modify: 2, cancel: 2, read: 1 } }],
  ['SIGNATURE_BATCH_JOBS_MAX <= SIGNATURE_QUEUE_JOBS_MAX', { SIGNATURE_QUEUE_JOBS_MAX: 128 }],
  ['STREAM_CONNECTIONS_PER_ACCOUNT_MAX <= STREAM_CONNECTIONS_MAX', { STREAM_CONNECTIONS_MAX: 8 }],
  ['JOURNAL_IN_FLIGHT_RECORDS_MAX - INTAKE_IN_FLIGHT_RECORDS_MAX', { INTAKE_IN_FLIGHT_RECORDS_MAX: 8_000 }],
  ['JOURNAL_SEGMENT_BYTES_MAX >= 4 * JOURNAL_COMMAND_BYTES_MAX', { JOURNAL_SEGMENT_BYTES_MAX: 128 * 1024 }],
  ['SNAPSHOTS_KEPT >= 1', { SNAPSHOTS_KEPT: 0 }],
  ['SNAPSHOT_INTERVAL_RECORDS and SNAPSHOT_INTERVAL_MS > 0', { SNAPSHOT_INTERVAL_MS: 0 }],
  ['REPLICA_BOOT_CHUNK_BYTES < REPLICA_BACKLOG_BYTES_MAX', { REPLICA_BACKLOG_BYTES_MAX: 1024 * 1024 }],
  ['QUEUED_MATCHES_PER_MARKET_MAX >= BATCH_LEGS_MAX / 2', { QUEUED_MATCHES_PER_MARKET_MAX: 511 }],
  ['CONSUMED_NOTES_PER_RECORD_MAX', { CONSUMED_NOTES_PER_RECORD_MAX: 1024 }],
  [
    'CONSUMED_WATCH_NOTES_PER_BEAT_MAX <= SETTLEMENT_VIEW_KEYS_MAX',
    { CONSUMED_WATCH_NOTES_PER_BEAT_MAX: 5_000 },
  ],
  // Issue 20 finding 6: the stream's cap could never be reached under the server's (4096 > 1024).
  ['STREAM_CONNECTIONS_MAX <= 3/4 of CONNECTIONS_MAX', { STREAM_CONNECTIONS_MAX: 4096 }],
  ['ACCESS_TOKEN_IAT_SKEW_MS < ACCESS_TOKEN_LIFETIME_SECONDS', { ACCESS_TOKEN_IAT_SKEW_MS: 3_600_000 }],
  // Issue 20 finding 2.
  ['HEADERS_TIMEOUT_MS <= REQUEST_TIMEOUT_MS', { HEADERS_TIMEOUT_MS: 60_000 }],
  ['CONNECTIONS_PER_ADDRESS_MAX < CONNECTIONS_MAX', { CONNECTIONS_PER_ADDRESS_MAX: 1_024 }],
  ['CONNECTIONS_PER_ADDRESS_MAX > STREAM_CONNECTIONS_PER_ACCOUNT_MAX', { CONNECTIONS_PER_ADDRESS_MAX: 16 }],
  ['STREAM_READ_BUCKET >= TRADING_BUCKET', { STREAM_READ_BUCKET: { capacity: 400, refillPerSecond: 100 } }],
  [
    'STREAM_LOGIN_READ_BUCKET capacity <= STREAM_READ_BUCKET capacity',
    { STREAM_LOGIN_READ_BUCKET: { capacity: 500, refillPerSecond: 8 } },
  ],
];

test('the limits as shipped satisfy every relation the boot check asserts', () => {
  assert.deepEqual(brokenLimitRelations(VENUE_LIMITS), []);
  checkLimitRelations();
});

test('breaking any one relation makes the boot check throw, naming that relation alone', () => {
  const seen = new Set<string>();
  for (const [relation, edit] of BREAKING_EDITS) {
    const limits = { ...VENUE_LIMITS, ...edit };
    const broken = brokenLimitRelations(limits);
    assert.equal(broken.length, 1, `${relation}: ${broken.join('; ')}`);
    assert.ok(broken[0]?.startsWith(relation), `${relation} reported as ${broken[0]}`);
    assert.throws(
      () => checkLimitRelations(limits),
      (error) => {
        return error instanceof AssertionError && error.message.includes(relation);
      },
    );
    seen.add(broken[0] ?? '');
  }
  assert.equal(seen.size, BREAKING_EDITS.length, 'each edit breaks a different relation');
});
