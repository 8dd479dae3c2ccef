import { resolve } from 'node:path';
import type { KeyFile } from '@venue/sdk';
import type { Command } from 'commander';
import { withContext } from './context.ts';
import { loadSdk } from './lazy.ts';
import type { CliIo } from './output.ts';

/**
 * `keys generate` writes a new key file (trading, spending, viewing and storage keys; mode 0600)
 * and `keys show` prints its public parts. No command ever prints a private key.
 */
export function registerKeyCommands(program: Command, io: CliIo): void {
  const keys = program
    .command('keys')
    .description('Your local key file: trading, spending and viewing keys.');

  keys
    .command('generate')
    .description('Generate fresh keys into --key-file (refuses to overwrite an existing file).')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const file = await (await loadSdk()).KeyFile.create(resolve(context.options.keyFile));
        show(context.out, file, `generated ${file.path} (readable by you only; back it up, never share it)`);
      }),
    );

  keys
    .command('show')
    .description('Print the public parts of --key-file.')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const file = await context.keyFile();
        show(context.out, file, file.path);
      }),
    );
}

function show(out: import('./output.ts').Output, file: KeyFile, title: string): void {
  const { trading_key, viewing_pubkey, owner_commitment } = file.publicParts;
  out.result({ key_file: file.path, ...file.publicParts }, () =>
    [
      title,
      `  trading key       ${trading_key}`,
      `  viewing pubkey    ${viewing_pubkey}`,
      `  owner commitment  ${owner_commitment}`,
    ].join('\n'),
  );
}
