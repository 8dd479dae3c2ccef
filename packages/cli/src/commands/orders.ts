import type { ValidInputProver } from '@venue/notes';
import type { DeadManStatus, OrderRecord, OrderType, Side } from '@venue/protocol';
import type { KeyFile, LocalOrder, NoteInput, NoteWallet, Trader, VenueClient } from '@venue/sdk';
import { type Command, Option } from 'commander';
import { withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import { CliError, type CliIo } from './output.ts';
import { parseHex32, parseOrderId, parseU64 } from './parsers.ts';

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
  amount: bigint;
  price: bigint;
  minFill?: bigint;
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
    .requiredOption('--amount <units>', 'size in base units', parseU64)
    .requiredOption('--price <price>', 'limit price, quote units per base in the price scale', parseU64)
    .option('--min-fill <units>', 'smallest acceptable fill (equal to amount: all-or-none)', parseU64)
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
        const bar = context.out.progress('proving');
        const order = await context
          .withTrader(async ({ trader, client, keys, prover }) => {
            bar.update(0, 1);
            const input = await noteInputFor(flags, client, keys, trader, prover);
            return trader.place({
              symbol: flags.symbol,
              side: flags.side,
              type: flags.type,
              amount: flags.amount,
              price: flags.price,
              ...(flags.minFill === undefined ? {} : { minFillSize: flags.minFill }),
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
    .option('--price <price>', 'new limit price', parseU64)
    .option('--amount <units>', 'new size', parseU64)
    .option('--lifetime <slots>', 'new lifetime from the venue slot', parseU64)
    .option('--new-id', 'give the replacement a new order id (the old one is cancelled)')
    .action(
      (
        orderId: string,
        flags: { price?: bigint; amount?: bigint; lifetime?: bigint; newId?: boolean },
        command: Command,
      ) =>
        withContext(command, io, async (context) => {
          if (flags.price === undefined && flags.amount === undefined && flags.lifetime === undefined) {
            throw new CliError('nothing to change: give --price, --amount or --lifetime');
          }
          const order = await context.withTrader(async ({ trader }) => {
            // A fill nobody watched moved the order onto its change note: the venue's record
            // shows it, and the wallet works the note out from it before the replacement names it.
            await trader.reconcile();
            return trader.modify(orderId, {
              ...(flags.price === undefined ? {} : { price: flags.price }),
              ...(flags.amount === undefined ? {} : { amount: flags.amount }),
              ...(flags.lifetime === undefined ? {} : { lifetimeSlots: flags.lifetime }),
              newOrderId: flags.newId === true,
            });
          });
          context.out.result(
            orderView(order),
            () => `modified ${orderId}: now ${order.order_id} at ${order.price_limit}`,
          );
        }),
    );

  program
    .command('orders')
    .description("List the account's open orders (GET /account), or show one order (GET /orders/{id}).")
    .argument('[order_id]', 'one order to show', parseOrderId)
    .action((orderId: string | undefined, _flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.login();
        const records =
          orderId === undefined ? (await client.account()).open_orders : [await client.order(orderId)];
        context.out.table(records, ORDER_COLUMNS, 'no open orders');
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
  flags: PlaceFlags,
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
