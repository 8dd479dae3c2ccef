import type { Channel, FillMemoPlaintext, FillMessage, OrderEvent } from '@venue/protocol';
import type { KeyFile, Trader, VenueClient, VenueStream } from '@venue/sdk';
import type { Command } from 'commander';
import { type CommandContext, DEFAULT_CHAIN_RPC, openWalletTrader, withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import { CliError, type CliIo, jsonText } from './output.ts';
import { formatDecimal, MarketUnits } from './units.ts';

/**
 * `watch`: follows the session stream and prints each event as it arrives (one line, or one JSON
 * object per line with --json). Gaps and reconnects are printed too, since after one the venue's
 * records (venue orders) are the truth. Stops on Ctrl-C, or after --count events.
 *
 * With a key file, watch also keeps the local order log and wallet in step, as a bot's Trader
 * does: each order event and fill memo is applied to a Trader holding the wallet (a fill's notes
 * join it, a cancel frees the note), the new notes are confirmed in the tree, and a gap or
 * reconnect reconciles the open orders. Each message is applied under the key's lock to the state
 * as it is on disk, so `venue place` and the others can run meanwhile in another terminal.
 */
export function registerWatchCommand(program: Command, io: CliIo): void {
  program
    .command('watch')
    .description('Print live events of your account (orders, fills, tree) and apply them to your wallet.')
    .option('--channels <list>', 'comma-separated: orders, fills, tree', 'orders,fills')
    .option('--count <n>', 'stop after this many events (default: run until Ctrl-C)', (v) => Number(v))
    .option('--no-wallet', 'only print: leave the local order log and wallet as they are')
    .option(
      '--chain-rpc <url>',
      "with --human: the chain's JSON-RPC URL, read for decimals",
      DEFAULT_CHAIN_RPC,
    )
    .action((flags: { channels: string; count?: number; wallet: boolean }, command: Command) =>
      withContext(command, io, async (context) => {
        const channels = flags.channels.split(',').map((c) => c.trim());
        for (const channel of channels) {
          if (!['orders', 'fills', 'tree'].includes(channel)) {
            throw new CliError(`unknown channel "${channel}"; choose from orders, fills, tree`);
          }
        }
        if (flags.count !== undefined && !(Number.isInteger(flags.count) && flags.count > 0)) {
          throw new CliError('--count must be a positive whole number');
        }
        const client = await context.login();
        const keys = flags.wallet ? await keyFileIfAny(context, io) : null;
        const stream = await client.openStream({ channels: channels as Channel[] });
        const local = keys === null ? null : new LocalState(client, keys, context.stateDir(), io);
        // With the key file at hand, a fill line shows what the memo says: amount, price, quote paid.
        const { openFillMemoWithKeyFile } = await loadSdk();
        const memoOf = (message: FillMessage) => {
          if (keys === null) return null;
          try {
            return openFillMemoWithKeyFile(message, keys);
          } catch {
            return null; // not for this key file: the line shows the public fields only
          }
        };
        const units = context.options.human ? await unitsByMarket(context, client) : null;
        await watch(stream, channels, flags.count, context, io, local, memoOf, units);
        await local?.idle();
        await stream.close();
      }),
    );
}

/** Prints events until --count, Ctrl-C or the stream's end, handing each to `local` if given. */
async function watch(
  stream: VenueStream,
  channels: string[],
  count: number | undefined,
  context: CommandContext,
  io: CliIo,
  local: LocalState | null,
  memoOf: (message: FillMessage) => FillMemoPlaintext | null,
  units: ReadonlyMap<string, MarketUnits> | null = null,
): Promise<void> {
  const json = context.options.json;
  let seen = 0;
  await new Promise<void>((resolve) => {
    const print = (kind: string, line: string, value: unknown) => {
      io.stdout(
        json
          ? `${JSON.stringify(JSON.parse(jsonText({ event: kind, ...(value as object) })))}\n`
          : `${line}\n`,
      );
      seen += 1;
      if (count !== undefined && seen >= count) resolve();
    };
    stream.on('order', (e) => {
      local?.order(e);
      const filled = e.filled_quantity === undefined ? '' : ` filled ${e.filled_quantity}`;
      print('order', `order ${e.order_id} ${e.kind}${filled}`, e);
    });
    stream.on('fill', (f) => {
      local?.fill(f);
      const memo = memoOf(f);
      const market = units?.get(f.market_id);
      const what =
        memo === null
          ? ''
          : market === undefined
            ? ` amount ${memo.fill_quantity} at ${memo.clearing_price} (quote ${memo.quote_amount})`
            : ` amount ${market.formatAmount(memo.fill_quantity)} ${market.base.symbol}` +
              ` at ${market.formatPrice(memo.clearing_price)} ${market.quote.symbol}` +
              ` (quote ${formatDecimal(memo.quote_amount, market.quote.decimals)} ${market.quote.symbol})`;
      print('fill', `fill  ${f.order_id}${what} match ${f.match_id} batch ${f.batch_seq}`, {
        ...f,
        ...(memo === null
          ? {}
          : {
              fill_quantity: memo.fill_quantity,
              clearing_price: memo.clearing_price,
              quote_amount: memo.quote_amount,
            }),
      });
    });
    stream.on('tree', (t) =>
      print('tree', `tree  shard ${t.tree_id} root ${t.root} leaves ${t.leaf_count}`, t),
    );
    stream.on('gap', (g) => {
      io.stderr(`gap (${g.reason}): reconciling open orders with the venue\n`);
      local?.gap();
    });
    stream.on('closed', () => resolve());
    process.once('SIGINT', () => resolve());
    io.stderr(`watching ${channels.join(', ')}; Ctrl-C stops\n`);
  });
}

/** The key file when there is one; watch without one only prints. */
async function keyFileIfAny(context: CommandContext, io: CliIo): Promise<KeyFile | null> {
  try {
    return await context.keyFile();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr(`${error.message}; events are printed but no wallet is kept\n`);
    return null;
  }
}

/**
 * The local order log and wallet, changed one message at a time in arrival order. Each change
 * opens them from disk under the key's lock and closes them after, so commands of other
 * processes see it and it sees theirs.
 */
class LocalState {
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: VenueClient,
    private readonly keys: KeyFile,
    private readonly stateDir: string,
    private readonly io: CliIo,
  ) {}

  /** An orders-channel event moves the order and its note (the market terms are read first). */
  order(event: OrderEvent): void {
    this.#apply('order event', async (trader) => {
      await trader.readMarkets();
      trader.applyEvent(event);
      if (event.kind === 'partially_filled' || event.kind === 'fully_filled') await this.#confirm(trader);
    });
  }

  /** A fill memo brings its notes; the scan confirms their leaves, so they are spendable at once. */
  fill(message: FillMessage): void {
    this.#apply('fill memo', async (trader) => {
      trader.applyFill(message);
      await this.#confirm(trader);
    });
  }

  /** After a gap the venue's records are the truth for every open order. */
  gap(): void {
    this.#apply('reconciliation', (trader) => trader.reconcile());
  }

  /** Resolves once every message received so far is applied. */
  idle(): Promise<void> {
    return this.#queue;
  }

  async #confirm(trader: Trader): Promise<void> {
    await trader.wallet?.scan(this.client);
  }

  #apply(what: string, body: (trader: Trader) => Promise<void>): void {
    this.#queue = this.#queue.then(async () => {
      try {
        const { trader, wallet } = await openWalletTrader(this.client, this.keys, this.stateDir);
        try {
          await body(trader);
          for (const error of trader.walletErrors) this.io.stderr(`wallet: ${error.message}\n`);
        } finally {
          trader.close();
          wallet.close();
        }
      } catch (error) {
        this.io.stderr(
          `wallet not updated by a ${what}: ${(error as Error).message}; venue balance reconciles\n`,
        );
      }
    });
  }
}

/**
 * With --human, fill lines in tokens: the units of every market whose mints the chain describes
 * (and whose price scale is a power of ten), by market id. Others keep raw figures.
 */
async function unitsByMarket(
  context: CommandContext,
  client: VenueClient,
): Promise<Map<string, MarketUnits>> {
  const mints = await context.mintInfos();
  const byMarket = new Map<string, MarketUnits>();
  for (const instrument of await client.instruments()) {
    try {
      const units = new MarketUnits(instrument, mints);
      units.formatPrice(instrument.tick_size); // throws when prices have no exact decimal form
      byMarket.set(instrument.market_id, units);
    } catch {
      // undescribed mint or odd price scale: raw figures for this market
    }
  }
  return byMarket;
}
