import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AccountRole } from '@venue/protocol';
import { type Command, Option } from 'commander';
import { withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import { CliError, type CliIo } from './output.ts';
import { parseU64 } from './parsers.ts';

/** The protocol's ACCOUNT_ROLES, listed here so declaring the command loads no protocol code. */
const ACCOUNT_ROLES = ['trader', 'admin'] as const satisfies readonly AccountRole[];
// ...and no role of the protocol is missing from it:
const _allRoles: readonly (typeof ACCOUNT_ROLES)[number][] = [] as AccountRole[];
void _allRoles;

/**
 * `admin ...`: the operator routes (spec 4.7), logged in as the `admin` account of the credentials
 * file (or --account). They manage access and the planned stop only.
 */
export function registerAdminCommands(program: Command, io: CliIo): void {
  const admin = program.command('admin').description('Operator commands (admin account).');
  const accounts = admin.command('accounts').description('Create, disable, enable accounts; revoke tokens.');

  accounts
    .command('create')
    .description('Register an account. Its secret is shown once: hand it over securely.')
    .addOption(new Option('--role <role>', 'account role').choices(ACCOUNT_ROLES).default('trader'))
    .option('--label <label>', 'operator note, e.g. the desk name')
    .option(
      '--save <file>',
      'also add the credentials to this credentials file (0600), named by --label, for --credentials and --account',
    )
    .action((flags: { role: 'trader' | 'admin'; label?: string; save?: string }, command: Command) =>
      withContext(command, io, async (context) => {
        if (
          flags.save !== undefined &&
          (flags.label === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(flags.label))
        ) {
          throw new CliError(
            "--save needs --label: 1 to 64 letters, digits, - or _, the account's name in that file",
          );
        }
        const saved = flags.save === undefined ? null : readCredentialsFile(flags.save, flags.label ?? '');
        const client = await context.login('admin');
        const created = await client.createAccount({
          role: flags.role,
          ...(flags.label === undefined ? {} : { label: flags.label }),
        });
        if (flags.save !== undefined && saved !== null) {
          const entry = {
            api_key: created.api_key,
            api_secret: created.api_secret,
            passphrase: created.passphrase,
          };
          (await loadSdk()).writePrivateFileSync(
            resolve(flags.save),
            `${JSON.stringify({ ...saved, [flags.label ?? '']: entry }, null, 2)}\n`,
          );
          // Saved, so the secret stays out of the terminal and its scrollback.
          const { api_secret: _secret, passphrase: _passphrase, ...shown } = created;
          context.out.result(
            { ...shown, saved_to: flags.save, name: flags.label },
            () =>
              `created ${created.role} account ${created.account_id} (api_key ${created.api_key}); credentials saved to ${flags.save} as "${flags.label}"`,
          );
          return;
        }
        // The new account's credentials are the one thing this command exists to deliver.
        context.out.result(created, () =>
          [
            `created ${created.role} account ${created.account_id}`,
            `  api_key     ${created.api_key}`,
            `  api_secret  ${created.api_secret}`,
            `  passphrase  ${created.passphrase}`,
            'The secret and passphrase are not shown again.',
          ].join('\n'),
        );
      }),
    );

  for (const change of ['disable', 'enable', 'revoke-tokens'] as const) {
    accounts
      .command(change)
      .description(
        change === 'disable'
          ? 'Suspend an account at once (REST, stream and logins).'
          : change === 'enable'
            ? 'Reinstate a suspended account.'
            : 'Invalidate every token of an account without disabling it.',
      )
      .argument('<api_key>', 'the account to change')
      .action((apiKey: string, _flags: unknown, command: Command) =>
        withContext(command, io, async (context) => {
          const client = await context.login('admin');
          const status = await client.changeAccount(apiKey, change);
          context.out.result(status, () => `${status.api_key}: ${status.status}`);
        }),
      );
  }

  admin
    .command('drain')
    .description('Inspect, begin or cancel a planned-stop drain.')
    .argument('[action]', 'inspect (default), begin or cancel', 'inspect')
    .action((action: string, _flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        if (!['inspect', 'begin', 'cancel'].includes(action)) {
          throw new Error(`drain action must be inspect, begin or cancel, received "${action}"`);
        }
        const client = await context.login('admin');
        const drain = await client.drain(action as 'inspect' | 'begin' | 'cancel');
        context.out.result(
          drain,
          () =>
            `drain: ${drain.state}; trading ${drain.trading_closed ? 'closed' : 'open'}; journal records in flight ${drain.journal_records_in_flight}`,
        );
      }),
    );

  admin
    .command('auction')
    .description('Explain one recent batch auction of a market: candidates, price, counts by outcome.')
    .argument('<market_id>', 'base58 market id (GET /instruments)')
    .argument('<batch>', 'auction batch number', parseU64)
    .action((marketId: string, batch: bigint, _flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.login('admin');
        const explained = await client.auctionExplanation(marketId, batch);
        context.out.result(explained, () =>
          [
            `batch ${explained.batch} at slot ${explained.slot}: ${explained.participants} orders took part`,
            explained.clearing_price === undefined
              ? `did not clear (${explained.no_clear_reason ?? 'nothing crossed'})`
              : `cleared at ${explained.clearing_price} (decided by ${explained.decided_by}), ${explained.fills} fills, ${explained.volume} base units`,
            `candidates: ${explained.candidates_considered}, outside the band: ${explained.candidates_out_of_band}`,
            ...explained.shortlist.map(
              (c) =>
                `  ${c.price}: demand ${c.demand}, supply ${c.supply}, executable ${c.executable}, surplus ${c.surplus}`,
            ),
            ...explained.unfilled.map((u) => `unfilled (${u.reason}): ${u.orders}`),
          ].join('\n'),
        );
      }),
    );

  admin
    .command('metrics')
    .description('Settlement queue and latency per market (aggregates only).')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const client = await context.login('admin');
        const metrics = await client.settlementMetrics();
        if (context.options.json) {
          context.out.result(metrics, () => '');
          return;
        }
        context.out.table(
          metrics.markets,
          {
            symbol: (m) => m.symbol,
            queue: (m) => String(m.queue_depth),
            submitted: (m) => String(m.batches_submitted),
            confirmed: (m) => String(m.batches_confirmed),
            failed: (m) => String(m.batches_failed),
            'p50 slots': (m) =>
              m.match_to_final_slots_p50 === undefined ? '-' : String(m.match_to_final_slots_p50),
            'p99 slots': (m) =>
              m.match_to_final_slots_p99 === undefined ? '-' : String(m.match_to_final_slots_p99),
          },
          'no markets',
        );
      }),
    );
}

/**
 * The credentials file `--save` adds to: its current accounts (none when it does not exist yet),
 * checked before the account is created so a bad file or a taken name costs nothing.
 */
function readCredentialsFile(file: string, name: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let accounts: unknown;
  try {
    accounts = JSON.parse(text);
  } catch {
    throw new CliError(`--save ${file}: not JSON; name a new file or a credentials file`);
  }
  if (typeof accounts !== 'object' || accounts === null || Array.isArray(accounts)) {
    throw new CliError(`--save ${file}: expected a credentials file (an object of accounts by name)`);
  }
  if (name in accounts)
    throw new CliError(`--save ${file}: already holds an account "${name}"; choose another --label`);
  return accounts as Record<string, unknown>;
}
