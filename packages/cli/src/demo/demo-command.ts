import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CommandContext } from '../commands/context.ts';
import { CliError, type CliIo } from '../commands/output.ts';
import { DEFAULT_CHAIN_PORT } from '../dev/dev-defaults.ts';
import type { DevVenue } from '../dev/dev-venue.ts';
import { loadServerPart } from '../server-parts.ts';
import { formatReport } from './demo-report.ts';

/**
 * `venue demo`: the scripted two-trader scenario (demo-scenario.ts). Without --venue it starts its
 * own dev venue in this process on free ports and stops it afterwards; with --venue it plays
 * against a running `venue dev` (npm start), whose demo accounts alice and bob it logs in as
 * (--credentials) and whose chain simulator takes the deposits (--chain-rpc).
 */
export function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description(
      'Two traders deposit notes, trade on two markets (a partial fill, a cancel on disconnect), settle and decrypt their fills. Starts its own dev venue unless --venue is given.',
    )
    .option(
      '--chain-rpc <url>',
      "with --venue: the dev venue's chain simulator JSON-RPC (its banner prints it)",
      `http://127.0.0.1:${DEFAULT_CHAIN_PORT}/`,
    )
    .action((flags: { chainRpc: string }, command: Command) => demo(flags, command, io));
}

async function demo(flags: { chainRpc: string }, command: Command, io: CliIo): Promise<void> {
  const given = CommandContext.of(command, io);
  const [{ startDevVenue }, { runDemo }] = await loadServerPart(
    () => Promise.all([import('../dev/dev-venue.ts'), import('./demo-scenario.ts')]),
    'demo',
  );
  const say = (line: string) => (given.out.json ? io.stderr(`${line}\n`) : io.stdout(`${line}\n`));
  const ownVenue =
    command.getOptionValueSourceWithGlobals('venue') === 'default' && process.env['VENUE_URL'] === undefined;
  let dev: { venue: DevVenue; stateDir: string } | undefined;
  try {
    let context = given;
    let chainRpcUrl = flags.chainRpc;
    if (ownVenue) {
      say('starting a dev venue in this process (pass --venue to use a running one)');
      const stateDir = await mkdtemp(join(tmpdir(), 'venue-demo-'));
      const venue = await startDevVenue({
        host: '127.0.0.1',
        port: 0,
        chainPort: 0,
        stateDir,
        logLevel: 'silent',
      }).catch(async (error: unknown) => {
        await rm(stateDir, { recursive: true, force: true });
        throw error;
      });
      dev = { venue, stateDir };
      say(`dev venue at ${venue.restUrl}, chain RPC ${venue.chainRpcUrl}`);
      chainRpcUrl = venue.chainRpcUrl;
      context = new CommandContext(
        {
          ...given.options,
          venue: venue.restUrl,
          credentials: venue.accountsFile,
          trust: venue.platformFile,
        },
        io,
      );
    }
    const report = await runDemo(
      {
        url: context.options.venue,
        trust: context.trust(),
        chainRpcUrl,
        alice: context.credentials('alice'),
        bob: context.credentials('bob'),
      },
      say,
    );
    context.out.result(report, () => formatReport(report));
    const wrong = report.traders.filter((t) => !t.balances_match).map((t) => t.name);
    if (wrong.length > 0) {
      throw new CliError(`the balances of ${wrong.join(' and ')} do not match their fills`);
    }
  } finally {
    if (dev !== undefined) {
      await dev.venue.stop();
      await rm(dev.stateDir, { recursive: true, force: true });
    }
  }
}
