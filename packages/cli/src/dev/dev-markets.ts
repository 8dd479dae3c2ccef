import type { MarketListing } from '@venue/adapters';

/**
 * The demo markets of the development venue. Mints are well-known base58 addresses so wallets and
 * explorers recognise them; the market and oracle addresses are fixed dev values, readable but
 * valid base58 (no 0, O, I or l), since the chain simulator holds an account at each of them.
 * Prices are in quote base units per base unit times price_scale.
 */
const SOL_MINT = 'So11111111111111111111111111111111111111112';
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const ETH_MINT = '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs';

/**
 * The dev chain describes these mints (symbol and decimals, chain method createMint), so the CLI
 * can show and take amounts in tokens (--human). SOL and USDC carry their real decimals; ETH
 * carries 9 so that the ETH-USDC start price below reads as 3000 USDC per ETH.
 */
export const DEV_MINTS = [
  { mint: SOL_MINT, symbol: 'SOL', decimals: 9 },
  { mint: USDC_MINT, symbol: 'USDC', decimals: 6 },
  { mint: ETH_MINT, symbol: 'ETH', decimals: 9 },
] as const;

const BREAKER = { band_bps: 500, window_slots: 150n, cooldown_slots: 300n, max_confidence_bps: 100 };

export interface DevMarket {
  readonly listing: MarketListing;
  /** Where the dev oracle simulator's random walk starts (and stays within 1% of). */
  readonly oraclePrice: bigint;
}

export const DEV_MARKETS: readonly DevMarket[] = [
  {
    listing: {
      config: {
        symbol: 'SOL-USDC',
        marketId: 'DevSoLUsdcMarket1111111111111111111111111111',
        baseMint: SOL_MINT,
        quoteMint: USDC_MINT,
        tickSize: 1_000n,
        minSize: 1_000_000n,
        priceScale: 1_000_000n,
        oracleFeed: 'DevSoLUsdcFeed11111111111111111111111111111',
        bandBps: 500n,
        batchIntervalSlots: 1n,
      },
      oracleMaxAgeSlots: 25n,
      circuitBreaker: BREAKER,
    },
    oraclePrice: 150_000n,
  },
  {
    listing: {
      config: {
        symbol: 'ETH-USDC',
        marketId: 'DevEthUsdcMarket1111111111111111111111111111',
        baseMint: ETH_MINT,
        quoteMint: USDC_MINT,
        tickSize: 10_000n,
        minSize: 100_000n,
        priceScale: 1_000_000n,
        oracleFeed: 'DevEthUsdcFeed11111111111111111111111111111',
        bandBps: 500n,
        batchIntervalSlots: 1n,
      },
      oracleMaxAgeSlots: 25n,
      circuitBreaker: BREAKER,
    },
    oraclePrice: 3_000_000n,
  },
];
