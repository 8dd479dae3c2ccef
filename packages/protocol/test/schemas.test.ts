import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { ERRORS, type ErrorName } from '../src/errors/catalogue.ts';
import { VenueError } from '../src/errors/venue-error.ts';
import { parseJsonText } from '../src/json/json-text.ts';
import * as account from '../src/schema/account.ts';
import * as admin from '../src/schema/admin.ts';
import * as attestation from '../src/schema/attestation.ts';
import * as auth from '../src/schema/auth.ts';
import { decode } from '../src/schema/decode.ts';
import * as events from '../src/schema/events.ts';
import * as market from '../src/schema/market.ts';
import * as orders from '../src/schema/orders.ts';
import * as publicReads from '../src/schema/public.ts';
import * as routes from '../src/schema/routes.ts';
import { API_DOCUMENT, ROUTES, STREAM_CATALOGUE, STREAM_OPS } from '../src/schema/routes.ts';
import * as stream from '../src/schema/stream.ts';
import { CLIENT_FRAMES, decodeClientFrame, SERVER_FRAMES } from '../src/schema/stream.ts';
import * as tree from '../src/schema/tree.ts';
import { pageLimitOf, settlementLookupOf, TREE_DEPTH, treeIdOf } from '../src/schema/tree.ts';

type Json = Record<string, unknown>;

// ---- Sample values, written as plain JS and turned into JSON text so numbers arrive as tokens ----

const hex = (bytes: number, byte = 'ab') => byte.repeat(bytes);
const H16 = hex(16);
const H32 = hex(32);
const H64 = hex(64);
const ADDR = 'So11111111111111111111111111111111111111112';
const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const ACCT = `acct_${hex(16, 'c3')}`;
const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhY2N0In0.c2lnbmF0dXJlLWJ5dGVz';
const PEM = `-----BEGIN CERTIFICATE-----\n${'MIIBszCCAVmgAwIBAgIU'.repeat(4)}\n-----END CERTIFICATE-----\n`;
const U64_MAX_TEXT = '18446744073709551615';

const place = {
  symbol: 'SOL-USDC',
  side: 'bid',
  order_type: 'limit',
  amount: 1000,
  price_limit: 150,
  min_fill_size: 10,
  expiry_slot: 5000,
  order_id: H16,
  note_commitment: H32,
  arrival_nonce: 1,
  trading_key: H32,
  trading_key_signature: H64,
  owner_commitment: H32,
  note_inner_hash: H32,
  merkle_root: H32,
  valid_input_proof: hex(256),
  collateral_amount: 200000,
  tree_id: 0,
  viewing_pubkey: H32,
  session_id: H32,
};
const cancel = { trading_key: H32, cancel_nonce: '7', session_id: H32, trading_key_signature: H64 };
const modify = { cancel_signature: H64, cancel_nonce: '8', replacement: place };
const placeResponse = { order_id: H16, status: 'accepted', arrival_slot: 100 };
const cancelResponse = { order_id: H16, status: 'cancelled', cancelled_slot: 101 };
const modifyResponse = { old_order_id: H16, order_id: H16, status: 'modified', arrival_slot: 102 };
const orderRecord = {
  order_id: H16,
  market_id: ADDR,
  symbol: 'SOL-USDC',
  side: 'ask',
  order_type: 'limit',
  state: 'settlement_failed',
  amount: 1000,
  remaining_amount: 400,
  filled_quantity: 600,
  price_limit: 0,
  min_fill_size: 0,
  expiry_slot: 5000,
  arrival_slot: 100,
  note_commitment: H32,
  tree_id: 1,
  trading_key: H32,
  match_id: '42',
  reason: 'root_expired',
  lock_expiry_slot: 4800,
  last_update_slot: 4100,
};
const settings = { cancel_on_disconnect_default: true };
const breaker = { band_bps: 500, window_slots: 150, cooldown_slots: 300, max_confidence_bps: 100 };
const instrument = {
  symbol: 'SOL-USDC',
  market_id: ADDR,
  base_mint: ADDR,
  quote_mint: MINT,
  tick_size: 10,
  min_size: 1000,
  price_scale: 1000000,
  batch_interval_slots: 1,
  oracle_feed: ADDR,
  oracle_max_age_slots: 25,
  circuit_breaker: breaker,
  trading_enabled: false,
  paused_reason: 'oracle_stale',
  batch_seq: 17,
};
const leaf = { index: 5, commitment: H32 };
const report = {
  version: 1,
  platform: 'simulated',
  measurement: H32,
  session_id: H32,
  tls_spki_sha256: H32,
  settlement_signer: H32,
  sealing_pubkey: H32,
  issued_at_ms: 1700000000000,
  platform_key_id: H32,
};
const transparencyEntry = {
  index: 0,
  kind: 'governance',
  time_ms: 1700000000000,
  measurement: H32,
  settlement_signer: H32,
  governance_slot: 90,
  payload_digest: H32,
  prev_hash: hex(32, '00'),
  entry_hash: H32,
};
const bucket = { min_matches: 256, batches: 3 };
const marketMetrics = {
  symbol: 'SOL-USDC',
  market_id: ADDR,
  queue_depth: 4,
  batches_submitted: 10,
  batches_confirmed: 9,
  batches_failed: 1,
  batch_size_histogram: [{ min_matches: 1, max_matches: 1, batches: 7 }, bucket],
  match_to_final_slots_p50: 34,
  match_to_final_slots_p99: 80,
};
const memoNote = { commitment: H32, inner_hash: H32, tree_id: 0, leaf_index: 77, amount: 150, mint: MINT };
const memo = {
  scheme: events.FILL_MEMO_SCHEME,
  ephemeral_pubkey: H32,
  nonce: hex(12),
  ciphertext: hex(events.FILL_MEMO_CIPHERTEXT_BYTES),
};
const deadManArmed = { armed: true, timeout_slots: 25, armed_slot: 4000, deadline_slot: 4025 };
const candidate = { price: 1000, demand: 300, supply: 250, executable: 250, surplus: 50, oracle_distance: 0 };
const loginResult = { account_id: ACCT, expires_at: 1700000360000, cancel_on_disconnect: false };

/** One valid sample per exported schema; the test below fails when a schema has none. */
const SAMPLES: Record<string, unknown> = {
  // orders.ts, public.ts (referenced by the catalogue)
  PlaceOrderSchema: place,
  CancelParamsSchema: cancel,
  ModifyRequestSchema: modify,
  PlaceResponseSchema: placeResponse,
  CancelResponseSchema: cancelResponse,
  ModifyResponseSchema: modifyResponse,
  HealthResponseSchema: { status: 'ok' },
  TimeResponseSchema: {
    slot: 4000,
    finalized_slot: 3968,
    slot_duration_ms: 400,
    server_time_ms: 1700000000000,
  },
  InfoResponseSchema: {
    interface_version: '4.1.0',
    signature_domain: 'venue-order-v5',
    session_id: H32,
    boot_time_ms: 1700000000000,
    settlement_enabled: true,
    proof_mode: 'groth16',
    settlement_buffer_slots: 32,
    order_lifetime_slots_max: 4500,
    tree_count: 4,
    stream_path: '/v1/stream',
  },
  SystemStatusResponseSchema: {
    status: 'degraded',
    trading_enabled: true,
    pause_reasons: [],
    markets_paused: 1,
    slot: 4000,
    session_id: H32,
    server_time_ms: 1700000000000,
  },
  // auth.ts
  TokenRequestSchema: {
    api_key: 'AK_0123456789abcdef',
    api_secret: hex(20, 'Zz'),
    passphrase: 'c0rrect-Horse!',
  },
  TokenResponseSchema: { access_token: JWT, token_type: 'Bearer', expires_in: 3600, account_id: ACCT },
  RevokeTokenResponseSchema: { revoked: true, denylisted_until_ms: 1700000360000 },
  // account.ts
  OrderRecordSchema: orderRecord,
  AccountSettingsSchema: settings,
  AccountResponseSchema: {
    account_id: ACCT,
    open_orders: [{ ...orderRecord, state: 'cancelled', reason: undefined, cancel_reason: 'disconnect' }],
    settings,
  },
  // market.ts
  CircuitBreakerPolicySchema: breaker,
  InstrumentSchema: instrument,
  InstrumentListResponseSchema: {
    instruments: [instrument, { ...instrument, trading_enabled: true, paused_reason: undefined }],
  },
  // tree.ts
  TreeRootSchema: { tree_id: 0, root: H32, leaf_count: 10, slot: 4000 },
  TreeRootsResponseSchema: { trees: [{ tree_id: 0, root: H32, leaf_count: 10, slot: 4000 }] },
  InclusionQuerySchema: { tree_id: '0', commitment: H32 },
  InclusionProofResponseSchema: {
    tree_id: 0,
    leaf_index: 5,
    commitment: H32,
    root: H32,
    slot: 4000,
    siblings: Array.from({ length: TREE_DEPTH }, () => H32),
    path_bits: Array.from({ length: TREE_DEPTH }, (_, level) => ((5 >> level) & 1) === 1),
  },
  LeavesQuerySchema: { tree_id: '1', from: '0', limit: '1000' },
  LeafSchema: leaf,
  LeavesResponseSchema: { tree_id: 1, from: 5, leaves: [leaf], next_from: 6, root: H32, leaf_count: 9 },
  SettlementStatusQuerySchema: { market_id: ADDR, batch_seq: '17' },
  SettlementStatusResponseSchema: {
    market_id: ADDR,
    batch_seq: 17,
    tx_id: H32,
    status: 'failed',
    slot: 4010,
    reason: 'lock_expired',
    match_count: 12,
  },
  // attestation.ts
  AttestationReportSchema: report,
  AttestationResponseSchema: { report, signature: H64 },
  TransportAttestationResponseSchema: {
    certificate_pem: PEM,
    tls_spki_sha256: H32,
    session_id: H32,
    report_signature: H64,
  },
  TransparencyEntrySchema: transparencyEntry,
  TransparencyQuerySchema: { from: '0', limit: '100' },
  TransparencyResponseSchema: { size: 1, head_hash: H32, entries: [transparencyEntry] },
  // admin.ts
  CreateAccountRequestSchema: { role: 'trader', label: 'Desk 7 @ Acme' },
  CreateAccountResponseSchema: {
    account_id: ACCT,
    api_key: 'AK_0123456789abcdef',
    api_secret: hex(20, 'Zz'),
    passphrase: 'c0rrect-Horse!',
    role: 'trader',
  },
  AccountStatusResponseSchema: {
    account_id: ACCT,
    api_key: 'AK_0123456789abcdef',
    role: 'admin',
    status: 'suspended',
    tokens_invalid_before_ms: 1700000000000,
  },
  AccountListResponseSchema: {
    accounts: [
      {
        account_id: ACCT,
        api_key: 'AK_0123456789abcdef',
        role: 'admin',
        status: 'active',
        label: 'ops desk',
      },
      {
        account_id: ACCT,
        api_key: 'AK_fedcba9876543210',
        role: 'trader',
        status: 'suspended',
        tokens_invalid_before_ms: 1700000000000,
      },
    ],
  },
  DrainResponseSchema: {
    state: 'draining',
    trading_closed: true,
    journal_records_in_flight: 3,
    since_ms: 1700000000000,
  },
  BatchSizeBucketSchema: bucket,
  MarketSettlementMetricsSchema: marketMetrics,
  SettlementMetricsResponseSchema: { slot: 4000, since_ms: 1700000000000, markets: [marketMetrics] },
  // events.ts
  OrderEventSchema: {
    channel: 'orders',
    seq: 3,
    order_id: H16,
    market_id: ADDR,
    match_id: '42',
    server_time_ms: 1700000000000,
    kind: 'partially_filled',
    filled_quantity: 600,
    new_amount: 400,
    new_note_amount: 60000,
  },
  FillMemoSchema: memo,
  FillMessageSchema: {
    channel: 'fills',
    seq: 4,
    order_id: H16,
    market_id: ADDR,
    match_id: '42',
    batch_seq: 17,
    server_time_ms: 1700000000000,
    memo,
  },
  MemoNoteSchema: memoNote,
  FillMemoPlaintextSchema: {
    fill_quantity: 600,
    quote_amount: 90,
    clearing_price: 150,
    received: memoNote,
    change: { ...memoNote, leaf_index: undefined },
  },
  TreeMessageSchema: {
    channel: 'tree',
    seq: 5,
    tree_id: 0,
    slot: 4000,
    root: H32,
    leaf_count: 6,
    leaves: [leaf],
  },
  // stream.ts: client frames
  LoginFrameSchema: { op: 'login', request_id: 'r-1', token: JWT, cancel_on_disconnect: true },
  SubscribeFrameSchema: { op: 'subscribe', channels: ['orders', 'fills', 'tree'] },
  UnsubscribeFrameSchema: { op: 'unsubscribe', request_id: 'r.2', channels: ['tree'] },
  OrderPlaceFrameSchema: { op: 'order.place', request_id: 'p:1', params: place },
  OrderCancelFrameSchema: { op: 'order.cancel', order_id: H16, params: cancel },
  OrderModifyFrameSchema: { op: 'order.modify', order_id: H16, params: modify },
  PingFrameSchema: { op: 'ping' },
  LogoutFrameSchema: { op: 'logout', request_id: 'bye' },
  DeadManArmFrameSchema: { op: 'dead_man.arm', request_id: 'd1', params: { timeout_slots: 25 } },
  DeadManDisarmFrameSchema: { op: 'dead_man.disarm' },
  DeadManArmReplySchema: { op: 'dead_man.arm', seq: 4, result: deadManArmed },
  DeadManDisarmReplySchema: { op: 'dead_man.disarm', seq: 5, result: { armed: false } },
  // dead-man.ts, clearing.ts
  DeadManArmRequestSchema: { timeout_slots: 25 },
  DeadManStatusSchema: deadManArmed,
  UnfilledBatchSchema: { batch: 17, slot: 4000, reason: 'priority' },
  AuctionParamsSchema: { market_id: ADDR, batch: '17' },
  CandidatePriceSchema: candidate,
  UnfilledCountSchema: { reason: 'limit', orders: 3 },
  AuctionExplanationSchema: {
    market_id: ADDR,
    batch: 17,
    slot: 4000,
    participants: 12,
    clearing_price: 1000,
    decided_by: 'surplus',
    candidates_considered: 5,
    candidates_out_of_band: 1,
    shortlist: [candidate],
    fills: 4,
    volume: 250,
    unfilled: [{ reason: 'limit', orders: 3 }],
  },
  // stream.ts: server frames
  OrderPlaceReplySchema: { op: 'order.place', seq: 1, request_id: 'p:1', result: placeResponse },
  OrderCancelReplySchema: { op: 'order.cancel', seq: 2, result: cancelResponse },
  OrderModifyReplySchema: { op: 'order.modify', seq: 3, result: modifyResponse },
  LoginResultSchema: loginResult,
  LoginReplySchema: { op: 'login', seq: 1, request_id: 'r-1', result: loginResult },
  ChannelsResultSchema: { channels: [] },
  SubscribeReplySchema: { op: 'subscribe', seq: 2, result: { channels: ['orders', 'fills'] } },
  UnsubscribeReplySchema: { op: 'unsubscribe', seq: 3, result: { channels: ['orders'] } },
  LogoutResultSchema: {},
  LogoutReplySchema: { op: 'logout', seq: 9, result: {} },
  PongFrameSchema: { op: 'pong', seq: 6 },
  AuthExpiredFrameSchema: { op: 'auth_expired', seq: 7, expires_at: 1700000360000 },
  ErrorFrameSchema: {
    op: 'error',
    seq: 8,
    request_id: 'x',
    code: 1102,
    message: 'signature does not verify',
  },
  // routes.ts: path parameters
  OrderIdParamsSchema: { order_id: H16 },
  SymbolParamsSchema: { symbol: 'SOL-USDC' },
  ApiKeyParamsSchema: { api_key: 'AK_0123456789abcdef' },
};

/** JSON text of a sample (undefined fields dropped), parsed the way the venue parses input. */
function asWire(sample: unknown): unknown {
  return parseJsonText(JSON.stringify(sample), 1024 * 1024);
}

const MODULES = {
  account,
  admin,
  attestation,
  auth,
  events,
  market,
  orders,
  publicReads,
  routes,
  stream,
  tree,
};

/** Every exported `...Schema` of every schema module. */
function exportedSchemas(): [string, TSchema][] {
  const found: [string, TSchema][] = [];
  for (const mod of Object.values(MODULES)) {
    for (const [name, value] of Object.entries(mod)) {
      if (name.endsWith('Schema') && typeof value === 'object' && value !== null) {
        found.push([name, value as TSchema]);
      }
    }
  }
  return found;
}

function expectCode(fn: () => unknown, code: number): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof VenueError, `expected a VenueError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

/** Visits every schema node below `schema` (properties and items), with its path. */
function visit(schema: Json, path: string, fn: (node: Json, path: string) => void): void {
  fn(schema, path);
  const properties = schema['properties'] as Record<string, Json> | undefined;
  for (const [key, child] of Object.entries(properties ?? {})) visit(child, `${path}.${key}`, fn);
  const items = schema['items'] as Json | undefined;
  if (items !== undefined) visit(items, `${path}[]`, fn);
}

const DECODABLE = new Set(['object', 'array', 'string', 'integer', 'boolean']);

describe('schemas', () => {
  test('every exported schema has a sample, the sample decodes, and an unknown field is refused', () => {
    for (const [name, schema] of exportedSchemas()) {
      assert.ok(Object.hasOwn(SAMPLES, name), `no sample for ${name}`);
      const sample = SAMPLES[name];
      assert.doesNotThrow(() => decode(schema, asWire(sample)), `${name} refused its sample`);
      const extended = { ...(sample as object), zz_not_in_interface: 1 };
      expectCode(() => decode(schema, asWire(extended)), ERRORS.UNKNOWN_FIELD.code);
    }
  });

  test('every object is Strict with a title, every array has maxItems, every node is decodable', () => {
    for (const [name, schema] of exportedSchemas()) {
      visit(schema as unknown as Json, name, (node, path) => {
        if (!('const' in node))
          assert.ok(DECODABLE.has(node['type'] as string), `${path}: undecodable construct`);
        if (node['type'] === 'object') {
          assert.equal(node['additionalProperties'], false, `${path}: not Strict`);
          assert.equal(typeof node['title'], 'string', `${path}: object without title`);
        }
        if (node['type'] === 'array') {
          assert.equal(typeof node['maxItems'], 'number', `${path}: array without maxItems`);
        }
      });
    }
  });

  test('titles are unique across distinct schemas (they name OpenAPI components)', () => {
    const byTitle = new Map<string, unknown>();
    for (const [name, schema] of exportedSchemas()) {
      visit(schema as unknown as Json, name, (node, path) => {
        const title = node['title'];
        if (typeof title !== 'string') return;
        const seen = byTitle.get(title);
        if (seen !== undefined) {
          assert.deepEqual(seen, node, `${path}: title ${title} names two different schemas`);
        }
        byTitle.set(title, node);
      });
    }
  });

  test('u64 fields keep values above 2^53 exactly', () => {
    const text = `{"tree_id":0,"root":"${H32}","leaf_count":${U64_MAX_TEXT},"slot":1}`;
    const root = decode(tree.TreeRootSchema, parseJsonText(text));
    assert.equal(root.leaf_count, 18446744073709551615n);
  });

  test('the largest fill memo plaintext fits the padded size, and padding keeps it decodable', () => {
    const big = 18446744073709551615n;
    const note = { commitment: H32, inner_hash: H32, tree_id: 255, leaf_index: big, amount: big, mint: MINT };
    const plaintext = {
      fill_quantity: big,
      quote_amount: big,
      clearing_price: big,
      received: note,
      change: note,
    };
    const text = JSON.stringify(plaintext, (_k, v) => (typeof v === 'bigint' ? `#${v}#` : v)).replace(
      /"#(\d+)#"/g,
      '$1',
    );
    assert.ok(
      Buffer.byteLength(text) <= events.FILL_MEMO_PLAINTEXT_BYTES,
      `${Buffer.byteLength(text)} bytes`,
    );
    const padded = text.padEnd(events.FILL_MEMO_PLAINTEXT_BYTES, ' ');
    const decoded = decode(events.FillMemoPlaintextSchema, parseJsonText(padded, 2048));
    assert.equal(decoded.change?.amount, big);
  });
});

describe('route catalogue', () => {
  const EXPECTED = [
    'POST /orders',
    'DELETE /orders/:order_id',
    'PUT /orders/:order_id',
    'GET /orders/:order_id',
    'GET /account',
    'GET /account/settings',
    'PUT /account/settings',
    // Ours: the dead-man timer and the auction explanation (issue 25).
    'GET /account/dead-man',
    'POST /account/dead-man',
    'DELETE /account/dead-man',
    'GET /admin/auctions/:market_id/:batch',
    'POST /auth/token',
    'DELETE /auth/token',
    'GET /health',
    'GET /system/status',
    'GET /time',
    'GET /info',
    'GET /transport-attestation',
    'GET /attestation',
    'GET /instruments',
    'GET /instruments/:symbol',
    'GET /tree/root',
    'GET /transparency',
    'GET /tree/inclusion',
    'GET /tree/leaves',
    'GET /settlement/status',
    'POST /admin/accounts',
    // The venue's own addition (docs/decisions.md D83): the account list of the operator console.
    'GET /admin/accounts',
    'POST /admin/accounts/:api_key/disable',
    'POST /admin/accounts/:api_key/enable',
    'POST /admin/accounts/:api_key/revoke-tokens',
    'GET /admin/drain',
    'POST /admin/drain',
    'DELETE /admin/drain',
    'GET /admin/metrics/settlement',
    // The venue's own addition (docs/decisions.md): the metrics in the format scrapers read.
    'GET /admin/metrics/prometheus',
    'GET /openapi.json',
    'GET /asyncapi.json',
  ];

  test('lists exactly the routes of spec 4.1-4.7, DELETE /auth/token and the two documents, once each', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    assert.equal(new Set(keys).size, keys.length, 'a route is listed twice');
    assert.deepEqual([...keys].sort(), [...EXPECTED].sort());
  });

  test('every referenced schema is a Strict object with a title', () => {
    for (const route of ROUTES) {
      for (const part of ['params', 'query', 'body', 'response'] as const) {
        const schema = route[part] as Json | undefined;
        // The served OpenAPI/AsyncAPI documents are defined by their own specifications.
        if (schema === undefined || schema === (API_DOCUMENT as unknown)) continue;
        // The Prometheus text is defined by its own exposition format, and is no JSON at all.
        if (route.responseType === 'text/plain' && part === 'response') continue;
        const where = `${route.method} ${route.path} ${part}`;
        assert.equal(schema['type'], 'object', `${where}: not an object`);
        assert.equal(schema['additionalProperties'], false, `${where}: not Strict`);
        assert.equal(typeof schema['title'], 'string', `${where}: no title`);
      }
    }
  });

  test('path parameters match the params schema; bodies have a size limit', () => {
    for (const route of ROUTES) {
      const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
      const declared = Object.keys(((route.params as Json | undefined)?.['properties'] ?? {}) as Json);
      assert.deepEqual(declared.sort(), names.sort(), `${route.method} ${route.path}`);
      assert.equal(
        route.body !== undefined,
        route.bodyBytesMax !== undefined,
        `${route.method} ${route.path}`,
      );
    }
  });

  test('auth follows spec 4.4, 4.5, 4.7 and 5', () => {
    for (const route of ROUTES) {
      const expected = route.path.startsWith('/admin/')
        ? 'admin'
        : ['/orders', '/account', '/tree/inclusion', '/tree/leaves', '/settlement/status'].some((p) =>
              route.path.startsWith(p),
            )
          ? 'bearer'
          : route.path === '/auth/token' && route.method === 'DELETE'
            ? 'token'
            : 'none';
      assert.equal(route.auth, expected, `${route.method} ${route.path}`);
    }
  });

  test('every error name listed exists in the catalogue', () => {
    const lists: [string, readonly ErrorName[]][] = [
      ...ROUTES.map((r): [string, readonly ErrorName[]] => [`${r.method} ${r.path}`, r.errors]),
      ...STREAM_OPS.map((o): [string, readonly ErrorName[]] => [`stream ${o.op}`, o.errors]),
      ['stream frames', STREAM_CATALOGUE.frameErrors],
    ];
    for (const [where, names] of lists) {
      assert.ok(names.length > 0, `${where}: no errors listed`);
      for (const name of names) assert.ok(Object.hasOwn(ERRORS, name), `${where}: unknown error ${name}`);
    }
  });
});

describe('stream catalogue', () => {
  const constOf = (schema: unknown, key: string) =>
    ((schema as Json)['properties'] as Record<string, Json>)[key]?.['const'];

  test('each frame schema is keyed by its own op or channel', () => {
    for (const [op, schema] of Object.entries(CLIENT_FRAMES)) assert.equal(constOf(schema, 'op'), op);
    for (const [op, schema] of Object.entries(SERVER_FRAMES)) assert.equal(constOf(schema, 'op'), op);
    for (const [channel, schema] of Object.entries(STREAM_CATALOGUE.channels)) {
      assert.equal(constOf(schema, 'channel'), channel);
    }
    assert.deepEqual(STREAM_OPS.map((o) => o.op).sort(), Object.keys(CLIENT_FRAMES).sort());
  });

  test('every server frame carries seq; every reply and error echoes request_id', () => {
    for (const [op, schema] of Object.entries(SERVER_FRAMES)) {
      const props = (schema as unknown as Json)['properties'] as Json;
      assert.ok('seq' in props, `${op}: no seq`);
      if (op !== 'auth_expired') assert.ok('request_id' in props, `${op}: no request_id`);
    }
  });

  test('decodeClientFrame dispatches on op', () => {
    const frame = decodeClientFrame(asWire({ op: 'order.cancel', order_id: H16, params: cancel }));
    assert.equal(frame.op, 'order.cancel');
    expectCode(() => decodeClientFrame(asWire({ op: 'order.amend' })), ERRORS.UNKNOWN_OP.code);
    expectCode(() => decodeClientFrame(asWire({ request_id: 'x' })), ERRORS.MISSING_FIELD.code);
    expectCode(() => decodeClientFrame(asWire([1])), ERRORS.WRONG_TYPE.code);
    expectCode(() => decodeClientFrame(asWire({ op: 'ping', token: JWT })), ERRORS.UNKNOWN_FIELD.code);
    expectCode(
      () => decodeClientFrame(asWire({ op: 'subscribe', channels: ['orders', 'book'] })),
      ERRORS.UNKNOWN_CHANNEL.code,
    );
    expectCode(
      () => decodeClientFrame(asWire({ op: 'subscribe', channels: ['orders', 'orders'] })),
      ERRORS.INVALID_FORMAT.code,
    );
    expectCode(() => decodeClientFrame(asWire({ op: 'subscribe', channels: [] })), ERRORS.OUT_OF_RANGE.code);
  });
});

describe('query helpers', () => {
  test('settlement lookup is either tx_id alone or market_id with batch_seq', () => {
    assert.deepEqual(settlementLookupOf({ tx_id: H32 }), { by: 'tx', tx_id: H32 });
    assert.deepEqual(settlementLookupOf({ market_id: ADDR, batch_seq: 3n }), {
      by: 'batch',
      market_id: ADDR,
      batch_seq: 3n,
    });
    for (const query of [{}, { tx_id: H32, batch_seq: 3n }, { market_id: ADDR }, { batch_seq: 1n }]) {
      expectCode(() => settlementLookupOf(query), ERRORS.INVALID_QUERY.code);
    }
  });

  test('tree_id and limit bounds the decoder cannot express', () => {
    assert.equal(treeIdOf(255n), 255);
    expectCode(() => treeIdOf(256n), ERRORS.OUT_OF_RANGE.code);
    assert.equal(pageLimitOf(undefined), tree.LEAVES_PAGE_MAX);
    assert.equal(pageLimitOf(1n), 1);
    expectCode(() => pageLimitOf(0n), ERRORS.OUT_OF_RANGE.code);
    expectCode(() => pageLimitOf(1001n), ERRORS.OUT_OF_RANGE.code);
    expectCode(() => pageLimitOf(101n, attestation.TRANSPARENCY_PAGE_MAX), ERRORS.OUT_OF_RANGE.code);
  });

  test('numeric query parameters are decimal strings, not JSON integers', () => {
    expectCode(
      () => decode(tree.LeavesQuerySchema, asWire({ tree_id: 0, from: '0' })),
      ERRORS.WRONG_TYPE.code,
    );
    expectCode(
      () => decode(tree.LeavesQuerySchema, asWire({ tree_id: '00', from: '0' })),
      ERRORS.NON_CANONICAL_NUMBER.code,
    );
  });
});
