import type { KeyFile, NoteWallet, Trader, VenueClient } from '@venue/sdk';
import type { Command } from 'commander';
import { DEFAULT_CHAIN_RPC, withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import { CliError, type CliIo } from './output.ts';
import { parseHex32, parseTreeId } from './parsers.ts';
import { formatDecimal, parseDecimal, rawOrHuman } from './units.ts';

/**
 * `balance`, `deposit` and `withdraw`. The venue keeps no balances (spec 1 item 4): `balance`
 * scans the public note trees for the notes in your wallet; `deposit` and `withdraw` are chain
 * actions, sent to the chain simulator's JSON-RPC (--chain-rpc), never to the venue.
 */
export function registerNoteCommands(program: Command, io: CliIo): void {
  program
    .command('balance')
    .description(
      'Scan the note trees for your notes and print spendable, reserved and pending sums per mint.',
    )
    .option('--no-scan', 'print what the wallet knows without reading the trees')
    .option('--notes', 'list the notes instead of the sums')
    .option(
      '--chain-rpc <url>',
      "the chain simulator's JSON-RPC URL: settles withdrawals whose reply was lost (consumed or not)",
    )
    .action((flags: { scan: boolean; notes?: boolean; chainRpc?: string }, command: Command) =>
      withContext(command, io, async (context) => {
        const keys = await context.keyFile();
        const wallet = await context.wallet(keys);
        if (flags.chainRpc !== undefined) {
          const { spent, freed } = await wallet.resolveWithdrawals(flags.chainRpc);
          for (const note of spent)
            context.out.io.stderr(`withdrawal of note ${note.commitment} had landed: spent\n`);
          for (const note of freed)
            context.out.io.stderr(`withdrawal of note ${note.commitment} never landed: usable again\n`);
        }
        if (flags.scan) {
          const client = await context.login();
          await settleEndedOrders(client, keys, wallet, context.stateDir());
          const bar = context.out.progress('scanning');
          await wallet.scan(client, (p) => bar.update(p.leavesRead, p.leavesTotal));
          bar.stop();
        }
        if (flags.notes === true) {
          context.out.table(
            wallet.notes().filter((n) => n.status !== 'spent'),
            {
              commitment: (n) => n.commitment,
              mint: (n) => n.mint,
              value: (n) => String(n.value),
              status: (n) => n.status,
              shard: (n) => String(n.tree_id),
              leaf: (n) => (n.leaf_index === undefined ? '-' : String(n.leaf_index)),
            },
            'no notes; deposit one with venue deposit',
          );
          return;
        }
        const mints = context.options.human && !context.out.json ? await context.mintInfos() : null;
        const shown = (mint: string, raw: bigint) => {
          const info = mints?.get(mint);
          return info === undefined ? String(raw) : `${formatDecimal(raw, info.decimals)} ${info.symbol}`;
        };
        context.out.table(
          wallet.balances(),
          {
            mint: (b) => b.mint,
            spendable: (b) => shown(b.mint, b.spendable),
            reserved: (b) => shown(b.mint, b.reserved),
            pending: (b) => shown(b.mint, b.pending),
          },
          'no notes; deposit one with venue deposit',
        );
      }),
    );

  program
    .command('deposit')
    .description('Deposit tokens into a new note of your wallet (a chain action).')
    .requiredOption('--mint <mint>', 'token mint address, or its name in a market symbol (USDC of SOL-USDC)')
    .requiredOption('--amount <units>', 'value in base units of the mint (with --human: in tokens, e.g. 2.5)')
    .option(
      '--chain-rpc <url>',
      "the chain simulator's JSON-RPC URL (env VENUE_CHAIN_RPC)",
      DEFAULT_CHAIN_RPC,
    )
    .option('--tree-id <shard>', 'note tree shard', parseTreeId, 0)
    .action((flags: { mint: string; amount: string; chainRpc: string; treeId: number }, command: Command) =>
      withContext(command, io, async (context) => {
        const given = rawOrHuman(flags.amount, context.options.human, '--amount');
        const keys = await context.keyFile();
        const wallet = await context.wallet(keys);
        await context.checkChainIdentity({ record: true });
        // The SDK's own deposit path: the opening is recorded (sealed) before it is sent, so a
        // crash cannot lose the opening of a funded note.
        const mint = await mintNamed(flags.mint, () => context.connect());
        let value: bigint;
        let shown = `${flags.amount} of ${mint}`;
        if (typeof given === 'bigint') {
          value = given;
        } else {
          const info = (await context.mintInfos()).get(mint);
          if (info === undefined)
            throw new CliError(`the chain does not describe mint ${mint}: drop --human`);
          value = parseDecimal(given, info.decimals, `--amount (${info.symbol})`);
          shown = `${flags.amount} ${info.symbol}`;
        }
        const { note, receipt } = await wallet.depositVia(flags.chainRpc, {
          mint,
          value,
          treeId: flags.treeId,
        });
        context.out.result(
          {
            commitment: note.commitment,
            tree_id: note.tree_id,
            leaf_index: receipt.leaf_index,
            slot: receipt.slot,
          },
          () =>
            `deposited ${shown} as note ${note.commitment} (shard ${note.tree_id}, leaf ${receipt.leaf_index}); run venue balance to see it spendable`,
        );
      }),
    );

  program
    .command('withdraw')
    .description('Withdraw a spendable note of your wallet to a public account (a chain action).')
    .requiredOption('--note <commitment>', 'the note to withdraw', parseHex32)
    .requiredOption('--recipient <address>', 'public account receiving the tokens')
    .option(
      '--chain-rpc <url>',
      "the chain simulator's JSON-RPC URL (env VENUE_CHAIN_RPC)",
      DEFAULT_CHAIN_RPC,
    )
    .action((flags: { note: string; recipient: string; chainRpc: string }, command: Command) =>
      withContext(command, io, async (context) => {
        const keys = await context.keyFile();
        const wallet = await context.wallet(keys);
        const note = wallet.note(flags.note);
        if (note === undefined || note.status !== 'spendable') {
          throw new CliError(
            `note ${flags.note} is not a spendable note of this wallet (see venue balance --notes)`,
          );
        }
        // The SDK's own withdraw path: a VALID_SPEND proof (no opening sent, about 2 s), signed by
        // the notes package's spend authority, and the note spent in the wallet only on the receipt.
        const { receipt } = await wallet.withdrawVia(flags.chainRpc, {
          commitment: note.commitment,
          recipient: flags.recipient,
        });
        context.out.result(receipt, () => `withdrew ${note.value} of ${note.mint} to ${flags.recipient}`);
      }),
    );
}

/**
 * Orders placed from the command line have no stream listening for their end: read the venue's
 * record of each order still open locally (GET /orders/{id}), so a cancelled, expired or filled
 * order stops holding its note. Skipped when a bot holds this key's nonce lock (it follows the
 * stream itself).
 */
async function settleEndedOrders(
  client: VenueClient,
  keys: KeyFile,
  wallet: NoteWallet,
  stateDir: string,
): Promise<void> {
  let trader: Trader;
  try {
    trader = (await loadSdk()).Trader.open(client, keys, stateDir, { wallet });
  } catch {
    return;
  }
  try {
    await trader.reconcile();
  } finally {
    trader.close();
  }
}

/**
 * A mint address as given, or the mint a market symbol names: SOL-USDC lists SOL as its base and
 * USDC as its quote, so `--mint USDC` is that market's quote_mint (GET /instruments, public).
 */
async function mintNamed(given: string, connect: () => Promise<VenueClient>): Promise<string> {
  if (given.length >= 32) return given; // a base58 address
  const client = await connect();
  for (const instrument of await client.instruments()) {
    const [base, quote] = instrument.symbol.split('-');
    if (base === given) return instrument.base_mint;
    if (quote === given) return instrument.quote_mint;
  }
  throw new CliError(`no market names a token ${given}; give its mint address (venue markets lists them)`);
}
