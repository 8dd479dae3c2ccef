/**
 * Measures the two inclusion designs of VALID_MATCH on this machine (docs/notes.md section 10.2):
 *
 *   node --import tsx packages/notes/scripts/measure-match-designs.ts [legs]
 *
 * - public input commitment: circuits/valid_match.circom (what is deployed), the chain checks the
 *   commitment is a leaf;
 * - in-circuit inclusion: circuits/prototypes/valid_match_inclusion.circom, the same leg proved a
 *   leaf of a depth-20 tree under a public root.
 * Each is compiled, given a throwaway Groth16 key over the cached power-14 ptau of build-circuit.ts
 * (no contribution: for timing only, never committed), and proves `legs` legs one after another on
 * one thread the way a match prover worker does (witness WebAssembly and curve kept warm). It
 * prints constraints and milliseconds per leg. Run build-circuit.ts valid_match first (the ptau).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBn128 } from 'ffjavascript';
import * as snarkjs from 'snarkjs';
import {
  loadNoteHasher,
  type MatchCircuitInput,
  matchCircuitInput,
  NOTE_TREE_DEPTH,
  randomFieldElement,
  rootFromPath,
  sampleMatchBatch,
  settleLeg,
} from '../src/index.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
const BUILD = join(process.env['NOTES_BUILD_DIR'] ?? join(tmpdir(), 'venue-notes-build'), 'designs');
const PTAU = join(BUILD, '..', 'pot14_final.ptau');
const LEGS = Number(process.argv[2] ?? 8);

interface Design {
  readonly name: string;
  readonly source: string;
  readonly inclusion: boolean;
}

const DESIGNS: readonly Design[] = [
  { name: 'valid_match', source: 'packages/notes/circuits/valid_match.circom', inclusion: false },
  {
    name: 'valid_match_inclusion',
    source: 'packages/notes/circuits/prototypes/valid_match_inclusion.circom',
    inclusion: true,
  },
];

interface WitnessCalculator {
  calculateWTNSBin(input: object, sanityCheck: boolean): Promise<Uint8Array>;
}

async function measure(design: Design): Promise<void> {
  const cli = join(ROOT, 'node_modules', 'circom2', 'cli.js');
  const args = [cli, design.source, '--r1cs', '--wasm', '--O2', '-o', BUILD, '-l', 'node_modules'];
  if (spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'ignore' }).status !== 0) {
    throw new Error(`circom2 failed on ${design.source}`);
  }
  const r1cs = join(BUILD, `${design.name}.r1cs`);
  const info = await snarkjs.r1cs.info(r1cs);
  const zkeyPath = join(BUILD, `${design.name}.zkey`);
  await snarkjs.zKey.newZKey(r1cs, PTAU, zkeyPath);
  const zkey = readFileSync(zkeyPath);
  const builder = createRequire(import.meta.url)(
    join(BUILD, `${design.name}_js`, 'witness_calculator.js'),
  ) as (code: Uint8Array) => Promise<WitnessCalculator>;
  const witnesses = await builder(readFileSync(join(BUILD, `${design.name}_js`, `${design.name}.wasm`)));
  const hasher = await loadNoteHasher();
  const sample = sampleMatchBatch(hasher, Math.ceil((LEGS + 1) / 2));
  const inputs = sample.legs.map((leg) => {
    const base = matchCircuitInput(sample.header, leg, settleLeg(hasher, sample.header, leg).statement);
    return design.inclusion ? withPath(hasher, base) : base;
  });
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (const input of inputs) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const witness = await witnesses.calculateWTNSBin(input, true);
    await snarkjs.groth16.prove({ type: 'mem', data: zkey }, { type: 'mem', data: witness });
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  // The first proof warms the curve. CPU time is what a loaded, shared machine does not distort.
  const median = (values: number[]): number =>
    values.slice(1).sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
  process.stdout.write(
    `${JSON.stringify({ design: design.name, constraints: info.nConstraints, legs: times.length - 1, ms_per_leg_p50: Math.round(median(times)), cpu_ms_per_leg_p50: Math.round(median(cpuTimes)) })}\n`,
  );
}

/** The prototype's extra inputs: a random path of the tree depth, and its root as the anchor. */
function withPath(hasher: Awaited<ReturnType<typeof loadNoteHasher>>, input: MatchCircuitInput): object {
  const siblings = Array.from({ length: NOTE_TREE_DEPTH }, randomFieldElement);
  const pathBits = Array.from({ length: NOTE_TREE_DEPTH }, (_, i) => i % 3 === 0);
  const leafIndex = pathBits.reduce((index, bit, i) => index + (bit ? 2 ** i : 0), 0);
  const root = rootFromPath(hasher, input.input_anchor, { leafIndex, siblings, pathBits });
  return {
    ...input,
    input_anchor: root,
    path_siblings: siblings,
    path_bits: pathBits.map((bit) => (bit ? 1n : 0n)),
  };
}

if (!existsSync(PTAU)) throw new Error(`no ${PTAU}: run build-circuit.ts valid_match first`);
mkdirSync(BUILD, { recursive: true });
// One warm single-threaded curve, as in a prover worker (match-prove-worker.ts).
(globalThis as { curve_bn128?: unknown }).curve_bn128 = await buildBn128(true);
for (const design of DESIGNS) await measure(design);
process.exit(0);
