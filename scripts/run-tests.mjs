// Runs every test file of the workspace with Node's own test runner (TypeScript through tsx).
// Node 20's --test takes no globs, so the files are listed here. Each file runs as its own
// `node --test` process in a process group of its own, a few at a time: a file that outlives its
// ceiling is reported with what it had printed and the processes it was running, and its whole
// process tree is killed, so one hung file fails the run instead of stalling it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
// The files that take longest (venues booted as processes, real proofs, brokers, packing), slowest
// first, as measured with TEST_DURATIONS_FILE on the loaded 2-core host (seconds at load 5 to 16 in
// brackets). They start first: a long file picked up last would run alone at the end, while the
// short files fill the other lanes around the long ones (longest first, D117). failover alone
// takes about a third of the suite's wall time, so it must never start late.
const LONG_FIRST = [
  'sdk/test/failover.test.ts', // [250]
  'scripts/test/docs-run.test.ts', // [130-140]
  'scripts/test/operations-run.test.ts', // [125-140]
  'cli/test/serve.test.ts', // [126]
  'sdk/test/examples.dist.test.ts', // [99]
  'sdk/test/pack-install.dist.test.ts', // [97]
  'testing/src/sim/simulator.test.ts', // [88]
  'cli/test/demo.test.ts', // [77]
  'cli/test/serve-standby.test.ts', // [54]
  'adapters/test/stream.test.ts', // [40]
  'adapters/test/crash-recovery.test.ts',
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
// `run-tests.mjs SUBSTRING...`: the files whose path contains any of them (none: every file).
const filters = process.argv.slice(2);
const selected = filters.length > 0 ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error(`no test file matches ${filters.join(' ') || '(all)'}`);
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
// A file's ceiling: ten minutes is a hang, not slowness, for every file but failover, which takes
// two to four minutes on a loaded 2-core machine and 7.5 to 9 when the host runs slow (its 20
// kills are issue 22's minimum): it gets fifteen. Each file is told its ceiling in
// TEST_FILE_CEILING_S, and the files that start processes give their tests timeouts below it, so a
// hung step is normally reported by its test, by name, before the file reaches the ceiling.
// TEST_FILE_CEILING_S set for the runner is every file's ceiling.
const FILE_CEILING_S = 600;
const LONGER_CEILING_S = { 'sdk/test/failover.test.ts': 900 };
const ceilingOf = (file) =>
  Number(
    process.env.TEST_FILE_CEILING_S ??
      Object.entries(LONGER_CEILING_S).find(([suffix]) => file.endsWith(suffix))?.[1] ??
      FILE_CEILING_S,
  );
// Every process a file starts inherits this mark in its environment (tests pass process.env on),
// so what it started in groups of their own is found even once orphaned.
const MARK = 'VENUE_TEST_FILE_RUN';

const startedAt = Date.now();
/** @type {{ file: string, seconds: number, outcome: 'pass' | 'fail' | 'ceiling' | 'skipped', output: string }[]} */
const results = [];
const queue = [...selected];
/** The files under way, by the pid of their process (the leader of their group). */
const running = new Map();
// The files run in groups of their own, out of reach of the terminal's Ctrl-C: the runner passes a
// stop on to them, so that nothing it started outlives it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    for (const [pid, file] of running) killTree(pid, file);
    process.exit(130);
  });
}
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, lane));
report();

async function lane() {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const result = await runFile(file);
    results.push(result);
    const mark = result.outcome === 'pass' ? 'ok  ' : 'FAIL';
    process.stdout.write(`${result.output}\n${mark} ${file} (${result.seconds.toFixed(1)} s)\n\n`);
  }
}

/**
 * One file in a process group of its own; its output is printed whole when it ends. The file is run
 * directly, as `node --test` runs it in its child (and with the same exit code): a `node --test`
 * parent per file would cost one more process start for nothing.
 */
function runFile(file) {
  const begun = Date.now();
  const ceilingS = ceilingOf(file);
  const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', file], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      [MARK]: `${process.pid}:${file}`,
      TEST_FILE_CEILING_S: String(ceilingS),
    },
  });
  running.set(child.pid, file);
  let output = '';
  // As text, so that a character split between two chunks stays whole.
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((done) => {
    let overCeiling = false;
    const ceiling = setTimeout(() => {
      overCeiling = true;
      const tree = describeTree(child.pid, file);
      output +=
        `\n!! ${file} still running after its ${ceilingS} s ceiling (TEST_FILE_CEILING_S);` +
        ` killing its process tree. It was running:\n${tree || '(no process left)'}\n`;
      killTree(child.pid, file);
    }, ceilingS * 1000);
    // A process the file left in its group may hold its pipes open after it exited: give them a
    // moment to close by themselves, then kill what holds them.
    let holders;
    child.once('exit', () => {
      holders = setTimeout(() => killTree(child.pid, file), 10_000);
    });
    // 'close', not 'exit': the file's output is whole once every holder of its pipes is gone.
    child.once('close', (code, signal) => {
      clearTimeout(ceiling);
      clearTimeout(holders);
      running.delete(child.pid);
      // Whatever the file left behind in its group (a process it failed to stop) goes with it.
      const leftover = describeTree(child.pid, file);
      if (leftover !== '') {
        output += `\n!! ${file} left processes running; killed:\n${leftover}\n`;
        killTree(child.pid, file);
      }
      const seconds = (Date.now() - begun) / 1000;
      const outcome = overCeiling ? 'ceiling' : code === 0 ? 'pass' : 'fail';
      if (outcome === 'fail' && code !== 0) output += `\n(exit ${code ?? signal})\n`;
      done({ file, seconds, outcome, output });
    });
  });
}

/** The processes of /proc as pid -> { parent, group, command, mark }. */
function processTable() {
  const table = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command name: state, ppid, pgrp, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, parent, group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const mark = environ.find((v) => v.startsWith(`${MARK}=`))?.slice(MARK.length + 1);
      table.set(Number(entry), { parent: Number(parent), group: Number(group), command, mark });
    } catch {
      // exited while listed
    }
  }
  return table;
}

/**
 * A file's processes: its group (the file's own process, and children that stayed in its group),
 * those carrying its mark, and every descendant of those (a test's children in groups of their
 * own, even with an environment of their own).
 */
function treeOf(root, file) {
  const table = processTable();
  const mark = `${process.pid}:${file}`;
  const members = new Set(
    [...table].filter(([, p]) => p.group === root || p.mark === mark).map(([pid]) => pid),
  );
  if (table.has(root)) members.add(root);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of table) {
      if (!members.has(pid) && (members.has(p.parent) || members.has(p.group))) {
        members.add(pid);
        grew = true;
      }
    }
  }
  return [...members].map((pid) => ({ pid, ...table.get(pid) }));
}

function describeTree(root, file) {
  return treeOf(root, file)
    .map((p) => `  ${p.pid} ${p.command.slice(0, 300)}`)
    .join('\n');
}

/** SIGKILL (nothing to drain: the file is over) to every process of the tree and its groups. */
function killTree(root, file) {
  for (let round = 0; round < 5; round += 1) {
    const tree = treeOf(root, file);
    if (tree.length === 0) return;
    for (const target of [...new Set(tree.map((p) => -p.group)), ...tree.map((p) => p.pid)]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

function report() {
  const byTime = [...results].sort((a, b) => b.seconds - a.seconds);
  const wall = ((Date.now() - startedAt) / 1000).toFixed(1);
  // TEST_DURATIONS_FILE=path writes each file's wall time there, slowest first (to keep LONG_FIRST
  // honest).
  if (process.env.TEST_DURATIONS_FILE) {
    const rows = byTime.map((r) => `${r.seconds.toFixed(1).padStart(7)} s  ${r.file}  ${r.outcome}`);
    writeFileSync(process.env.TEST_DURATIONS_FILE, `${rows.join('\n')}\nwall ${wall} s\n`);
  }
  // The tests in all, from each file's summary (the spec reporter's last lines): a skipped or todo
  // test is a check that did not run, so it fails the run as a failure does.
  const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  for (const r of results) {
    for (const key of Object.keys(totals)) {
      const found = r.output.match(new RegExp(`^ℹ ${key} (\\d+)$`, 'm'));
      totals[key] += Number(found?.[1] ?? 0);
    }
  }
  const unrun = results.filter((r) => /^ℹ (skipped|todo) [1-9]/m.test(r.output));
  for (const r of unrun) {
    if (r.outcome === 'pass') r.outcome = 'skipped';
  }
  console.log(
    `tests ${totals.tests}: ${totals.pass} passed, ${totals.fail} failed, ${totals.cancelled} cancelled, ` +
      `${totals.skipped} skipped, ${totals.todo} todo`,
  );
  console.log(`${results.length} files in ${wall} s, ${concurrency} at a time; slowest:`);
  for (const r of byTime.slice(0, 5)) console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.file}`);
  const failed = results.filter((r) => r.outcome !== 'pass');
  if (failed.length > 0) {
    console.log(`\n${failed.length} file(s) failed:`);
    for (const r of failed) {
      const why = { ceiling: 'OVER CEILING', skipped: 'skipped or todo tests', fail: 'failed' }[r.outcome];
      console.log(`  ${why}  ${r.file}`);
    }
    process.exit(1);
  }
}
