import type { Command } from 'commander';
import type { CliIo } from '../commands/output.ts';
import { writeReadyFile } from '../commands/ready-file.ts';
import { loadServerPart } from '../server-parts.ts';

/** Beyond the drain (served-venue.ts's DRAIN_WAIT_MS_MAX), how long closing connections may take. */
const STOP_GRACE_EXTRA_MS = 5_000;

/**
 * `venue serve --config FILE`: checks the whole file first (a mistake exits 1 naming the key), then
 * boots from the state directory and serves until SIGTERM or SIGINT, which drain and stop it
 * (exit 0). A second signal falls through to Node's default and kills the process.
 */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('Run the venue alone (no simulators) from a JSON config file; see docs/operations.md.')
    .requiredOption('--config <file>', 'the venue configuration (example: config/venue.example.json)')
    .option('--ready-file <file>', 'also write the ready line to this file (public values only)')
    .action(async (flags: { config: string; readyFile?: string }) => {
      const [
        { loadServeConfig },
        { DRAIN_WAIT_MS_MAX, serveLoggers, startServedVenue },
        { lowerHelperThreads },
      ] = await loadServerPart(
        () =>
          Promise.all([
            import('./serve-config.ts'),
            import('./served-venue.ts'),
            import('../helper-threads.ts'),
          ]),
        'serve',
      );
      const STOP_GRACE_MS = DRAIN_WAIT_MS_MAX + STOP_GRACE_EXTRA_MS;
      const config = loadServeConfig(flags.config);
      // From here every line is in the venue's one JSON format; a config that does not load is
      // reported above like any CLI error (one line naming the key, exit 1).
      const loggers = serveLoggers(config, {
        stdout: { write: (line) => io.stdout(line) },
        stderr: { write: (line) => io.stderr(line) },
      });
      const log = loggers.log.child({ component: 'serve' });
      const helpers = lowerHelperThreads();
      log.info(
        { threads_lowered: helpers.threads, nice_steps: helpers.niceSteps },
        "the process's helper threads run below the sequencer",
      );
      const venue = await startServedVenue(config, loggers.log);
      const ready = {
        rest_url: venue.restUrl,
        stream_url: venue.streamUrl,
        session_id: venue.sessionId,
        cert_file: venue.certFile,
        trust_file: venue.platformFile,
        replayed_commands: venue.replayed,
        admin_credentials_file: venue.adminCredentialsFile,
        settles: venue.settles,
        state_check: venue.stateCheck,
        settlement_signer: venue.settlementSigner,
        measurement: venue.measurement,
        metrics_url: venue.metricsUrl,
      };
      if (flags.readyFile !== undefined) writeReadyFile(ready, flags.readyFile);
      loggers.ready.info({ ready }, 'the venue is ready');
      const stop = async (signal: NodeJS.Signals) => {
        log.info({ signal }, 'signal received: draining, then stopping');
        const deadline = setTimeout(() => {
          log.error(`still stopping after ${STOP_GRACE_MS} ms; exiting anyway`);
          process.exit(1);
        }, STOP_GRACE_MS);
        deadline.unref();
        await venue.stop();
        clearTimeout(deadline);
        log.info('stopped');
        process.exit(0);
      };
      process.once('SIGINT', (signal) => void stop(signal));
      process.once('SIGTERM', (signal) => void stop(signal));
    });
}
