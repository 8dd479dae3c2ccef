import type { Instrument } from '@venue/protocol';
import type { Command } from 'commander';
import { withContext } from './context.ts';
import type { CliIo } from './output.ts';

/**
 * `venue markets`: what a trader must know before placing: each market's mints, the tick a price
 * must be a multiple of, the smallest amount, the price scale and whether it trades now. Public:
 * it attests the venue but does not log in.
 */
export function registerMarketCommand(program: Command, io: CliIo): void {
  program
    .command('markets')
    .description('List the markets: mints, tick size, minimum size, price scale, trading or paused.')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.connect();
        context.out.table(await client.instruments(), MARKET_COLUMNS, 'the venue lists no market');
      }),
    );
}

export const MARKET_COLUMNS: Record<string, (instrument: Instrument) => string> = {
  symbol: (i) => i.symbol,
  base_mint: (i) => i.base_mint,
  quote_mint: (i) => i.quote_mint,
  tick_size: (i) => String(i.tick_size),
  min_size: (i) => String(i.min_size),
  price_scale: (i) => String(i.price_scale),
  trading: (i) => (i.trading_enabled ? 'yes' : `paused (${i.paused_reason ?? '?'})`),
};
