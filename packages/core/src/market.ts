import { assert, U64_MAX } from '@venue/protocol';

/**
 * One market's configuration (spec section 1 item 1): each pair has its own book, oracle binding,
 * tick, minimum size, price scale, circuit-breaker band, mints and batch sequence. Prices are in the
 * market's price scale: a price P means P / priceScale quote units per base unit, and a fill of q
 * base units moves floor(q x P / priceScale) quote units (worked example in docs/core.md).
 */
export interface MarketConfig {
  readonly symbol: string;
  /** Base58 address of the on-chain market configuration account; events carry it. */
  readonly marketId: string;
  readonly baseMint: string;
  readonly quoteMint: string;
  /** Every non-zero price_limit is a multiple of it. */
  readonly tickSize: bigint;
  /** Smallest `amount` an order may have, in base units. */
  readonly minSize: bigint;
  readonly priceScale: bigint;
  /** Base58 address of the oracle feed account the market is bound to. */
  readonly oracleFeed: string;
  /** Candidate clearing prices must lie within this many basis points of the oracle price. */
  readonly bandBps: bigint;
  /** The market clears every this many slots (1 = every slot). */
  readonly batchIntervalSlots: bigint;
}

export const BPS_DENOMINATOR = 10_000n;

/** Programmer-error checks on a configuration, run when a market is added. */
export function assertMarketConfig(market: MarketConfig): void {
  assert(
    /^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}$/.test(market.symbol),
    `market symbol ${market.symbol} is malformed`,
  );
  for (const [name, value] of [
    ['tickSize', market.tickSize],
    ['minSize', market.minSize],
    ['priceScale', market.priceScale],
    ['batchIntervalSlots', market.batchIntervalSlots],
  ] as const) {
    assert(value > 0n && value <= U64_MAX, `market ${market.symbol}: ${name} must be a positive u64`);
  }
  assert(
    market.bandBps >= 0n && market.bandBps <= BPS_DENOMINATOR,
    `market ${market.symbol}: bandBps out of range`,
  );
}

/**
 * The inclusive band of acceptable clearing prices around an oracle price: low rounds up and high
 * rounds down, so the band never admits a price outside the policy.
 */
export function priceBand(market: MarketConfig, oraclePrice: bigint): { low: bigint; high: bigint } {
  const low = (oraclePrice * (BPS_DENOMINATOR - market.bandBps) + BPS_DENOMINATOR - 1n) / BPS_DENOMINATOR;
  const high = (oraclePrice * (BPS_DENOMINATOR + market.bandBps)) / BPS_DENOMINATOR;
  // Prices are u64: near the top of the range the band stops at the largest price there is.
  return { low, high: high > U64_MAX ? U64_MAX : high };
}
