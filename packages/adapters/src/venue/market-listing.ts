import type { MarketConfig } from '@venue/core';
import type { CircuitBreakerPolicy, Instrument } from '@venue/protocol';

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
