// Runs every test file of the workspace with Node's own test runner (TypeScript through tsx).
// Node 20's --test takes no globs, so the files are listed here. Files run in parallel.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules') continue;
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const roots = ['packages', 'scripts'];
// The files that take longest (venues booted as processes, real proofs, brokers, packing; measured
// with TEST_DURATIONS_FILE, slowest first) start first: a long file picked up last would run alone
// at the end.
const LONG_FIRST = [
  'scripts/test/docs-run.test.ts',
  'testing/src/sim/simulator.test.ts',
  'sdk/test/failover.test.ts',
  'scripts/test/operations-run.test.ts',
  'cli/test/serve.test.ts',
  'cli/test/demo.test.ts',
  'sdk/test/pack-install.dist.test.ts',
  'adapters/test/crash-recovery.test.ts',
  'sdk/test/examples.dist.test.ts',
  'adapters/test/jetstream-journal.test.ts',
  'sdk/test/wallet-settlement.test.ts',
  'notes/test/match-prover-restart.test.ts',
  'cli/test/dev-mode.test.ts',
];
const rank = (file) => {
  const at = LONG_FIRST.findIndex((suffix) => file.endsWith(suffix));
  return at < 0 ? LONG_FIRST.length : at;
};
const files = roots
  .flatMap((root) => testFiles(root))
  .sort()
  .sort((a, b) => rank(a) - rank(b));
const filter = process.argv[2];
const selected = filter ? files.filter((f) => f.includes(filter)) : files;
if (selected.length === 0) {
  console.error(`no test file matches ${filter ?? '(all)'}`);
  process.exit(1);
}
// `*.dist.test.ts` files run the built JavaScript of the published packages (plain node, npm pack):
// build it first, once, so they never race each other's build.
if (selected.some((file) => file.endsWith('.dist.test.ts'))) {
  const { buildPackages } = await import('./build-packages.mjs');
  buildPackages();
}
// The venue serves the operator console from its build: make sure it exists and matches its
// sources before any venue starts (quick when nothing changed). The console's browser tests need
// Chromium: `npm test` has installed it already; a run of those files alone checks too.
const { ensureConsoleBuilt } = await import('./build-console.mjs');
await ensureConsoleBuilt();
if (selected.some((file) => file.includes(join('packages', 'console')))) {
  const { ensureMachine } = await import('./ensure-machine.mjs');
  ensureMachine(['chromium']);
}
// One file more than there are cores: many files spend much of their time waiting on processes
// they started (venues, chains, brokers, a browser), and the spare slot fills that time (on 2 cores,
// 12.8 min instead of 15.8 for the whole suite). TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 1);
// TEST_DURATIONS_FILE=path also writes each file's time there, slowest first.
const durations = process.env.TEST_DURATIONS_FILE
  ? [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(import.meta.dirname, 'test-durations-reporter.mjs')}`,
      `--test-reporter-destination=${process.env.TEST_DURATIONS_FILE}`,
    ]
  : [];
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...durations, ...selected],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
