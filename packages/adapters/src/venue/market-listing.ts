import type { MarketConfig } from '@venue/core';
import type { CircuitBreakerPolicy, Instrument, MarketParams } from '@venue/protocol';

/**
 * What the venue publishes about a market beyond what the core needs to match: the oracle's age
 * limit and the whole breaker policy (the core only uses the band). GET /instruments is built from
 * the listing plus the core's live gate and batch counter.
 */
export interface MarketListing {
  readonly config: MarketConfig;
  readonly oracleMaxAgeSlots: bigint;
  readonly circuitBreaker: CircuitBreakerPolicy;
}

export function instrumentOf(
  listing: MarketListing,
  gate: { tradingEnabled: boolean; pausedReason: string | null; batchCount: bigint },
  venuePaused: boolean,
): Instrument {
  const { config } = listing;
  const pausedReason = venuePaused ? 'venue_paused' : gate.pausedReason;
  return {
    symbol: config.symbol,
    market_id: config.marketId,
    base_mint: config.baseMint,
    quote_mint: config.quoteMint,
    tick_size: config.tickSize,
    min_size: config.minSize,
    price_scale: config.priceScale,
    batch_interval_slots: config.batchIntervalSlots,
    oracle_feed: config.oracleFeed,
    oracle_max_age_slots: listing.oracleMaxAgeSlots,
    circuit_breaker: listing.circuitBreaker,
    trading_enabled: gate.tradingEnabled,
    ...(gate.tradingEnabled || pausedReason === null
      ? {}
      : { paused_reason: pausedReason as NonNullable<Instrument['paused_reason']> }),
    batch_seq: gate.batchCount,
  };
}

/**
 * The chain's market account for a market, as `createMarket` takes it and `getMarket` returns it:
 * the one place a market's configuration is turned into what the chain must hold, so the dev venue,
 * `venue chain setup`, serve's start-up check and the test fixtures cannot disagree on a field.
 * `oracle` defaults to the market's feed; a fixture may list the market against another account.
 */
export function marketParamsOf(config: MarketConfig, oracle: string = config.oracleFeed): MarketParams {
  return {
    market_id: config.marketId,
    symbol: config.symbol,
    base_mint: config.baseMint,
    quote_mint: config.quoteMint,
    tick_size: config.tickSize,
    min_size: config.minSize,
    price_scale: config.priceScale,
    oracle,
  };
}

/** The serve configuration's name for a market account field (the chain calls the feed `oracle`). */
export function marketConfigKey(field: keyof MarketParams): string {
  return field === 'oracle' ? 'oracle_feed' : field;
}
