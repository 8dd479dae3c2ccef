/**
 * VALID_MATCH proving and verification with no venue around it (issue 19): the raw throughput the
 * settlement pipeline will be compared with.
 *
 * A leg is one order's part in a batch (one proof); a match pairs a bid's leg and an ask's, so
 * matches/s is legs/s / 2. The sample batch (notes sampleMatchBatch) fills each bid once against
 * its own ask; the wide legs are bids of 16 fills each (the wide circuit, docs/notes.md 10.2).
 *
 * Baseline: snarkjs.groth16.fullProve of the same circuit, one leg after another, the way a caller
 * without a warm witness would prove (it reloads the witness WebAssembly and the proving key from
 * disk on every call, on snarkjs's default multi-threaded curve).
 *
 * Measured, each against that baseline:
 * - constraints_w4 / constraints_w16: the committed proving keys' constraint counts (no baseline);
 * - prover_wW_K_worker(s)_legs_per_s, _ms_per_leg, _cpu_ms_per_leg: the raw prover with the circuit
 *   of width W (4 or 16 fill slots) and K = 1 or 2 worker threads (warm witness, one
 *   single-threaded curve per worker): wall-clock legs/s and ms/leg, and CPU time per leg (every
 *   thread of the process), each against fullProve of the same width;
 * - prover_1_worker / prover_2_workers: the narrow figures as matches/s, with CPU per match and what
 *   two idle cores would prove (the figures docs/notes.md 10.8 follows over time);
 * - batch_ms_LEGS: wall time to prove one batch of LEGS legs on 2 workers (latency against size,
 *   one batch per size: each costs seconds);
 * - verify_batch_per_leg: MatchVerifier.verifyBatch per leg (batched pairing check plus the fill
 *   pairing rule), against snarkjs.groth16.verify one proof at a time.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  artifactPath,
  createMatchProver,
  createMatchVerifier,
  decodeProof,
  loadNoteHasher,
  loadVerificationKey,
  MATCH_CIRCUIT_ARTIFACTS,
  MATCH_FILLS_NARROW,
  MATCH_FILLS_WIDE,
  MATCH_WIDTHS,
  type MatchBatchHeader,
  type MatchLeg,
  type MatchProof,
  type MatchProver,
  type MatchWidth,
  matchCircuitInput,
  matchPublicInputs,
  type NoteHasher,
  sampleMatchBatch,
  settleLeg,
  snarkjsOfCoordinates,
} from '@venue/notes';
import * as snarkjs from 'snarkjs';
import { type Figure, figure, summarise } from './harness.ts';

const BENCH = 'match-prover';
/** The development VM's cores, for the idle-machine figure derived from CPU time. */
const CORES = 2;

/** `count` legs that the circuit of `width` proves: 1-fill legs, or bids of 16 fills each. */
function legsOfWidth(
  hasher: NoteHasher,
  width: MatchWidth,
  count: number,
  batchSeq: bigint,
): { header: MatchBatchHeader; legs: MatchLeg[] } {
  if (width === MATCH_FILLS_WIDE) {
    const sample = sampleMatchBatch(hasher, count, batchSeq, MATCH_FILLS_WIDE);
    return { header: sample.header, legs: sample.legs.filter((leg) => leg.side === 'bid') };
  }
  const sample = sampleMatchBatch(hasher, Math.ceil(count / 2), batchSeq);
  return { header: sample.header, legs: sample.legs.slice(0, count) };
}

/**
 * Constraints and domain of a committed proving key, read from its header (section 2) and its
 * coefficients (section 4). snarkjs adds one constraint per public input and one for the constant;
 * the count leaves them out, so it is the circuit's own (circom's "non-linear constraints").
 */
function circuitShape(width: MatchWidth): { constraints: number; domainPower: number } {
  const bytes = readFileSync(artifactPath(MATCH_CIRCUIT_ARTIFACTS[width].zkey));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sections = new Map<number, number>();
  let at = 12; // "zkey", version, section count
  while (at < bytes.length) {
    sections.set(view.getUint32(at, true), at + 12);
    at += 12 + Number(view.getBigUint64(at + 4, true));
  }
  const header = sections.get(2);
  const coefficients = sections.get(4);
  assert(header !== undefined && coefficients !== undefined, 'a Groth16 zkey has sections 2 and 4');
  const n8q = view.getUint32(header, true);
  const n8r = view.getUint32(header + 4 + n8q, true);
  const counts = header + 4 + n8q + 4 + n8r; // nVars, nPublic, domainSize
  const nPublic = view.getUint32(counts + 4, true);
  const domainSize = view.getUint32(counts + 8, true);
  let last = 0;
  const entries = view.getUint32(coefficients, true);
  for (let i = 0; i < entries; i += 1) {
    // Each entry: matrix, constraint, signal (u32 each), then the coefficient.
    last = Math.max(last, view.getUint32(coefficients + 4 + i * (12 + n8r) + 4, true));
  }
  return { constraints: last + 1 - (nPublic + 1), domainPower: Math.log2(domainSize) };
}

/** Samples of one width: legs/s and ms/leg of wall time, CPU ms per leg (every thread of the process). */
interface LegSamples {
  readonly legsPerSecond: number[];
  readonly msPerLeg: number[];
  readonly cpuMsPerLeg: number[];
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** fullProve, one leg after another, each leg one sample, after one warm-up leg. */
async function baselineRates(width: MatchWidth, legs: number): Promise<LegSamples> {
  const hasher = await loadNoteHasher();
  const sample = legsOfWidth(hasher, width, legs + 1, 1n);
  const wasm = artifactPath(MATCH_CIRCUIT_ARTIFACTS[width].wasm);
  const zkey = artifactPath(MATCH_CIRCUIT_ARTIFACTS[width].zkey);
  const [first, ...measured] = sample.legs.map((leg) =>
    matchCircuitInput(sample.header, leg, settleLeg(hasher, sample.header, leg).statement),
  );
  // snarkjs types its input as a plain record; the spread gives it one.
  if (first !== undefined) await snarkjs.groth16.fullProve({ ...first }, wasm, zkey); // the curve's threads start
  const samples: LegSamples = { legsPerSecond: [], msPerLeg: [], cpuMsPerLeg: [] };
  for (const input of measured) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    await snarkjs.groth16.fullProve({ ...input }, wasm, zkey);
    const ms = performance.now() - start;
    samples.legsPerSecond.push(1000 / ms);
    samples.msPerLeg.push(ms);
    samples.cpuMsPerLeg.push(cpuMsSince(cpu));
  }
  return samples;
}

/** The pool proving `legs` legs of one width per run, `runs` times, after one warm-up leg per worker. */
async function proverRates(
  prover: MatchProver,
  width: MatchWidth,
  workers: number,
  legs: number,
  runs: number,
): Promise<LegSamples> {
  const hasher = await loadNoteHasher();
  const warm = legsOfWidth(hasher, width, workers, 100n);
  await prover.proveBatch(warm.header, warm.legs);
  const samples: LegSamples = { legsPerSecond: [], msPerLeg: [], cpuMsPerLeg: [] };
  for (let run = 0; run < runs; run += 1) {
    const sample = legsOfWidth(hasher, width, legs, BigInt(run + 2));
    const start = performance.now();
    const cpu = process.cpuUsage();
    await prover.proveBatch(sample.header, sample.legs);
    const ms = performance.now() - start;
    samples.legsPerSecond.push((sample.legs.length * 1000) / ms);
    samples.msPerLeg.push(ms / sample.legs.length);
    samples.cpuMsPerLeg.push(cpuMsSince(cpu) / sample.legs.length);
  }
  return samples;
}

const rounded = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The raw prover's figures for one width and worker count, each against fullProve of that width. */
function rawFigures(width: MatchWidth, workers: number, ours: LegSamples, base: LegSamples): Figure[] {
  const name = `prover_w${width}_${workers}_worker${workers === 1 ? '' : 's'}`;
  const against = (samples: number[]) => ({
    name: `snarkjs.groth16.fullProve w${width}`,
    value: rounded(summarise(samples).median),
  });
  return [
    figure(
      BENCH,
      `${name}_legs_per_s`,
      'legs/s',
      'higher',
      summarise(ours.legsPerSecond),
      against(base.legsPerSecond),
    ),
    figure(BENCH, `${name}_ms_per_leg`, 'ms', 'lower', summarise(ours.msPerLeg), against(base.msPerLeg)),
    figure(
      BENCH,
      `${name}_cpu_ms_per_leg`,
      'ms',
      'lower',
      summarise(ours.cpuMsPerLeg),
      against(base.cpuMsPerLeg),
    ),
  ];
}

/** The narrow figures as matches (two legs each), as docs/notes.md 10.8 has followed them. */
function matchFigures(workers: number, ours: LegSamples, base: LegSamples): Figure[] {
  const name = `prover_${workers}_worker${workers === 1 ? '' : 's'}`;
  const baseCpuMsPerMatch = summarise(base.cpuMsPerLeg).median * 2;
  const fullProve = (value: number) => ({ name: 'snarkjs.groth16.fullProve', value: rounded(value) });
  const matchesPerSecond = ours.legsPerSecond.map((perSecond) => perSecond / 2);
  // CPU time per match does not depend on how busy the shared machine is; two idle cores would
  // prove CORES x 1000 / (CPU ms per match) matches per second.
  const cpuPerMatch = ours.cpuMsPerLeg.map((ms) => ms * 2);
  const figures = [
    figure(
      BENCH,
      name,
      'matches/s',
      'higher',
      summarise(matchesPerSecond),
      fullProve(summarise(base.legsPerSecond).median / 2),
    ),
    figure(
      BENCH,
      `${name}_cpu_ms_per_match`,
      'ms',
      'lower',
      summarise(cpuPerMatch),
      fullProve(baseCpuMsPerMatch),
    ),
  ];
  if (workers === 2) {
    const ceiling = summarise(cpuPerMatch.map((ms) => (CORES * 1000) / ms));
    figures.push(
      figure(
        BENCH,
        'prover_idle_2_cores_matches_per_s',
        'matches/s',
        'higher',
        ceiling,
        fullProve((CORES * 1000) / baseCpuMsPerMatch),
      ),
    );
  }
  return figures;
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
    value: rounded(summarise(baseline).median),
  });
}

export async function run(quick: boolean): Promise<Figure[]> {
  const legsOf: Record<MatchWidth, number> = quick ? { 4: 2, 16: 2 } : { 4: 8, 16: 4 };
  const runs = quick ? 1 : 2;
  // Proving takes whole cores: on a shared machine the load says how much of them we had.
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  process.stderr.write(`match-prover: load average ${load()}\n`);
  const figures: Figure[] = [];
  for (const width of MATCH_WIDTHS) {
    const shape = circuitShape(width);
    process.stderr.write(
      `match-prover: w${width}: ${shape.constraints} constraints, domain 2^${shape.domainPower}\n`,
    );
    figures.push(
      figure(BENCH, `constraints_w${width}`, 'constraints', 'lower', summarise([shape.constraints]), null),
    );
  }
  const base = new Map<MatchWidth, LegSamples>();
  for (const width of MATCH_WIDTHS) {
    process.stderr.write(
      `match-prover: baseline, snarkjs fullProve of ${legsOf[width]} legs, width ${width}\n`,
    );
    base.set(width, await baselineRates(width, legsOf[width]));
  }
  // Stop snarkjs's shared curve (its helper threads) so that they do not compete with the pool.
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
  // One pool per worker count, reused for both widths.
  let prover: MatchProver | null = null;
  for (const workers of [1, 2]) {
    await prover?.close();
    prover = createMatchProver({ workers });
    await prover.ready();
    for (const width of MATCH_WIDTHS) {
      process.stderr.write(
        `match-prover: MatchProver, ${workers} worker(s), width ${width}, ${legsOf[width]} legs x ${runs}\n`,
      );
      const rates = await proverRates(prover, width, workers, legsOf[width], runs);
      const baseline = base.get(width);
      assert(baseline !== undefined, 'every width has its baseline');
      figures.push(...rawFigures(width, workers, rates, baseline));
      if (width === MATCH_FILLS_NARROW) figures.push(...matchFigures(workers, rates, baseline));
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
  // snarkjs.groth16.verify built its shared curve again, with helper threads: stop them so the run ends.
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
  return figures;
}

// Run directly (node --import tsx bench/match-prover.ts): same output as through scripts/bench.ts.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { report } = await import('./harness.ts');
  report(await run(process.argv.includes('--quick')));
}
