/**
 * Runs the deterministic simulator (docs/simulation.md) over many seeds.
 *
 *   npm run sim -- --seeds 1000            seeds 1..1000, 500 steps each
 *   npm run sim -- --seed 42 --steps 2000  one seed, e.g. to reproduce a failure
 *   npm run sim -- --seeds 100 --from 5000 seeds 5000..5099
 *   npm run sim -- --seeds 20 --poseidon   with the real Poseidon note hash (slower)
 *   npm run sim -- --seed 7 --circuit      the real VALID_MATCH circuit (Poseidon; seconds per leg)
 *
 * A failing seed prints itself with the command that reproduces it, and the exit code is 1.
 */
import { SimFailure, SimTotals, Simulator } from '../packages/testing/src/sim/index.ts';

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
const circuit = process.argv.includes('--circuit');
const hasher = circuit || process.argv.includes('--poseidon') ? 'poseidon' : 'sha256';
const proofs = circuit ? 'groth16' : 'stand-in';

const totals = new SimTotals();
const failures: SimFailure[] = [];
const started = process.hrtime.bigint();
for (let seed = from; seed < from + seeds; seed++) {
  try {
    const report = await Simulator.run({ seed, steps, hasher, proofs });
    totals.add(report);
    if (single) console.error(JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? `${v}` : v), 2));
  } catch (error) {
    if (!(error instanceof SimFailure)) throw error;
    failures.push(error);
    console.error(error.message);
  }
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.error(`${seeds - failures.length}/${seeds} seeds passed in ${seconds.toFixed(1)} s`);
for (const line of totals.summary()) console.error(line);
if (failures.length > 0) {
  console.error(`failing seeds: ${failures.map((f) => f.seed).join(' ')}`);
  process.exit(1);
}
