/**
 * Runs the deterministic simulator (docs/simulation.md) over many seeds.
 *
 *   npm run sim -- --seeds 1000            seeds 1..1000, 500 steps each
 *   npm run sim -- --seed 42 --steps 2000  one seed, e.g. to reproduce a failure
 *   npm run sim -- --seeds 100 --from 5000 seeds 5000..5099
 *
 * A failing seed prints itself with the command that reproduces it, and the exit code is 1.
 */
import { SimFailure, type SimReport, Simulator } from '../packages/testing/src/sim/index.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`--${name} needs a whole number, received ${process.argv[at + 1]}`);
    process.exit(2);
  }
  return value;
}

const single = process.argv.includes('--seed');
const from = single ? option('seed', 1) : option('from', 1);
const seeds = single ? 1 : option('seeds', 100);
const steps = option('steps', 500);

const totals = { steps: 0, commands: 0, refused: 0, orders: 0, events: 0, crashes: 0, calm: 0 };
const faults: Record<string, number> = {};
const failures: SimFailure[] = [];
const started = process.hrtime.bigint();
for (let seed = from; seed < from + seeds; seed++) {
  let report: SimReport;
  try {
    report = Simulator.run({ seed, steps });
  } catch (error) {
    if (!(error instanceof SimFailure)) throw error;
    failures.push(error);
    console.error(error.message);
    continue;
  }
  totals.steps += report.steps;
  totals.commands += report.commands;
  totals.refused += report.refused;
  totals.orders += report.orders;
  totals.events += report.events;
  totals.crashes += report.crashes;
  const faultCount = Object.values(report.faults).reduce((a, b) => a + b, 0);
  if (faultCount === 0) totals.calm += 1;
  for (const [kind, count] of Object.entries(report.faults)) faults[kind] = (faults[kind] ?? 0) + count;
  if (single) console.error(JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? `${v}` : v), 2));
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.error(
  `${seeds - failures.length}/${seeds} seeds passed (${totals.calm} calm) in ${seconds.toFixed(1)} s: ` +
    `${totals.steps} steps, ${totals.commands} commands applied, ${totals.refused} refused, ` +
    `${totals.orders} orders, ${totals.events} order events, ${totals.crashes} crashes recovered`,
);
console.error(
  `faults: ${Object.entries(faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`,
);
if (failures.length > 0) {
  console.error(`failing seeds: ${failures.map((f) => f.seed).join(' ')}`);
  process.exit(1);
}
