/**
 * Child of the settle-loop figures (settle-loop.ts): one run in a process of its own, written to
 * stdout as JSON. argv[2] = 'lowered' first lowers the threads the process started with as `venue
 * serve` lowers them (D138); 'even' leaves them at its priority. A process of its own for each,
 * because lowering lasts for a thread's life. argv[3] = 'real-proofs' runs the production variant
 * (real VALID_MATCH proofs, the journal with fdatasync) with the prover's workers argv[4] nice steps
 * below the venue (MATCH_PROVER_NICE, as serve, when not given); otherwise the stand-in served path.
 */
import { HELPER_THREADS_NICE, MATCH_PROVER_NICE } from '@venue/adapters';
import { lowerOtherThreads } from '@venue/notes';
import { clearSamplesMs } from './core.ts';
import { measure, PROVED_LEGS } from './settle-loop.ts';

if (process.argv[2] === 'lowered') lowerOtherThreads(HELPER_THREADS_NICE);
// The same warm-up as the parent's runs: crossing books cleared untimed on a core of their own (D122).
clearSamplesMs(2_048, 3, true);
const run =
  process.argv[3] === 'real-proofs'
    ? await measure('groth16', 1, false, undefined, {
        legs: PROVED_LEGS,
        proverNice: Number(process.argv[4] ?? MATCH_PROVER_NICE),
      })
    : await measure('worker', 1);
process.stdout.write(JSON.stringify(run));
process.exit(0);
