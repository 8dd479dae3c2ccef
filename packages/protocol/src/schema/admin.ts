import Type, { type Static } from 'typebox';
import { AccountId, ApiKey, ApiSecret, Passphrase } from './auth.ts';
import { MARKETS_MAX } from './market.ts';
import { Base58Address, Count, MarketSymbol, OneOf, Strict, U64, UnixMs } from './primitives.ts';

/**
 * Operator routes (spec 4.7, admin bearer token). They manage API access and the planned stop only;
 * no admin body carries a spending key or anything about an individual order (spec 5 item 8).
 */

export const ACCOUNT_ROLES = ['trader', 'admin'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/** spec 3.3: account states. */
export const ACCOUNT_STATUSES = ['active', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Operator's note on an account: printable ASCII, shown in admin views and logs. */
function AccountLabel() {
  return Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9 ._:@-]{1,64}$',
    'x-expected': '1-64 characters of A-Z a-z 0-9 space . _ : @ -',
    description: 'Free operator note, e.g. the firm or desk name.',
  });
}

/** POST /admin/accounts: the venue generates every credential; the operator only picks the role. */
export const CreateAccountRequestSchema = Strict(
  { role: OneOf(ACCOUNT_ROLES), label: Type.Optional(AccountLabel()) },
  { title: 'CreateAccountRequest' },
);
export type CreateAccountRequest = Static<typeof CreateAccountRequestSchema>;

/**
 * POST /admin/accounts response. The secret and passphrase appear here once and never again: the
 * venue keeps only slow hashes of them. Hand them to the account holder over a secure channel.
 */
export const CreateAccountResponseSchema = Strict(
  {
    account_id: AccountId(),
    api_key: ApiKey(),
    api_secret: ApiSecret({ description: 'Shown once.' }),
    passphrase: Passphrase({ description: 'Shown once.' }),
    role: OneOf(ACCOUNT_ROLES),
    label: Type.Optional(AccountLabel()),
  },
  { title: 'CreateAccountResponse' },
);
export type CreateAccountResponse = Static<typeof CreateAccountResponseSchema>;

/**
 * Response of POST /admin/accounts/{api_key}/disable, /enable and /revoke-tokens: the account's
 * state after the change. `tokens_invalid_before_ms` is present once tokens were bulk-invalidated:
 * tokens issued at or before it are refused (issue times have one-second resolution, spec 5 item 6).
 */
export const AccountStatusResponseSchema = Strict(
  {
    account_id: AccountId(),
    api_key: ApiKey(),
    role: OneOf(ACCOUNT_ROLES),
    status: OneOf(ACCOUNT_STATUSES),
    tokens_invalid_before_ms: Type.Optional(UnixMs()),
  },
  { title: 'AccountStatusResponse' },
);
export type AccountStatusResponse = Static<typeof AccountStatusResponseSchema>;

/** Most accounts one GET /admin/accounts lists; a venue has tens of API accounts, not thousands. */
export const ACCOUNT_LIST_MAX = 10_000;

/**
 * GET /admin/accounts: every account's access state, for the operator console. Only what the
 * disable / enable / revoke routes already answer, plus the operator's own label: never a secret,
 * a passphrase hash, a trading key or anything the account traded.
 */
export const AccountListResponseSchema = Strict(
  {
    accounts: Type.Array(
      Strict(
        {
          ...AccountStatusResponseSchema.properties,
          label: Type.Optional(AccountLabel()),
        },
        { title: 'AccountListEntry' },
      ),
      { maxItems: ACCOUNT_LIST_MAX, description: 'In creation order.' },
    ),
  },
  { title: 'AccountListResponse' },
);
export type AccountListResponse = Static<typeof AccountListResponseSchema>;

/**
 * Planned-stop drain (spec 4.7). open: normal; draining: new trading closed, in-flight work
 * finishing; safe_to_stop: trading closed and no journal record in flight, so stopping loses nothing.
 */
export const DRAIN_STATES = ['open', 'draining', 'safe_to_stop'] as const;
export type DrainState = (typeof DRAIN_STATES)[number];

/** GET (inspect), POST (begin) and DELETE (cancel) /admin/drain: no request body; all return this. */
export const DrainResponseSchema = Strict(
  {
    state: OneOf(DRAIN_STATES),
    trading_closed: Type.Boolean({ description: 'New orders refused; cancels still accepted.' }),
    journal_records_in_flight: Count(Number.MAX_SAFE_INTEGER, {
      description: 'Journal records accepted but not yet durable and applied.',
    }),
    since_ms: Type.Optional(UnixMs({ description: 'When the drain began; absent while open.' })),
  },
  { title: 'DrainResponse' },
);
export type DrainResponse = Static<typeof DrainResponseSchema>;

/** Fixed lower bounds of the batch-size histogram buckets (matches per batch). */
export const BATCH_SIZE_BUCKET_MINS = [1, 2, 4, 8, 16, 32, 64, 128, 256] as const;

/** One histogram bucket: batches with min_matches..max_matches matches; no max in the last one. */
export const BatchSizeBucketSchema = Strict(
  {
    min_matches: Count(Number.MAX_SAFE_INTEGER),
    max_matches: Type.Optional(Count(Number.MAX_SAFE_INTEGER)),
    batches: Count(Number.MAX_SAFE_INTEGER),
  },
  { title: 'BatchSizeBucket' },
);
export type BatchSizeBucket = Static<typeof BatchSizeBucketSchema>;

/**
 * Settlement telemetry of one market. Aggregates over batches only, never a per-order or per-match
 * value, so nothing here tells one participant's trades from another's. Counters run since boot;
 * the latency percentiles cover the last SETTLEMENT_LATENCY_SAMPLE batches to finalize and are
 * absent until one has.
 */
export const MarketSettlementMetricsSchema = Strict(
  {
    symbol: MarketSymbol(),
    market_id: Base58Address(),
    queue_depth: Count(Number.MAX_SAFE_INTEGER, {
      description: 'Matches waiting for a batch to settle them.',
    }),
    batches_submitted: Count(Number.MAX_SAFE_INTEGER),
    batches_confirmed: Count(Number.MAX_SAFE_INTEGER),
    batches_failed: Count(Number.MAX_SAFE_INTEGER),
    batch_size_histogram: Type.Array(BatchSizeBucketSchema, { maxItems: BATCH_SIZE_BUCKET_MINS.length }),
    match_to_final_slots_p50: Type.Optional(U64()),
    match_to_final_slots_p99: Type.Optional(U64()),
  },
  { title: 'MarketSettlementMetrics' },
);
export type MarketSettlementMetrics = Static<typeof MarketSettlementMetricsSchema>;

/** How many recent finalized batches the latency percentiles are computed over. */
export const SETTLEMENT_LATENCY_SAMPLE = 1024;

/** GET /admin/metrics/settlement. */
export const SettlementMetricsResponseSchema = Strict(
  {
    slot: U64({ description: 'Chain slot at which the figures were taken.' }),
    since_ms: UnixMs({ description: 'Start of the counters (this boot).' }),
    markets: Type.Array(MarketSettlementMetricsSchema, { maxItems: MARKETS_MAX }),
  },
  { title: 'SettlementMetricsResponse' },
);
export type SettlementMetricsResponse = Static<typeof SettlementMetricsResponseSchema>;
