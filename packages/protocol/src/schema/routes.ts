import Type, { type TSchema } from 'typebox';
import type { ErrorName } from '../errors/catalogue.ts';
import { BYTES } from '../limits.ts';
import { AccountResponseSchema, AccountSettingsSchema, OrderRecordSchema } from './account.ts';
import {
  AccountListResponseSchema,
  AccountStatusResponseSchema,
  CreateAccountRequestSchema,
  CreateAccountResponseSchema,
  DrainResponseSchema,
  SettlementMetricsResponseSchema,
} from './admin.ts';
import {
  AttestationResponseSchema,
  TransparencyQuerySchema,
  TransparencyResponseSchema,
  TransportAttestationResponseSchema,
} from './attestation.ts';
import { ApiKey, RevokeTokenResponseSchema, TokenRequestSchema, TokenResponseSchema } from './auth.ts';
import { AuctionExplanationSchema, AuctionParamsSchema } from './clearing.ts';
import { DeadManArmRequestSchema, DeadManStatusSchema } from './dead-man.ts';
import { CHANNEL_MESSAGES } from './events.ts';
import { InstrumentListResponseSchema, InstrumentSchema } from './market.ts';
import {
  CancelParamsSchema,
  CancelResponseSchema,
  ModifyRequestSchema,
  ModifyResponseSchema,
  PlaceOrderSchema,
  PlaceResponseSchema,
} from './orders.ts';
import { Hex, MarketSymbol, Strict } from './primitives.ts';
import {
  HealthResponseSchema,
  InfoResponseSchema,
  SystemStatusResponseSchema,
  TimeResponseSchema,
} from './public.ts';
import {
  AuthExpiredFrameSchema,
  CLIENT_FRAMES,
  type ClientOp,
  ErrorFrameSchema,
  REPLY_OF,
  SERVER_FRAMES,
  STREAM_FRAME_BYTES_MAX,
} from './stream.ts';
import {
  InclusionProofResponseSchema,
  InclusionQuerySchema,
  LeavesQuerySchema,
  LeavesResponseSchema,
  SettlementStatusQuerySchema,
  SettlementStatusResponseSchema,
  TreeRootsResponseSchema,
} from './tree.ts';

/**
 * The one catalogue of the interface: every REST route of spec 4.1-4.7 (plus our DELETE /auth/token
 * for spec 4.6) and every stream frame of spec 4.8 and 6. The server registers exactly these routes
 * with exactly these schemas, and the OpenAPI/AsyncAPI generators read the same objects, so the
 * documents cannot drift from what is validated (design decisions section 7).
 *
 * Decoding rules the route layer applies: path, query and body are each decoded with the strict
 * decoder, and a shape problem keeps the decoder's own code (1001-1009) wherever it occurs.
 * INVALID_QUERY (1012) is for query rules the decoder cannot express: a repeated parameter, or
 * an either/or rule such as GET /settlement/status. A route without a body schema takes no body.
 * `errors` lists what the route itself can return; ROUTE_NOT_FOUND and METHOD_NOT_ALLOWED come from
 * the router before any route is chosen.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * none: public (spec 4.4); bearer: a trading account's token (spec 5 item 7); admin: an admin
 * token (spec 4.7); token: any valid token of either role (revoking one's own token).
 */
export type RouteAuth = 'none' | 'bearer' | 'admin' | 'token';

export interface RouteDef {
  readonly method: HttpMethod;
  /** Fastify style: `/orders/:order_id`. */
  readonly path: string;
  readonly auth: RouteAuth;
  readonly summary: string;
  readonly params?: TSchema;
  readonly query?: TSchema;
  readonly body?: TSchema;
  /** Body size limit (BODY_TOO_LARGE above it); set exactly when `body` is. */
  readonly bodyBytesMax?: number;
  /** Schema of the 200 response. */
  readonly response: TSchema;
  /** Media type of the 200 response when it is not JSON (the Prometheus exposition is text). */
  readonly responseType?: 'text/plain';
  readonly errors: readonly ErrorName[];
}

// ---- Path parameter schemas ----

export const OrderIdParamsSchema = Strict({ order_id: Hex(BYTES.orderId) }, { title: 'OrderIdParams' });
export const SymbolParamsSchema = Strict({ symbol: MarketSymbol() }, { title: 'SymbolParams' });
export const ApiKeyParamsSchema = Strict({ api_key: ApiKey() }, { title: 'ApiKeyParams' });

/**
 * The served interface documents: open JSON objects that their own specifications (OpenAPI 3.1,
 * AsyncAPI 3.0) define. The only response schema that is not Strict, since nobody decodes it.
 */
export const API_DOCUMENT = Type.Object({}, { additionalProperties: true, title: 'ApiDocument' });

/** GET /admin/metrics/prometheus: the text exposition format 0.0.4, which scrapers parse. */
export const PROMETHEUS_TEXT = Type.String({
  title: 'PrometheusText',
  description: 'Prometheus text exposition format, version 0.0.4 (text/plain; version=0.0.4).',
});

// ---- Error groups ----

function errors(...groups: (readonly ErrorName[])[]): readonly ErrorName[] {
  return [...new Set(groups.flat())];
}

/** Whatever the decoder or body reader can say about a JSON body. */
const BODY: readonly ErrorName[] = [
  'MALFORMED_JSON',
  'UNKNOWN_FIELD',
  'MISSING_FIELD',
  'WRONG_TYPE',
  'INVALID_HEX',
  'OUT_OF_RANGE',
  'NON_CANONICAL_NUMBER',
  'INVALID_ENUM',
  'BODY_TOO_LARGE',
  'INVALID_FORMAT',
  'TOO_DEEP',
  'UNSUPPORTED_MEDIA_TYPE',
];
const QUERY: readonly ErrorName[] = [
  'UNKNOWN_FIELD',
  'MISSING_FIELD',
  'INVALID_HEX',
  'INVALID_FORMAT',
  'NON_CANONICAL_NUMBER',
  'OUT_OF_RANGE',
  'INVALID_QUERY',
];
const TOKEN: readonly ErrorName[] = [
  'MISSING_TOKEN',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'TOKEN_REVOKED',
  'ACCOUNT_DISABLED',
];
/** Admin tokens are a separate role (issue 6): they neither trade nor read trading data. */
const BEARER: readonly ErrorName[] = [...TOKEN, 'TRADER_REQUIRED'];
const ADMIN: readonly ErrorName[] = [...TOKEN, 'ADMIN_REQUIRED'];
const ALWAYS: readonly ErrorName[] = ['INTERNAL'];
/** A write must reach the journal before it is acknowledged (design decisions section 6). */
const WRITE: readonly ErrorName[] = [
  'JOURNAL_UNAVAILABLE',
  'JOURNAL_STALLED',
  'JOURNAL_FENCED',
  'SHUTTING_DOWN',
];

/** spec 2.1 place-order rules, also applied to a modify's replacement. */
const PLACE_RULES: readonly ErrorName[] = [
  'UNKNOWN_SYMBOL',
  'ZERO_ORDER_ID',
  'BID_PRICE_ZERO',
  'PRICE_NOT_ON_TICK',
  'BELOW_MIN_SIZE',
  'MIN_FILL_ABOVE_AMOUNT',
  'EXPIRY_TOO_SOON',
  'EXPIRY_TOO_FAR',
  'COST_OVERFLOW',
  'INSUFFICIENT_COLLATERAL',
  'TREE_ID_OUT_OF_RANGE',
  'UNKNOWN_MERKLE_ROOT',
  'NOTE_COMMITMENT_MISMATCH',
  'INVALID_PROOF',
  'STUB_PROOF_REFUSED',
  'LOW_ORDER_VIEWING_KEY',
  'INVALID_TRADING_KEY',
  'BAD_SIGNATURE',
  'DUPLICATE_ORDER_ID',
  'STALE_ARRIVAL_NONCE',
  'STALE_SESSION',
  'NOTE_IN_USE',
  'NOTE_CONSUMED',
  'OPEN_ORDER_LIMIT',
  'TRADING_RATE_LIMITED',
  'TRADING_PAUSED',
  'MARKET_PAUSED',
];

/** spec 2.4 cancel rules, also applied to the cancel half of a modify. Cancels work while paused. */
const CANCEL_RULES: readonly ErrorName[] = [
  'INVALID_TRADING_KEY',
  'BAD_SIGNATURE',
  'NOT_ORDER_OWNER',
  'ORDER_NOT_FOUND',
  'ORDER_NOT_RESTING',
  'STALE_CANCEL_NONCE',
  'STALE_SESSION',
  'TRADING_RATE_LIMITED',
];

// ---- Routes ----

export const ROUTES: readonly RouteDef[] = [
  // spec 4.3, 4.1: orders and account
  {
    method: 'POST',
    path: '/orders',
    auth: 'bearer',
    summary: 'Place a signed order (spec 2.1); it rests until its next batch auction.',
    body: PlaceOrderSchema,
    bodyBytesMax: 4096,
    response: PlaceResponseSchema,
    errors: errors(BODY, BEARER, PLACE_RULES, WRITE, ALWAYS),
  },
  {
    method: 'DELETE',
    path: '/orders/:order_id',
    auth: 'bearer',
    summary: 'Cancel a resting order with a trading-key signature (spec 2.4).',
    params: OrderIdParamsSchema,
    body: CancelParamsSchema,
    bodyBytesMax: 1024,
    response: CancelResponseSchema,
    errors: errors(BODY, BEARER, CANCEL_RULES, WRITE, ALWAYS),
  },
  {
    method: 'PUT',
    path: '/orders/:order_id',
    auth: 'bearer',
    summary: 'Atomically cancel an order and book its signed replacement (spec 4.1).',
    params: OrderIdParamsSchema,
    body: ModifyRequestSchema,
    bodyBytesMax: 8192,
    response: ModifyResponseSchema,
    errors: errors(
      BODY,
      BEARER,
      CANCEL_RULES,
      PLACE_RULES,
      ['CROSS_MARKET_MODIFY', 'MODIFY_KEY_MISMATCH'],
      WRITE,
      ALWAYS,
    ),
  },
  {
    method: 'GET',
    path: '/orders/:order_id',
    auth: 'bearer',
    summary: 'Current state of one order of the account, to reconcile after a stream gap.',
    params: OrderIdParamsSchema,
    response: OrderRecordSchema,
    errors: errors(['INVALID_HEX'], BEARER, ['ORDER_NOT_FOUND', 'TRADING_RATE_LIMITED'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/account',
    auth: 'bearer',
    summary: 'Open orders and settings of the account; no balances (the venue keeps none).',
    response: AccountResponseSchema,
    errors: errors(BEARER, ALWAYS),
  },
  {
    method: 'GET',
    path: '/account/settings',
    auth: 'bearer',
    summary: 'Account settings (spec 2.9).',
    response: AccountSettingsSchema,
    errors: errors(BEARER, ALWAYS),
  },
  {
    method: 'PUT',
    path: '/account/settings',
    auth: 'bearer',
    summary: 'Replace the whole settings object (spec 2.9); returns the stored settings.',
    body: AccountSettingsSchema,
    bodyBytesMax: 256,
    response: AccountSettingsSchema,
    errors: errors(BODY, BEARER, WRITE, ALWAYS),
  },
  // Ours (spec 4.3 leaves account routes beyond these open): the dead-man timer, docs/api.md.
  {
    method: 'GET',
    path: '/account/dead-man',
    auth: 'bearer',
    summary: "The account's dead-man timer: whether it runs and its deadline slot.",
    response: DeadManStatusSchema,
    errors: errors(BEARER, ALWAYS),
  },
  {
    method: 'POST',
    path: '/account/dead-man',
    auth: 'bearer',
    summary:
      'Arm or refresh the dead-man timer: at the deadline every resting order of the account is cancelled.',
    body: DeadManArmRequestSchema,
    bodyBytesMax: 256,
    response: DeadManStatusSchema,
    errors: errors(
      BODY,
      BEARER,
      ['DEAD_MAN_TIMEOUT_ZERO', 'DEAD_MAN_TIMEOUT_TOO_LONG', 'TRADING_RATE_LIMITED'],
      WRITE,
      ALWAYS,
    ),
  },
  {
    method: 'DELETE',
    path: '/account/dead-man',
    auth: 'bearer',
    summary: 'Disarm the dead-man timer (a no-op when none runs).',
    response: DeadManStatusSchema,
    errors: errors(BEARER, ['TRADING_RATE_LIMITED'], WRITE, ALWAYS),
  },

  // spec 4.2, 4.6: tokens
  {
    method: 'POST',
    path: '/auth/token',
    auth: 'none',
    summary: 'Exchange API credentials for a bearer token of at most one hour.',
    body: TokenRequestSchema,
    bodyBytesMax: 1024,
    response: TokenResponseSchema,
    errors: errors(
      BODY,
      [
        'BAD_CREDENTIALS',
        'ACCOUNT_DISABLED',
        'TOKEN_ALLOWANCE_EXHAUSTED',
        'LOGIN_FAILURES_EXHAUSTED',
        'AUTH_AT_CAPACITY',
      ],
      ALWAYS,
    ),
  },
  {
    method: 'DELETE',
    path: '/auth/token',
    auth: 'token',
    summary: 'Revoke the bearer token this request carries, at once (spec 4.6). Either role.',
    response: RevokeTokenResponseSchema,
    errors: errors(TOKEN, WRITE, ALWAYS),
  },

  // Our additions: the interface documents, generated from this catalogue (decisions section 7).
  {
    method: 'GET',
    path: '/openapi.json',
    auth: 'none',
    summary: 'The OpenAPI 3.1 document of this REST interface.',
    response: API_DOCUMENT,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/asyncapi.json',
    auth: 'none',
    summary: 'The AsyncAPI 3.0 document of the session stream.',
    response: API_DOCUMENT,
    errors: ALWAYS,
  },

  // spec 4.4: public reads
  {
    method: 'GET',
    path: '/health',
    auth: 'none',
    summary: 'Liveness.',
    response: HealthResponseSchema,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/system/status',
    auth: 'none',
    summary: 'Whether new trading is open venue-wide, and why not.',
    response: SystemStatusResponseSchema,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/time',
    auth: 'none',
    summary: 'Chain slot and venue clock, for computing expiry_slot.',
    response: TimeResponseSchema,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/info',
    auth: 'none',
    summary: 'Interface version, boot session id and signing parameters.',
    response: InfoResponseSchema,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/transport-attestation',
    auth: 'none',
    summary: 'Self-signed TLS certificate of this boot and the report signature binding it.',
    response: TransportAttestationResponseSchema,
    errors: errors(['ATTESTATION_UNAVAILABLE'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/attestation',
    auth: 'none',
    summary: 'Attestation report of this boot, signed by the platform root key.',
    response: AttestationResponseSchema,
    errors: errors(['ATTESTATION_UNAVAILABLE'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/instruments',
    auth: 'none',
    summary: 'Every listed market with its parameters and trading gate.',
    response: InstrumentListResponseSchema,
    errors: ALWAYS,
  },
  {
    method: 'GET',
    path: '/instruments/:symbol',
    auth: 'none',
    summary: 'One market by symbol.',
    params: SymbolParamsSchema,
    response: InstrumentSchema,
    errors: errors(['INVALID_FORMAT', 'UNKNOWN_INSTRUMENT'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/tree/root',
    auth: 'none',
    summary: 'Current root and size of every note-tree shard.',
    response: TreeRootsResponseSchema,
    errors: errors(['CHAIN_UNAVAILABLE'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/transparency',
    auth: 'none',
    summary: 'A page of the hash-chained transparency log and its head.',
    query: TransparencyQuerySchema,
    response: TransparencyResponseSchema,
    errors: errors(QUERY, ['ATTESTATION_UNAVAILABLE'], ALWAYS),
  },

  // spec 4.5: authenticated reads
  {
    method: 'GET',
    path: '/tree/inclusion',
    auth: 'bearer',
    summary: 'Merkle inclusion path of one note commitment.',
    query: InclusionQuerySchema,
    response: InclusionProofResponseSchema,
    errors: errors(QUERY, BEARER, ['TREE_ID_OUT_OF_RANGE', 'NOTE_NOT_FOUND', 'CHAIN_UNAVAILABLE'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/tree/leaves',
    auth: 'bearer',
    summary: 'A page of raw leaves of one shard.',
    query: LeavesQuerySchema,
    response: LeavesResponseSchema,
    errors: errors(QUERY, BEARER, ['TREE_ID_OUT_OF_RANGE', 'CHAIN_UNAVAILABLE'], ALWAYS),
  },
  {
    method: 'GET',
    path: '/settlement/status',
    auth: 'bearer',
    summary: 'Status of one settlement batch, by transaction id or by market and batch number.',
    query: SettlementStatusQuerySchema,
    response: SettlementStatusResponseSchema,
    errors: errors(QUERY, BEARER, ['SETTLEMENT_NOT_FOUND', 'CHAIN_UNAVAILABLE'], ALWAYS),
  },

  // spec 4.7: admin
  {
    method: 'GET',
    path: '/admin/accounts',
    auth: 'admin',
    summary: "Every account's role and access state (the operator console's list); no secrets.",
    response: AccountListResponseSchema,
    errors: errors(ADMIN, ALWAYS),
  },
  {
    method: 'POST',
    path: '/admin/accounts',
    auth: 'admin',
    summary: 'Register an API account; its credentials are returned once.',
    body: CreateAccountRequestSchema,
    bodyBytesMax: 512,
    response: CreateAccountResponseSchema,
    errors: errors(BODY, ADMIN, ['ACCOUNT_EXISTS'], WRITE, ALWAYS),
  },
  {
    method: 'POST',
    path: '/admin/accounts/:api_key/disable',
    auth: 'admin',
    summary: 'Suspend an account at once on REST, the stream and new logins.',
    params: ApiKeyParamsSchema,
    response: AccountStatusResponseSchema,
    errors: errors(['INVALID_FORMAT'], ADMIN, ['ACCOUNT_NOT_FOUND', 'LAST_ENABLED_ADMIN'], WRITE, ALWAYS),
  },
  {
    method: 'POST',
    path: '/admin/accounts/:api_key/enable',
    auth: 'admin',
    summary: 'Reinstate a suspended account.',
    params: ApiKeyParamsSchema,
    response: AccountStatusResponseSchema,
    errors: errors(['INVALID_FORMAT'], ADMIN, ['ACCOUNT_NOT_FOUND'], WRITE, ALWAYS),
  },
  {
    method: 'POST',
    path: '/admin/accounts/:api_key/revoke-tokens',
    auth: 'admin',
    summary: 'Invalidate every token issued so far without disabling logins.',
    params: ApiKeyParamsSchema,
    response: AccountStatusResponseSchema,
    errors: errors(['INVALID_FORMAT'], ADMIN, ['ACCOUNT_NOT_FOUND'], WRITE, ALWAYS),
  },
  {
    method: 'GET',
    path: '/admin/drain',
    auth: 'admin',
    summary: 'Inspect the planned-stop drain.',
    response: DrainResponseSchema,
    errors: errors(ADMIN, ALWAYS),
  },
  {
    method: 'POST',
    path: '/admin/drain',
    auth: 'admin',
    summary: 'Begin a drain: close new trading and let in-flight work finish.',
    response: DrainResponseSchema,
    errors: errors(ADMIN, ['DRAIN_CONFLICT'], WRITE, ALWAYS),
  },
  {
    method: 'DELETE',
    path: '/admin/drain',
    auth: 'admin',
    summary: 'Cancel a drain and reopen trading.',
    response: DrainResponseSchema,
    errors: errors(ADMIN, ['DRAIN_CONFLICT'], WRITE, ALWAYS),
  },
  {
    method: 'GET',
    path: '/admin/metrics/settlement',
    auth: 'admin',
    summary: 'Per-market settlement queue and latency aggregates; nothing per order.',
    response: SettlementMetricsResponseSchema,
    errors: errors(ADMIN, ALWAYS),
  },
  {
    method: 'GET',
    path: '/admin/metrics/prometheus',
    auth: 'admin',
    summary:
      'The venue in the Prometheus text format (markets, intake, settlement, journal, stream, process); nothing per order.',
    response: PROMETHEUS_TEXT,
    responseType: 'text/plain',
    errors: errors(ADMIN, ALWAYS),
  },
  {
    method: 'GET',
    path: '/admin/auctions/:market_id/:batch',
    auth: 'admin',
    summary: "Why one of the market's recent batch auctions cleared as it did; no owner identities.",
    params: AuctionParamsSchema,
    response: AuctionExplanationSchema,
    errors: errors(ADMIN, QUERY, ['AUCTION_NOT_FOUND'], ALWAYS),
  },
];

// ---- Stream catalogue (spec 4.8, 6) ----

export interface StreamOpDef {
  readonly op: ClientOp;
  readonly summary: string;
  readonly frame: TSchema;
  /** The success reply (ping is answered by pong). Failures are `error` frames. */
  readonly reply: TSchema;
  readonly errors: readonly ErrorName[];
}

/** Errors any frame can draw before its op is known, or that end the connection. */
export const STREAM_FRAME_ERRORS: readonly ErrorName[] = [
  'MALFORMED_JSON',
  'BODY_TOO_LARGE',
  'TOO_DEEP',
  'WRONG_TYPE',
  'MISSING_FIELD',
  'UNKNOWN_OP',
  'SLOW_CONSUMER',
  'TOO_MANY_CONNECTIONS',
  'INTERNAL',
];

/**
 * A frame before any login gets NOT_LOGGED_IN; once logged in, a token that stopped being valid
 * gets REST's code for it (spec 7: the same codes on the stream).
 */
const SESSION: readonly ErrorName[] = ['NOT_LOGGED_IN', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'ACCOUNT_DISABLED'];

/** REST-only failures (media type, Authorization header) that have no stream counterpart. */
const HTTP_ONLY = new Set<ErrorName>(['UNSUPPORTED_MEDIA_TYPE', 'MISSING_TOKEN', 'INVALID_TOKEN']);

function streamErrorsOf(method: HttpMethod, path: string): readonly ErrorName[] {
  const route = ROUTES.find((r) => r.method === method && r.path === path);
  if (route === undefined) throw new Error(`no route ${method} ${path}`);
  return errors(
    route.errors.filter((name) => !HTTP_ONLY.has(name)),
    SESSION,
  );
}

function op(name: ClientOp, summary: string, errorNames: readonly ErrorName[]): StreamOpDef {
  return {
    op: name,
    summary,
    frame: CLIENT_FRAMES[name],
    reply: SERVER_FRAMES[REPLY_OF[name]],
    errors: errorNames,
  };
}

const FRAME_FIELDS: readonly ErrorName[] = [
  'UNKNOWN_FIELD',
  'MISSING_FIELD',
  'WRONG_TYPE',
  'INVALID_FORMAT',
  'INVALID_ENUM',
];

export const STREAM_OPS: readonly StreamOpDef[] = [
  op(
    'login',
    'Authenticate the session or refresh its token; subscriptions stay active.',
    errors(FRAME_FIELDS, ['INVALID_TOKEN', 'TOKEN_EXPIRED', 'TOKEN_REVOKED', 'ACCOUNT_DISABLED']),
  ),
  op(
    'subscribe',
    'Start receiving channels.',
    errors(FRAME_FIELDS, ['OUT_OF_RANGE', 'UNKNOWN_CHANNEL'], SESSION),
  ),
  op(
    'unsubscribe',
    'Stop receiving channels.',
    errors(FRAME_FIELDS, ['OUT_OF_RANGE', 'UNKNOWN_CHANNEL'], SESSION),
  ),
  op('order.place', 'As POST /orders.', streamErrorsOf('POST', '/orders')),
  op('order.cancel', 'As DELETE /orders/{order_id}.', streamErrorsOf('DELETE', '/orders/:order_id')),
  op('order.modify', 'As PUT /orders/{order_id}.', streamErrorsOf('PUT', '/orders/:order_id')),
  op(
    'dead_man.arm',
    'As POST /account/dead-man: arm or refresh the account dead-man timer.',
    streamErrorsOf('POST', '/account/dead-man'),
  ),
  op('dead_man.disarm', 'As DELETE /account/dead-man.', streamErrorsOf('DELETE', '/account/dead-man')),
  op('ping', 'Heartbeat; answered by pong.', FRAME_FIELDS),
  op('logout', 'End the session: reply, then close with 1000.', FRAME_FIELDS),
];

/** Everything an AsyncAPI generator needs about `/v1/stream`. */
export const STREAM_CATALOGUE = {
  path: '/v1/stream',
  frameBytesMax: STREAM_FRAME_BYTES_MAX,
  ops: STREAM_OPS,
  /** Frames the server sends without a matching request. */
  unsolicited: { auth_expired: AuthExpiredFrameSchema, error: ErrorFrameSchema },
  serverFrames: SERVER_FRAMES,
  channels: CHANNEL_MESSAGES,
  frameErrors: STREAM_FRAME_ERRORS,
} as const;
