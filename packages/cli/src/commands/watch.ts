import type { Channel } from '@venue/protocol';
import type { Command } from 'commander';
import { withContext } from './context.ts';
import { CliError, type CliIo, jsonText } from './output.ts';

/**
 * `watch`: follows the session stream and prints each event as it arrives (one line, or one JSON
 * object per line with --json). Gaps and reconnects are printed too, since after one the venue's
 * records (venue orders) are the truth. Stops on Ctrl-C, or after --count events.
 */
export function registerWatchCommand(program: Command, io: CliIo): void {
  program
    .command('watch')
    .description('Print live events of your account: orders, fills, tree.')
    .option('--channels <list>', 'comma-separated: orders, fills, tree', 'orders,fills')
    .option('--count <n>', 'stop after this many events (default: run until Ctrl-C)', (v) => Number(v))
    .action((flags: { channels: string; count?: number }, command: Command) =>
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
        const stream = await client.openStream({ channels: channels as Channel[] });
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
            if (flags.count !== undefined && seen >= flags.count) resolve();
          };
          stream.on('order', (e) =>
            print(
              'order',
              `order ${e.order_id} ${e.kind}${e.filled_quantity === undefined ? '' : ` filled ${e.filled_quantity}`}`,
              e,
            ),
          );
          stream.on('fill', (f) =>
            print('fill', `fill  ${f.order_id} match ${f.match_id} batch ${f.batch_seq}`, f),
          );
          stream.on('tree', (t) =>
            print('tree', `tree  shard ${t.tree_id} root ${t.root} leaves ${t.leaf_count}`, t),
          );
          stream.on('gap', (g) => io.stderr(`gap (${g.reason}): reconcile with \`venue orders\`\n`));
          stream.on('closed', () => resolve());
          process.once('SIGINT', () => resolve());
          io.stderr(`watching ${channels.join(', ')}; Ctrl-C stops\n`);
        });
        await stream.close();
      }),
    );
}
