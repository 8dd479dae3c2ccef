import type { ValidInputProver } from '@venue/notes';
import type { DeadManStatus, OrderRecord, OrderType, Side } from '@venue/protocol';
import type { KeyFile, LocalOrder, NoteInput, NoteWallet, Trader, VenueClient } from '@venue/sdk';
import { type Command, Option } from 'commander';
import { DEFAULT_CHAIN_RPC, withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import { CliError, type CliIo } from './output.ts';
import { parseHex32, parseOrderId, parseU64 } from './parsers.ts';
import { MarketUnits, rawOrHuman } from './units.ts';

/**
 * `place`, `cancel`, `modify` and `orders`: the trading commands, over the SDK's Trader, so each
 * order is recorded (sealed, beside the key file) before it is sent and a retry resends the same
 * signed body. They run the Trader with the wallet beside the key file: the note is reserved for
 * the order before it is signed, follows a modify (after a partial fill, onto the change note the
 * order rests on) and is freed when a cancel succeeds.
 */

interface PlaceFlags {
  symbol: string;
  side: Side;
  type: OrderType;
  amount: string;
  price: string;
  minFill?: string;
  lifetime?: bigint;
  note?: string;
  stubNote?: boolean;
  merkleRoot?: string;
  quiet?: boolean;
}

export function registerOrderCommands(program: Command, io: CliIo): void {
  program
    .command('place')
    .description('Sign and place an order, backed by a note of your wallet (see `venue balance`).')
    .requiredOption('--symbol <symbol>', 'market, e.g. SOL-USDC')
    .addOption(
      new Option('--side <side>', 'bid buys base, ask sells it')
        .choices(['bid', 'ask'])
        .makeOptionMandatory(),
    )
    .addOption(new Option('--type <type>', 'order type').choices(['limit', 'ioc', 'fok']).default('limit'))
    .requiredOption('--amount <units>', 'size in base units (with --human: in base tokens, e.g. 1.5)')
    .requiredOption(
      '--price <price>',
      'limit price, quote units per base in the price scale (with --human: quote tokens per base token)',
    )
    .option('--min-fill <units>', 'smallest acceptable fill (equal to amount: all-or-none)')
    .option(
      '--chain-rpc <url>',
      "with --human: the chain's JSON-RPC URL, read for decimals",
      DEFAULT_CHAIN_RPC,
    )
    .option('--lifetime <slots>', 'slots from the venue slot to expiry (default 600)', parseU64)
    .option(
      '--note <commitment>',
      'the wallet note to spend (default: the smallest that covers the cost)',
      parseHex32,
    )
    .option(
      '--stub-note',
      'on a venue that does not settle: back the order with a fresh unfunded note and a stub proof',
    )
    .option(
      '--merkle-root <root>',
      'with --stub-note: the root to name (default: GET /tree/root of shard 0)',
      parseHex32,
    )
    .option('-q, --quiet', 'print only the order id (for scripts: ORDER=$(venue place ... -q))')
    .action((flags: PlaceFlags, command: Command) =>
      withContext(command, io, async (context) => {
        const human = context.options.human;
        // Raw units are checked before anything is sent; tokens once the market's decimals are read.
        const given = {
          amount: rawOrHuman(flags.amount, human, '--amount'),
          price: rawOrHuman(flags.price, human, '--price'),
          minFill: flags.minFill === undefined ? undefined : rawOrHuman(flags.minFill, human, '--min-fill'),
        };
        const bar = context.out.progress('proving');
        const order = await context
          .withTrader(async ({ trader, client, keys, prover }) => {
            const units = await context.unitsOf(client, flags.symbol);
            const amount = toRaw(given.amount, (t) => units?.parseAmount(t));
            const price = toRaw(given.price, (t) => units?.parsePrice(t));
            const minFill =
              given.minFill === undefined
                ? undefined
                : toRaw(given.minFill, (t) => units?.parseAmount(t, '--min-fill'));
            bar.update(0, 1);
            const input = await noteInputFor({ ...flags, amount, price }, client, keys, trader, prover);
            return trader.place({
              symbol: flags.symbol,
              side: flags.side,
              type: flags.type,
              amount,
              price,
              ...(minFill === undefined ? {} : { minFillSize: minFill }),
              ...(flags.lifetime === undefined ? {} : { lifetimeSlots: flags.lifetime }),
              ...(input === undefined ? {} : { input }),
            });
          })
          .finally(() => bar.stop());
        if (flags.quiet === true && !context.out.json) {
          io.stdout(`${order.order_id}\n`);
          return;
        }
        context.out.result(
          orderView(order),
          () => `placed ${order.order_id}: ${order.state} at slot ${order.arrival_slot ?? '?'}`,
        );
      }),
    );

  program
    .command('cancel')
    .description('Cancel a resting order placed with this key file, or all of them with --all.')
    .argument('[order_id]', '32 hex characters', parseOrderId)
    .option('--all', 'cancel every open order placed with this key file (after reading their records)')
    .action((orderId: string | undefined, flags: { all?: boolean }, command: Command) =>
      withContext(command, io, async (context) => {
        if ((orderId === undefined) === (flags.all !== true)) {
          throw new CliError('give one order id, or --all for every open order of this key file');
        }
        if (orderId !== undefined) {
          const response = await context.withTrader(({ trader }) => trader.cancel(orderId));
          context.out.result(response, () => `cancelled ${orderId}`);
          return;
        }
        const cancelled = await context.withTrader(async ({ trader }) => {
          // The local view first catches up with the venue: an order that ended meanwhile is skipped.
          await trader.reconcile();
          const responses = [];
          for (const order of trader.orders.open().filter((o) => o.state !== 'unsent'))
            responses.push(await trader.cancel(order.order_id));
          return responses;
        });
        context.out.result(cancelled, () =>
          cancelled.length === 0
            ? 'no open orders to cancel'
            : cancelled.map((response) => `cancelled ${response.order_id}`).join('\n'),
        );
      }),
    );

  program
    .command('modify')
    .description('Cancel and replace an order in one step (same market, same key).')
    .argument('<order_id>', '32 hex characters', parseOrderId)
    .option('--price <price>', 'new limit price (with --human: quote tokens per base token)')
    .option('--amount <units>', 'new size (with --human: base tokens)')
    .option(
      '--chain-rpc <url>',
      "with --human: the chain's JSON-RPC URL, read for decimals",
      DEFAULT_CHAIN_RPC,
    )
    .option('--lifetime <slots>', 'new lifetime from the venue slot', parseU64)
    .option('--new-id', 'give the replacement a new order id (the old one is cancelled)')
    .action(
      (
        orderId: string,
        flags: { price?: string; amount?: string; lifetime?: bigint; newId?: boolean },
        command: Command,
      ) =>
        withContext(command, io, async (context) => {
          if (flags.price === undefined && flags.amount === undefined && flags.lifetime === undefined) {
            throw new CliError('nothing to change: give --price, --amount or --lifetime');
          }
          const human = context.options.human;
          const givenPrice =
            flags.price === undefined ? undefined : rawOrHuman(flags.price, human, '--price');
          const givenAmount =
            flags.amount === undefined ? undefined : rawOrHuman(flags.amount, human, '--amount');
          let units: MarketUnits | null = null;
          const order = await context.withTrader(async ({ trader, client }) => {
            // A fill nobody watched moved the order onto its change note: the venue's record
            // shows it, and the wallet works the note out from it before the replacement names it.
            await trader.reconcile();
            const symbol = trader.orders.get(orderId)?.body.symbol;
            if (human && symbol === undefined) {
              throw new CliError(
                `order ${orderId} was not placed with this key file; --human needs its market`,
              );
            }
            units = symbol === undefined ? null : await context.unitsOf(client, symbol);
            const price =
              givenPrice === undefined ? undefined : toRaw(givenPrice, (t) => units?.parsePrice(t));
            const amount =
              givenAmount === undefined ? undefined : toRaw(givenAmount, (t) => units?.parseAmount(t));
            return trader.modify(orderId, {
              ...(price === undefined ? {} : { price }),
              ...(amount === undefined ? {} : { amount }),
              ...(flags.lifetime === undefined ? {} : { lifetimeSlots: flags.lifetime }),
              newOrderId: flags.newId === true,
            });
          });
          const shownUnits = units as MarketUnits | null;
          const price =
            shownUnits === null
              ? String(order.price_limit)
              : `${shownUnits.formatPrice(order.price_limit)} ${shownUnits.quote.symbol}`;
          context.out.result(
            orderView(order),
            () => `modified ${orderId}: now ${order.order_id} at ${price}`,
          );
        }),
    );

  program
    .command('orders')
    .description("List the account's open orders (GET /account), or show one order (GET /orders/{id}).")
    .argument('[order_id]', 'one order to show', parseOrderId)
    .option(
      '--chain-rpc <url>',
      "with --human: the chain's JSON-RPC URL, read for decimals",
      DEFAULT_CHAIN_RPC,
    )
    .action((orderId: string | undefined, _flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.login();
        const records =
          orderId === undefined ? (await client.account()).open_orders : [await client.order(orderId)];
        if (!context.options.human || context.out.json) {
          context.out.table(records, ORDER_COLUMNS, 'no open orders');
          return;
        }
        const mints = await context.mintInfos();
        const instruments = await client.instruments();
        // Only the markets of the listed orders: another market's mints need not be described.
        const markets = new Map(
          instruments
            .filter((i) => records.some((r) => r.symbol === i.symbol))
            .map((i) => [i.symbol, new MarketUnits(i, mints)]),
        );
        context.out.table(records, humanOrderColumns(markets), 'no open orders');
      }),
    );

  registerDeadManCommands(program, io);
}

/**
 * `dead-man arm|disarm|status`: the account's cancel-all-after timer. A bot normally refreshes it
 * through the SDK on its own heartbeat; the command is for operators at a desk and for scripts.
 */
function registerDeadManCommands(program: Command, io: CliIo): void {
  const deadMan = program
    .command('dead-man')
    .description("The account's dead-man timer: cancel every resting order unless refreshed in time.");
  const show = (status: DeadManStatus) =>
    status.armed
      ? `armed: resting orders are cancelled at slot ${status.deadline_slot} unless refreshed (timeout ${status.timeout_slots} slots)`
      : 'not armed';
  deadMan
    .command('arm')
    .description('Arm or refresh the timer (POST /account/dead-man).')
    .argument('<slots>', 'timeout in slots from now, 1 to 4500', parseU64)
    .action((slots: bigint, _flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const status = await (await context.login()).armDeadMan(slots);
        context.out.result(status, () => show(status));
      }),
    );
  deadMan
    .command('disarm')
    .description('Switch the timer off (DELETE /account/dead-man).')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const status = await (await context.login()).disarmDeadMan();
        context.out.result(status, () => show(status));
      }),
    );
  deadMan
    .command('status')
    .description('Show the timer (GET /account/dead-man).')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const status = await (await context.login()).deadMan();
        context.out.result(status, () => show(status));
      }),
    );
}

export const ORDER_COLUMNS: Record<string, (record: OrderRecord) => string> = {
  order_id: (r) => r.order_id,
  symbol: (r) => r.symbol,
  side: (r) => r.side,
  type: (r) => r.order_type,
  state: (r) => r.state,
  amount: (r) => String(r.amount),
  remaining: (r) => String(r.remaining_amount),
  filled: (r) => String(r.filled_quantity),
  price: (r) => String(r.price_limit),
  expiry: (r) => String(r.expiry_slot),
  // Why the order got nothing in the latest batch it took part in (docs/api.md).
  'last unfilled': (r) =>
    r.last_unfilled === undefined ? '-' : `${r.last_unfilled.reason} @${r.last_unfilled.batch}`,
};

/** ORDER_COLUMNS with sizes in base tokens and prices in quote tokens per base token. */
function humanOrderColumns(
  markets: ReadonlyMap<string, MarketUnits>,
): Record<string, (record: OrderRecord) => string> {
  const of = (r: OrderRecord) => {
    const units = markets.get(r.symbol);
    if (units === undefined) throw new CliError(`the venue no longer lists ${r.symbol}`);
    return units;
  };
  return {
    ...ORDER_COLUMNS,
    amount: (r) => `${of(r).formatAmount(r.amount)} ${of(r).base.symbol}`,
    remaining: (r) => of(r).formatAmount(r.remaining_amount),
    filled: (r) => of(r).formatAmount(r.filled_quantity),
    price: (r) => `${of(r).formatPrice(r.price_limit)} ${of(r).quote.symbol}`,
  };
}

/** A quantity already raw, or decimal text turned raw by the market's units. */
function toRaw(given: bigint | string, human: (text: string) => bigint | undefined): bigint {
  if (typeof given === 'bigint') return given;
  const raw = human(given);
  if (raw === undefined) throw new CliError('internal: human units asked for without --human');
  return raw;
}

/** What a script needs of a local order (the signed body stays in the sealed log). */
function orderView(order: LocalOrder) {
  const { body: _body, ...view } = order;
  return { ...view, symbol: order.body.symbol, side: order.body.side, trading_key: order.body.trading_key };
}

/**
 * The note fields of a new order when the flags name them: a stub note on a non-settling venue,
 * or the wallet note given with --note, proved. Undefined: the Trader claims the smallest
 * spendable note of the wallet that covers the order.
 */
async function noteInputFor(
  flags: Omit<PlaceFlags, 'amount' | 'price'> & { amount: bigint; price: bigint },
  client: VenueClient,
  keys: KeyFile,
  trader: Trader,
  prover: ValidInputProver | null,
): Promise<NoteInput | undefined> {
  const { NoteWallet, nominalCost, spentMintOf } = await loadSdk();
  const instrument = await client.instrument(flags.symbol);
  const mint = spentMintOf(flags.side, instrument);
  const cost = nominalCost(flags, instrument);
  if (flags.stubNote === true) {
    if (client.info.proof_mode !== 'stub') {
      throw new CliError(
        '--stub-note works only on a venue that does not settle (GET /info proof_mode stub)',
      );
    }
    const scratch = await NoteWallet.open(keys, null);
    const { note } = scratch.prepareDeposit({ mint, value: cost });
    const root = flags.merkleRoot ?? (await client.treeRoots())[0]?.root;
    if (root === undefined) throw new CliError('the venue lists no tree shard; pass --merkle-root');
    return scratch.stubInput(note, root);
  }
  const wallet = trader.wallet as NoteWallet;
  const note = flags.note === undefined ? wallet.pick(mint, cost) : wallet.note(flags.note);
  if (note === undefined || note.status !== 'spendable' || note.mint !== mint || note.value < cost) {
    throw new CliError(
      `no spendable note of ${mint} worth at least ${cost}; deposit one (venue deposit) and run venue balance`,
    );
  }
  if (flags.note === undefined) return undefined; // the Trader claims it (or a smaller one freed meanwhile)
  const input = await wallet.input(note, keys.publicParts.trading_key, client, prover ?? 'stub');
  return { ...input, ...collateral(note.value, cost) };
}

/** A note worth more than the cost names its real value; the surplus returns as change (spec 2.1). */
function collateral(value: bigint, cost: bigint): { collateral_amount?: bigint } {
  return value > cost ? { collateral_amount: value } : {};
}
