/**
 * Child of the settle-loop figures (settle-loop.ts, helperThreadRuns): one served-path run in a
 * process of its own. With argv[2] = 'lowered', the threads the process started with are first
 * lowered as `venue serve` lowers them (D138); otherwise they keep its priority. A process of its
 * own for each because lowering lasts for a thread's life. Writes the run to stdout as JSON.
 */
import { HELPER_THREADS_NICE } from '@venue/adapters';
import { lowerOtherThreads } from '@venue/notes';
import { clearSamplesMs } from './core.ts';
import { measure } from './settle-loop.ts';

if (process.argv[2] === 'lowered') lowerOtherThreads(HELPER_THREADS_NICE);
// The same warm-up as the parent's runs: crossing books cleared untimed on a core of their own (D122).
clearSamplesMs(2_048, 3, true);
process.stdout.write(JSON.stringify(await measure('worker', 1)));
process.exit(0);
