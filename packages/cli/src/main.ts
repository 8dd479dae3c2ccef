import { buildProgram } from './program.ts';

/**
 * Entry point of the `venue` command (bin/venue.mjs and `npm start` run this file). Failures print
 * one line saying what went wrong and exit 1; a stack trace is no help to someone starting a venue.
 */
try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  const hint =
    code === 'EADDRINUSE' ? ' (another process holds the port; pass --port 0 to pick a free one)' : '';
  process.stderr.write(`venue: ${message}${hint}\n`);
  process.exit(1);
}
