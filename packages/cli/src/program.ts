import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { registerChainCommands } from './chain/chain-command.ts';
import { registerAdminCommands } from './commands/admin.ts';
import { DEFAULT_CREDENTIALS_FILE, DEFAULT_KEY_FILE, DEFAULT_VENUE_URL } from './commands/context.ts';
import { registerKeyCommands } from './commands/keys.ts';
import { registerMarketCommand } from './commands/markets.ts';
import { registerNoteCommands } from './commands/notes.ts';
import { registerOrderCommands } from './commands/orders.ts';
import { type CliIo, describeFailure, PROCESS_IO } from './commands/output.ts';
import { registerSessionCommands } from './commands/session.ts';
import { registerWatchCommand } from './commands/watch.ts';
import { registerDemoCommand } from './demo/demo-command.ts';
import { DEFAULT_CHAIN_PORT, DEV_LOG_LEVELS, type DevLogLevel } from './dev/dev-defaults.ts';
import { registerOracleCommands } from './oracle/oracle-command.ts';
import { registerServeCommand } from './serve/serve-command.ts';
import { loadServerPart } from './server-parts.ts';

/** The CLI's own version: package.json sits one level above both src/ (workspace) and dist/ (installed). */
export const CLI_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The `venue` command line. Commands are added here as the SDK and server grow. */
export function buildProgram(io: CliIo = PROCESS_IO): Command {
  const program = new Command('venue')
    .description('Confidential spot trading venue (interface 4.1.0): development server and tools.')
    .version(CLI_VERSION)
    .showHelpAfterError()
    .option('--venue <url>', 'venue origin, https://host:port', process.env['VENUE_URL'] ?? DEFAULT_VENUE_URL)
    .option(
      '--credentials <file>',
      'account credentials (the dev venue writes dev-accounts.json)',
      DEFAULT_CREDENTIALS_FILE,
    )
    .option('--account <name>', 'account in the credentials file (default: alice; admin for admin commands)')
    .option(
      '--trust <file>',
      'platform root and measurement to trust (default: platform-root.json beside --credentials)',
    )
    .option('--key-file <file>', 'your key file (venue keys generate)', DEFAULT_KEY_FILE)
    .option(
      '--wallet-dir <dir>',
      'where your order, note and nonce state is kept (default: beside the key file)',
    )
    .option('--json', 'print results as JSON for scripts', false)
    .option(
      '--human',
      'amounts in tokens and prices in quote tokens per base token, e.g. --amount 1.5 (decimals from the chain)',
      false,
    )
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });

  registerKeyCommands(program, io);
  registerMarketCommand(program, io);
  registerOrderCommands(program, io);
  registerWatchCommand(program, io);
  registerNoteCommands(program, io);
  registerAdminCommands(program, io);
  registerSessionCommands(program, io);
  registerServeCommand(program, io);
  registerChainCommands(program, io);
  registerOracleCommands(program, io);
  registerDemoCommand(program, io);

  program
    .command('dev')
    .description('Run the all-in-one development venue over HTTPS with a fresh per-boot certificate.')
    .addOption(new Option('--port <port>', 'TCP port; 0 picks a free one').default(8443).argParser(parsePort))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--chain-port <port>', 'chain simulator JSON-RPC port on loopback; 0 picks a free one')
        .default(DEFAULT_CHAIN_PORT)
        .argParser(parsePort),
    )
    .option('--state-dir <dir>', "where this boot's public certificate is written", '.state/dev')
    .addOption(
      new Option('--log-level <level>', 'server log level (stderr)').choices(DEV_LOG_LEVELS).default('warn'),
    )
    .action(runDev);

  return program;
}

/**
 * Runs the command line on `argv` (user arguments only, without node and the script) and returns
 * the exit status: 0 on success, 1 on a failure (the venue's code and message printed on stderr),
 * 2 on a usage error. Commands that serve (dev) keep running after it returns.
 */
export async function runCli(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  const program = buildProgram(io).exitOverride();
  for (const command of program.commands) exitOverrideAll(command);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    io.stderr(describeFailure(error, argv.includes('--json')));
    return 1;
  }
}

function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

interface DevFlags {
  port: number;
  host: string;
  chainPort: number;
  stateDir: string;
  logLevel: DevLogLevel;
}

async function runDev(flags: DevFlags): Promise<void> {
  // A boot takes seconds (proof keys, chain simulator, markets): say so at once, not after it.
  process.stdout.write('venue dev: starting (loading proof keys, the chain simulator and the markets)...\n');
  const [
    { startDevVenue },
    { formatBanner },
    { SHUTDOWN_GRACE_MS, createVenueLogger },
    { lowerHelperThreads },
  ] = await loadServerPart(
    () =>
      Promise.all([
        import('./dev/dev-venue.ts'),
        import('./dev/banner.ts'),
        import('@venue/adapters'),
        import('./helper-threads.ts'),
      ]),
    'dev',
  );
  // Before the venue starts its workers: they keep the priority they choose (D138).
  lowerHelperThreads();
  const venue = await startDevVenue(flags);
  // The banner is for the person at the terminal; every other line is in the venue's JSON format.
  process.stdout.write(formatBanner(venue));
  const log = createVenueLogger({ level: flags.logLevel }).child({ component: 'dev' });

  // First signal: graceful stop, exit 0. A second one falls through to Node's default and kills.
  const stop = async (signal: NodeJS.Signals) => {
    log.warn({ signal }, 'signal received, stopping');
    const deadline = setTimeout(() => {
      log.error(`requests still open after ${SHUTDOWN_GRACE_MS} ms; exiting anyway`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    deadline.unref();
    await venue.stop();
    clearTimeout(deadline);
    log.warn('stopped');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function parsePort(value: string): number {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(value) || Number(value) > 65_535) {
    throw new InvalidArgumentError('expected a TCP port from 0 to 65535 (0 picks a free port)');
  }
  return Number(value);
}
