/**
 * `npm run bench -- NAME [--quick]` runs one benchmark, `npm run bench -- all` runs them all.
 * Figures go to stdout as one JSON line each; tables and progress go to stderr.
 */
import type { Figure } from '../bench/harness.ts';
import { report } from '../bench/harness.ts';
import { loopDelayFigures, watchLoop } from '../bench/loop-delay.ts';

const BENCHMARKS: Record<string, () => Promise<{ run: (quick: boolean) => Figure[] | Promise<Figure[]> }>> = {
  clearing: () => import('../bench/clearing.ts'),
  'cli-start': () => import('../bench/cli-start.ts'),
  'console-load': () => import('../bench/console-load.ts'),
  core: () => import('../bench/core.ts'),
  failover: () => import('../bench/failover.ts'),
  intake: () => import('../bench/intake.ts'),
  journal: () => import('../bench/journal.ts'),
  'match-prover': () => import('../bench/match-prover.ts'),
  metrics: () => import('../bench/metrics.ts'),
  proofs: () => import('../bench/proofs.ts'),
  rest: () => import('../bench/rest.ts'),
  settlement: () => import('../bench/settlement.ts'),
  'settle-loop': () => import('../bench/settle-loop.ts'),
  soak: () => import('../bench/soak.ts'),
  'stream-flood': () => import('../bench/stream-flood.ts'),
  stream: () => import('../bench/stream.ts'),
  'tdx-verify': () => import('../bench/tdx-verify.ts'),
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const name = args.find((a) => !a.startsWith('--'));
if (name === undefined || (name !== 'all' && !(name in BENCHMARKS))) {
  process.stderr.write(
    `usage: npm run bench -- NAME [--quick] [--journal, --proofs: soak only] [--census: settle-loop only]\nNAME: all, ${Object.keys(BENCHMARKS).join(', ')}\n`,
  );
  process.exit(2);
}
for (const selected of name === 'all' ? Object.keys(BENCHMARKS) : [name]) {
  const load = BENCHMARKS[selected];
  if (load === undefined) continue;
  const module = await load();
  const watch = watchLoop();
  const figures = await module.run(quick);
  const loop = watch.stop();
  // Every benchmark records its event loop's delay (shared/design/benchmarks.md). One that does not
  // watch a part of its own gets the whole run's: for a synchronous benchmark (core, intake) that is
  // the longest stretch it held the thread, a stall figure of its own.
  const watched = figures.some((f) => f.name.includes('loop_delay'));
  report(watched ? figures : [...figures, ...loopDelayFigures(selected, 'whole_run', [loop])]);
}
