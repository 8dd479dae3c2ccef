/**
 * VALID_MATCH proving and verification with no venue around it (issue 19): the raw throughput the
 * settlement pipeline will be compared with.
 *
 * A leg is one order's part in a batch (one proof); a match pairs a bid's leg and an ask's, so
 * matches/s is legs/s / 2. The sample batch (notes sampleMatchBatch) fills each bid once against
 * its own ask.
 *
 * Baseline: snarkjs.groth16.fullProve of the same circuit, one leg after another, the way a caller
 * without a warm witness would prove (it reloads the witness WebAssembly and the proving key from
 * disk on every call, on snarkjs's default multi-threaded curve).
 *
 * Measured, each against that baseline:
 * - prover_1_worker / prover_2_workers: MatchProver with 1 and 2 worker threads (warm witness,
 *   one single-threaded curve per worker), matches/s;
 * - batch_ms_LEGS: wall time to prove one batch of LEGS legs on 2 workers (latency against size,
 *   one batch per size: each costs seconds);
 * - verify_batch_per_leg: MatchVerifier.verifyBatch per leg (batched pairing check plus the fill
 *   pairing rule), against snarkjs.groth16.verify one proof at a time.
 */
import assert from 'node:assert/strict';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  artifactPath,
  createMatchProver,
  createMatchVerifier,
  decodeProof,
  loadNoteHasher,
  loadVerificationKey,
  type MatchProof,
  type MatchProver,
  matchCircuitInput,
  matchPublicInputs,
  sampleMatchBatch,
  settleLeg,
  snarkjsOfCoordinates,
} from '@venue/notes';
import * as snarkjs from 'snarkjs';
import { type Figure, figure, summarise } from './harness.ts';

const BENCH = 'match-prover';
/** The development VM's cores, for the idle-machine figure derived from CPU time. */
const CORES = 2;

async function baselineRates(legs: number): Promise<{ legsPerSecond: number; cpuMsPerLeg: number }> {
  const hasher = await loadNoteHasher();
  const sample = sampleMatchBatch(hasher, Math.ceil(legs / 2));
  const wasm = artifactPath('matchWasm');
  const zkey = artifactPath('matchZkey');
  const inputs = sample.legs
    .slice(0, legs)
    .map((leg) => matchCircuitInput(sample.header, leg, settleLeg(hasher, sample.header, leg).statement));
  // snarkjs types its input as a plain record; the spread gives it one.
  const [first] = inputs;
  if (first !== undefined) await snarkjs.groth16.fullProve({ ...first }, wasm, zkey); // warm-up: the curve's threads start
  const start = performance.now();
  const cpu = process.cpuUsage();
  for (const input of inputs) await snarkjs.groth16.fullProve({ ...input }, wasm, zkey);
  return {
    legsPerSecond: (inputs.length * 1000) / (performance.now() - start),
    cpuMsPerLeg: cpuMsSince(cpu) / inputs.length,
  };
}

/** Legs proved per second of wall time, and CPU milliseconds per leg (every thread of the process). */
interface Rates {
  readonly legsPerSecond: number[];
  readonly cpuMsPerLeg: number[];
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

async function proverRates(prover: MatchProver, workers: number, legs: number, runs: number): Promise<Rates> {
  const hasher = await loadNoteHasher();
  const warm = sampleMatchBatch(hasher, workers);
  await prover.proveBatch(warm.header, warm.legs);
  const legsPerSecond: number[] = [];
  const cpuMsPerLeg: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const sample = sampleMatchBatch(hasher, Math.ceil(legs / 2), BigInt(run + 2));
    const start = performance.now();
    const cpu = process.cpuUsage();
    await prover.proveBatch(sample.header, sample.legs);
    legsPerSecond.push((sample.legs.length * 1000) / (performance.now() - start));
    cpuMsPerLeg.push(cpuMsSince(cpu) / sample.legs.length);
  }
  return { legsPerSecond, cpuMsPerLeg };
}

async function batchLatencies(prover: MatchProver, sizes: readonly number[]): Promise<Map<number, number>> {
  const hasher = await loadNoteHasher();
  const latencies = new Map<number, number>();
  for (const size of sizes) {
    const sample = sampleMatchBatch(hasher, size / 2, BigInt(size));
    const start = performance.now();
    await prover.proveBatch(sample.header, sample.legs);
    latencies.set(size, performance.now() - start);
  }
  return latencies;
}

async function verifyFigures(proofs: readonly MatchProof[], runs: number): Promise<Figure> {
  const vkey = await loadVerificationKey('matchVkey');
  const signals = proofs.map((p) => matchPublicInputs(p.statement).map(String));
  const objects = proofs.map((p) => snarkjsOfCoordinates(decodeProof(p.proof)));
  const baseline: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = performance.now();
    for (const [i, proof] of objects.entries()) {
      if (!(await snarkjs.groth16.verify(vkey, signals[i] ?? [], proof))) {
        throw new Error('baseline refused an honest proof');
      }
    }
    baseline.push((performance.now() - start) / proofs.length);
  }
  const verifier = await createMatchVerifier();
  const ours: number[] = [];
  try {
    for (let run = 0; run < runs; run += 1) {
      const start = performance.now();
      const verdict = await verifier.verifyBatch(proofs);
      if (!verdict.ok) throw new Error(`honest batch refused: ${verdict.message}`);
      ours.push((performance.now() - start) / proofs.length);
    }
  } finally {
    await verifier.close();
  }
  return figure(BENCH, `verify_batch_${proofs.length}_legs_per_leg`, 'ms', 'lower', summarise(ours), {
    name: 'snarkjs.groth16.verify one at a time',
    value: Math.round(summarise(baseline).median * 100) / 100,
  });
}

export async function run(quick: boolean): Promise<Figure[]> {
  const legs = quick ? 2 : 8;
  const runs = quick ? 1 : 2;
  // Proving takes whole cores: on a shared machine the load says how much of them we had.
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  process.stderr.write(`match-prover: load average ${load()}\n`);
  process.stderr.write(`match-prover: baseline, snarkjs fullProve of ${legs} legs\n`);
  const base = await baselineRates(legs);
  // Stop snarkjs's shared curve (its helper threads) before the pool starts: the process aborted
  // twice with a corrupted heap when both ran side by side (docs/notes.md section 11).
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
  const baseline = {
    name: 'snarkjs.groth16.fullProve',
    value: Math.round((base.legsPerSecond / 2) * 100) / 100,
  };
  const baselineCpu = { name: 'snarkjs.groth16.fullProve', value: Math.round(base.cpuMsPerLeg * 2) };
  const baselineCeiling = {
    name: 'snarkjs.groth16.fullProve',
    value: Math.round((CORES * 1000 * 100) / (base.cpuMsPerLeg * 2)) / 100,
  };
  const figures: Figure[] = [];
  // One pool per worker count, reused for every figure it gives: starting and stopping pools
  // repeatedly is where the heap corruption of docs/notes.md section 11 showed up.
  let prover: MatchProver | null = null;
  for (const workers of [1, 2]) {
    process.stderr.write(`match-prover: MatchProver, ${workers} worker(s), ${legs} legs x ${runs}\n`);
    await prover?.close();
    prover = createMatchProver({ workers });
    await prover.ready();
    const rates = await proverRates(prover, workers, legs, runs);
    const name = `prover_${workers}_worker${workers === 1 ? '' : 's'}`;
    const matchesPerSecond = rates.legsPerSecond.map((perSecond) => perSecond / 2);
    figures.push(figure(BENCH, name, 'matches/s', 'higher', summarise(matchesPerSecond), baseline));
    // CPU time per match does not depend on how busy the shared machine is; two idle cores would
    // prove CORES x 1000 / (CPU ms per match) matches per second.
    const cpuPerMatch = rates.cpuMsPerLeg.map((ms) => ms * 2);
    figures.push(
      figure(BENCH, `${name}_cpu_ms_per_match`, 'ms', 'lower', summarise(cpuPerMatch), baselineCpu),
    );
    if (workers === 2) {
      const ceiling = summarise(cpuPerMatch.map((ms) => (CORES * 1000) / ms));
      figures.push(
        figure(BENCH, 'prover_idle_2_cores_matches_per_s', 'matches/s', 'higher', ceiling, baselineCeiling),
      );
    }
  }
  const sizes = quick ? [2] : [2, 8, 16];
  process.stderr.write(`match-prover: batch latency for ${sizes.join(', ')} legs on 2 workers\n`);
  assert(prover !== null, 'the two-worker pool is running');
  for (const [size, ms] of await batchLatencies(prover, sizes)) {
    figures.push(figure(BENCH, `batch_ms_${size}_legs`, 'ms', 'lower', summarise([ms]), null));
  }
  process.stderr.write('match-prover: verification\n');
  const sample = sampleMatchBatch(await loadNoteHasher(), quick ? 1 : 8);
  const proofs = await prover.proveBatch(sample.header, sample.legs);
  await prover.close();
  figures.push(await verifyFigures(proofs, quick ? 1 : 5));
  process.stderr.write(`match-prover: load average ${load()}\n`);
  // snarkjs's shared curve keeps helper threads: stop them so the run ends.
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
  return figures;
}

// Run directly (node --import tsx bench/match-prover.ts): same output as through scripts/bench.ts.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { report } = await import('./harness.ts');
  report(await run(process.argv.includes('--quick')));
}
