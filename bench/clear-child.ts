/**
 * Child of the clearing figures (core.ts, clearSamplesInLargeYoungGeneration): clears a crossing
 * book of argv[2] orders argv[3] times under whatever node flags it was started with, and writes the
 * times in milliseconds to stdout as a JSON array.
 */
import { clearSamplesMs } from './core.ts';

const depth = Number(process.argv[2]);
const runs = Number(process.argv[3]);
process.stdout.write(JSON.stringify(clearSamplesMs(depth, runs, process.argv[4] === 'quick')));
