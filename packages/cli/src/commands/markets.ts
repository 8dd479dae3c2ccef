import type { Instrument } from '@venue/protocol';
import type { Command } from 'commander';
import { DEFAULT_CHAIN_RPC, withContext } from './context.ts';
import type { CliIo } from './output.ts';
import { MarketUnits, type MintInfo } from './units.ts';

/**
 * `venue markets`: what a trader must know before placing: each market's mints, the tick a price
 * must be a multiple of, the smallest amount, the price scale and whether it trades now. Public:
 * it attests the venue but does not log in.
 */
export function registerMarketCommand(program: Command, io: CliIo): void {
  program
    .command('markets')
    .description('List the markets: mints, tick size, minimum size, price scale, trading or paused.')
    .option(
      '--chain-rpc <url>',
      "with --human: the chain simulator's JSON-RPC URL, read for the mints' decimals (env VENUE_CHAIN_RPC)",
      DEFAULT_CHAIN_RPC,
    )
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.connect();
        const instruments = await client.instruments();
        if (!context.options.human) {
          context.out.table(instruments, MARKET_COLUMNS, 'the venue lists no market');
          return;
        }
        const mints = await context.mintInfos();
        context.out.table(
          instruments.map((instrument) => humanMarket(instrument, mints)),
          HUMAN_MARKET_COLUMNS,
          'the venue lists no market',
        );
      }),
    );
}

/**
 * A market in tokens: the venue's fields as they are, plus the mints' symbols and decimals (from
 * the chain) and the tick and minimum size written in tokens (`tick` in quote tokens per base token).
 */
export interface HumanMarket extends Instrument {
  readonly base_symbol: string;
  /** Null (and tick, min_amount null) when the chain does not describe the mint. */
  readonly base_decimals: number | null;
  readonly quote_symbol: string;
  readonly quote_decimals: number | null;
  readonly tick: string | null;
  readonly min_amount: string | null;
}

function humanMarket(instrument: Instrument, mints: ReadonlyMap<string, MintInfo>): HumanMarket {
  const base = mints.get(instrument.base_mint);
  const quote = mints.get(instrument.quote_mint);
  if (base === undefined || quote === undefined) {
    // A mint the chain does not describe: the market is still listed, in raw units.
    return {
      ...instrument,
      base_symbol: base?.symbol ?? '?',
      base_decimals: base?.decimals ?? null,
      quote_symbol: quote?.symbol ?? '?',
      quote_decimals: quote?.decimals ?? null,
      tick: null,
      min_amount: null,
    };
  }
  const units = new MarketUnits(instrument, mints);
  return {
    ...instrument,
    base_symbol: units.base.symbol,
    base_decimals: units.base.decimals,
    quote_symbol: units.quote.symbol,
    quote_decimals: units.quote.decimals,
    tick: units.formatPrice(instrument.tick_size),
    min_amount: units.formatAmount(instrument.min_size),
  };
}

export const HUMAN_MARKET_COLUMNS: Record<string, (market: HumanMarket) => string> = {
  symbol: (m) => m.symbol,
  base: (m) =>
    m.base_decimals === null
      ? '? (no decimals on the chain)'
      : `${m.base_symbol} (${m.base_decimals} decimals)`,
  quote: (m) =>
    m.quote_decimals === null
      ? '? (no decimals on the chain)'
      : `${m.quote_symbol} (${m.quote_decimals} decimals)`,
  tick: (m) => (m.tick === null ? `${m.tick_size} raw` : `${m.tick} ${m.quote_symbol}`),
  'min amount': (m) => (m.min_amount === null ? `${m.min_size} raw` : `${m.min_amount} ${m.base_symbol}`),
  trading: (m) => (m.trading_enabled ? 'yes' : `paused (${m.paused_reason ?? '?'})`),
};

export const MARKET_COLUMNS: Record<string, (instrument: Instrument) => string> = {
  symbol: (i) => i.symbol,
  base_mint: (i) => i.base_mint,
  quote_mint: (i) => i.quote_mint,
  tick_size: (i) => String(i.tick_size),
  min_size: (i) => String(i.min_size),
  price_scale: (i) => String(i.price_scale),
  trading: (i) => (i.trading_enabled ? 'yes' : `paused (${i.paused_reason ?? '?'})`),
};
