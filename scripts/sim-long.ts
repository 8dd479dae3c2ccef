/**
 * The long run of the deterministic simulator (docs/simulation.md): seeds from a random start,
 * one after the other, until the time is up. Not part of CI; run it on a spare machine overnight.
 *
 *   npm run sim:long                      30 minutes, 500 steps per seed
 *   npm run sim:long -- --minutes 240     four hours
 *   npm run sim:long -- --steps 2000      longer seeds
 *   npm run sim:long -- --from 123456     a chosen start (the default is random)
 *
 * Progress goes to stderr once a minute. The first failing seed stops the run: it prints the seed
 * and the command that reproduces it exactly, and the exit code is 1. The wall clock and the random
 * start are used here only, to choose which seeds run; each seed is deterministic on its own.
 */
import { randomInt } from 'node:crypto';
import { SimFailure, SimTotals, Simulator } from '../packages/testing/src/sim/index.ts';

/** Seeds are u32 (SimRandom's state); a start leaves room for a long run before wrapping. */
const SEED_START_MAX = 2 ** 32 - 10_000_000;
const PROGRESS_INTERVAL_MS = 60_000;

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value <= 0) {
    console.error(`--${name} needs a positive whole number, received ${process.argv[at + 1]}`);
    process.exit(2);
  }
  return value;
}

const minutes = option('minutes', 30);
const steps = option('steps', 500);
const from = option('from', randomInt(1, SEED_START_MAX));
const deadline = Date.now() + minutes * 60_000;
const totals = new SimTotals();
let nextProgress = Date.now() + PROGRESS_INTERVAL_MS;

console.error(`sim:long: seeds from ${from}, ${steps} steps each, for ${minutes} min`);
let seed = from;
for (; Date.now() < deadline; seed++) {
  try {
    totals.add(await Simulator.run({ seed, steps }));
  } catch (error) {
    if (!(error instanceof SimFailure)) throw error;
    console.error(error.message);
    console.error(`sim:long: failed after ${totals.seeds} clean seeds (${from}..${seed - 1})`);
    process.exit(1);
  }
  if (Date.now() >= nextProgress) {
    nextProgress += PROGRESS_INTERVAL_MS;
    console.error(
      `sim:long: ${totals.seeds} seeds clean (up to ${seed}), ${totals.crashes} crashes recovered`,
    );
  }
}
console.error(`sim:long: ${totals.seeds} seeds clean (${from}..${seed - 1})`);
for (const line of totals.summary()) console.error(line);
