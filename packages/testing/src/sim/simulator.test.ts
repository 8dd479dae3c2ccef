/**
 * The simulator in the test suite: a fixed set of seeds, calm and stormy, each a few hundred steps
 * with every invariant checked after every step (docs/simulation.md). Longer runs:
 * `npm run sim -- --seeds 1000`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SimFailure, Simulator } from './simulator.ts';

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 42, 1337];
const STEPS = 400;

test('fixed seeds run clean: invariants after every step, replay and crash recovery agree', () => {
  let faults = 0;
  let crashes = 0;
  for (const seed of SEEDS) {
    const report = Simulator.run({ seed, steps: STEPS });
    assert.ok(report.orders > 0 && report.events > 0, `seed ${seed} traded`);
    faults += Object.values(report.faults).reduce((a, b) => a + b, 0);
    crashes += report.crashes;
  }
  assert.ok(faults > 0, 'the fixed set includes stormy seeds');
  assert.ok(crashes > 0, 'the fixed set includes a crash and its recovery');
});

test('a seed reproduces exactly: two runs end in the same state hash', () => {
  const first = Simulator.run({ seed: 99, steps: 300 });
  const second = Simulator.run({ seed: 99, steps: 300 });
  assert.deepEqual(second, first);
});

test('a failure names its seed and how to reproduce it', () => {
  const failure = new SimFailure(5, 17, new Error('boom'), 400);
  assert.match(failure.message, /seed 5 failed at step 17: Error: boom/);
  assert.match(failure.message, /npm run sim -- --seed 5 --steps 400/);
});
