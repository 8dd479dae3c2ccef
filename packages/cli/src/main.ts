import { runCli } from './program.ts';

/**
 * Entry point of the `venue` command (bin/venue.mjs and `npm start` run this file). Failures print
 * one line saying what went wrong (a venue refusal with its code) and exit non-zero; a stack trace
 * is no help to someone at a terminal. A command that serves (dev) keeps the process alive.
 */
const status = await runCli(process.argv.slice(2));
if (status !== 0) process.exit(status);
