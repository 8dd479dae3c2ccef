import { LOG_LEVELS, SHUTDOWN_GRACE_MS } from '@venue/adapters';
import { Command, InvalidArgumentError, Option } from 'commander';
import cliPackage from '../package.json' with { type: 'json' };
import { formatBanner } from './dev/banner.ts';
import { startDevVenue } from './dev/dev-venue.ts';

/** The `venue` command line. Commands are added here as the SDK and server grow. */
export function buildProgram(): Command {
  const program = new Command('venue')
    .description('Confidential spot trading venue (interface 4.1.0): development server and tools.')
    .version(cliPackage.version)
    .showHelpAfterError();

  program
    .command('dev')
    .description('Run the all-in-one development venue over HTTPS with a fresh per-boot certificate.')
    .addOption(new Option('--port <port>', 'TCP port; 0 picks a free one').default(8443).argParser(parsePort))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--state-dir <dir>', "where this boot's public certificate is written", '.state/dev')
    .addOption(
      new Option('--log-level <level>', 'server log level (stderr)').choices(LOG_LEVELS).default('warn'),
    )
    .action(runDev);

  return program;
}

interface DevFlags {
  port: number;
  host: string;
  stateDir: string;
  logLevel: (typeof LOG_LEVELS)[number];
}

async function runDev(flags: DevFlags): Promise<void> {
  const venue = await startDevVenue(flags);
  process.stdout.write(formatBanner(venue));

  // First signal: graceful stop, exit 0. A second one falls through to Node's default and kills.
  const stop = async (signal: NodeJS.Signals) => {
    process.stderr.write(`venue: ${signal} received, stopping\n`);
    const deadline = setTimeout(() => {
      process.stderr.write(`venue: requests still open after ${SHUTDOWN_GRACE_MS} ms; exiting anyway\n`);
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    deadline.unref();
    await venue.stop();
    clearTimeout(deadline);
    process.stderr.write('venue: stopped\n');
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
