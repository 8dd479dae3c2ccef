import Type, { type Static } from 'typebox';
import { Base58Address, Count, MarketSymbol, OneOf, Strict, U64 } from './primitives.ts';

/**
 * The instrument (market) record of GET /instruments and /instruments/{symbol} (spec 1 item 1,
 * spec 2.10). Everything a client needs to build a valid order for the market (tick, minimum size,
 * price scale), to predict clearing (batch interval, oracle band) and to know whether new orders
 * are accepted right now (trading_enabled, spec 1 item 8).
 */

/** Basis points: 10_000 = 100 %. Integers only, never floats (house rule for ratios). */
const BPS_MAX = 10_000;

/** Most markets one venue endpoint lists; bounds every per-market array. */
export const MARKETS_MAX = 256;

/**
 * Why `trading_enabled` is false. Market-local causes (spec 1 item 8, oracle and breaker) and
 * the venue-wide pause (spec 1 item 7), which closes every market at once.
 */
export const MARKET_PAUSE_REASONS = [
  'oracle_stale',
  'oracle_missing',
  'oracle_invalid',
  'circuit_breaker',
  'venue_paused',
] as const;
export type MarketPauseReason = (typeof MARKET_PAUSE_REASONS)[number];

/**
 * The oracle band of a market (design decisions section 2). A candidate clearing price further than
 * `band_bps` from the oracle reference is never chosen. If the reference itself moves more than
 * `band_bps` within `window_slots`, the breaker trips and the market pauses for `cooldown_slots`.
 * An oracle price whose confidence interval is wider than `max_confidence_bps` of the price counts
 * as invalid.
 */
export const CircuitBreakerPolicySchema = Strict(
  {
    band_bps: Count(BPS_MAX, {
      description: 'Largest distance of the clearing price from the oracle price.',
    }),
    window_slots: U64({ description: 'Trailing window over which an oracle move is measured.' }),
    cooldown_slots: U64({ description: 'How long a tripped breaker keeps the market paused.' }),
    max_confidence_bps: Count(BPS_MAX, { description: 'Widest oracle confidence interval accepted.' }),
  },
  { title: 'CircuitBreakerPolicy' },
);
export type CircuitBreakerPolicy = Static<typeof CircuitBreakerPolicySchema>;

export const InstrumentSchema = Strict(
  {
    symbol: MarketSymbol({ description: 'What orders sign to route here (spec 1 item 2).' }),
    market_id: Base58Address({ description: 'On-chain market configuration account.' }),
    base_mint: Base58Address({ description: 'Mint of the base token; amounts are in its base units.' }),
    quote_mint: Base58Address({ description: 'Mint of the quote token.' }),
    tick_size: U64({ description: 'A non-zero price_limit must be a multiple of it (spec 2.1).' }),
    min_size: U64({ description: 'Smallest order amount, in base units.' }),
    price_scale: U64({
      description:
        'Prices are quote units per base unit times price_scale: quote = floor(base x price / price_scale).',
    }),
    batch_interval_slots: U64({ description: 'The market clears one batch auction every this many slots.' }),
    oracle_feed: Base58Address({ description: 'Oracle account the market reads its reference price from.' }),
    oracle_max_age_slots: U64({
      description: 'An oracle update older than this is stale: the market pauses.',
    }),
    circuit_breaker: CircuitBreakerPolicySchema,
    trading_enabled: Type.Boolean({
      description: 'Whether new orders are accepted now (spec 1 item 8). Cancels work either way.',
    }),
    paused_reason: Type.Optional(
      OneOf(MARKET_PAUSE_REASONS, { description: 'Present exactly when trading_enabled is false.' }),
    ),
    batch_seq: U64({ description: 'Sequence number the next settlement batch of this market will carry.' }),
  },
  { title: 'Instrument' },
);
export type Instrument = Static<typeof InstrumentSchema>;

/**
 * GET /instruments. An object rather than a bare array, so that fields can be added later without
 * breaking readers (the spec's "bodies are not wrapped" is about the error envelope; this is the
 * body itself).
 */
export const InstrumentListResponseSchema = Strict(
  {
    instruments: Type.Array(InstrumentSchema, {
      maxItems: MARKETS_MAX,
      description: 'Every listed market, sorted by symbol.',
    }),
  },
  { title: 'InstrumentListResponse' },
);
export type InstrumentListResponse = Static<typeof InstrumentListResponseSchema>;
