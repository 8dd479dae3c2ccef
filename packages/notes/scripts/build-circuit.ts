/**
 * Builds the VALID_INPUT circuit and runs a DEVELOPMENT trusted setup (docs/notes.md section 6).
 *
 *   node --import tsx packages/notes/scripts/build-circuit.ts [--fresh-ptau]
 *
 * Run it from the repository root: circom2 is a WebAssembly build that only sees files below its
 * working folder, and the circuit includes circomlib from node_modules.
 *
 * Steps: compile with circom2 (--O2, so linear constraints disappear and the circuit fits 2^13);
 * powers of tau at power 13 (one random contribution and a beacon, then `prepare phase2`, which
 * takes minutes: its result is cached in $NOTES_BUILD_DIR, default <tmpdir>/venue-notes-build, and
 * reused unless --fresh-ptau);
 * a Groth16 key with one random contribution and a beacon; export of the verification key. The
 * runtime artifacts (witness wasm and its loader, proving key, verification key) go to
 * packages/notes/artifacts/ and their sha256 to src/artifacts-pinned.ts.
 *
 * Every contribution here comes from one machine, so whoever ran it could forge proofs: these keys
 * are for development and tests only. A production key needs a multi-party ceremony.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as snarkjs from 'snarkjs';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
/** Intermediate files (r1cs, ptau, zkeys): outside the repository, so nothing there is linted or committed. */
const BUILD = process.env['NOTES_BUILD_DIR'] ?? join(tmpdir(), 'venue-notes-build');
const ARTIFACTS = join(PACKAGE, 'artifacts');
const CIRCUIT = 'packages/notes/circuits/valid_input.circom';
const POWER = 13;
/** Public, fixed beacon value; a real ceremony would take it from a future public event. */
const BEACON = '0000000000000000000000000000000000000000000000000000000000000000000000000000000a';

const logger: snarkjs.Logger = {
  info: (m) => process.stderr.write(`  ${m}\n`),
  warn: (m) => process.stderr.write(`  warn: ${m}\n`),
  error: (m) => process.stderr.write(`  error: ${m}\n`),
  debug: () => undefined,
};

function step(title: string): () => void {
  const start = Date.now();
  process.stderr.write(`> ${title}\n`);
  return () => process.stderr.write(`  done in ${((Date.now() - start) / 1000).toFixed(1)} s\n`);
}

function entropy(): string {
  return randomBytes(32).toString('hex');
}

function compile(): void {
  const done = step('compile the circuit with circom2');
  const cli = join(ROOT, 'node_modules', 'circom2', 'cli.js');
  const args = [cli, CIRCUIT, '--r1cs', '--wasm', '--O2', '-o', BUILD, '-l', 'node_modules'];
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`circom2 failed with status ${result.status}`);
  done();
}

async function powersOfTau(fresh: boolean): Promise<string> {
  const final = join(BUILD, `pot${POWER}_final.ptau`);
  if (!fresh && existsSync(final)) {
    process.stderr.write(`> reuse ${final} (pass --fresh-ptau to redo it)\n`);
    return final;
  }
  const curve = await snarkjs.curves.getCurveFromName('bn128');
  let done = step(`powers of tau, power ${POWER}`);
  await snarkjs.powersOfTau.newAccumulator(curve, POWER, join(BUILD, 'pot_0.ptau'), logger);
  await snarkjs.powersOfTau.contribute(
    join(BUILD, 'pot_0.ptau'),
    join(BUILD, 'pot_1.ptau'),
    'venue development contribution',
    entropy(),
    logger,
  );
  await snarkjs.powersOfTau.beacon(
    join(BUILD, 'pot_1.ptau'),
    join(BUILD, 'pot_beacon.ptau'),
    'venue development beacon',
    BEACON,
    10,
    logger,
  );
  done();
  done = step('prepare phase 2 (slow: a few minutes)');
  await snarkjs.powersOfTau.preparePhase2(join(BUILD, 'pot_beacon.ptau'), final, logger);
  done();
  return final;
}

async function groth16Key(ptau: string): Promise<void> {
  const done = step('Groth16 key for VALID_INPUT');
  const r1cs = join(BUILD, 'valid_input.r1cs');
  await snarkjs.zKey.newZKey(r1cs, ptau, join(BUILD, 'valid_input_0.zkey'), logger);
  await snarkjs.zKey.contribute(
    join(BUILD, 'valid_input_0.zkey'),
    join(BUILD, 'valid_input_1.zkey'),
    'venue development contribution',
    entropy(),
    logger,
  );
  await snarkjs.zKey.beacon(
    join(BUILD, 'valid_input_1.zkey'),
    join(BUILD, 'valid_input.zkey'),
    'venue development beacon',
    BEACON,
    10,
    logger,
  );
  const vkey = await snarkjs.zKey.exportVerificationKey(join(BUILD, 'valid_input.zkey'), logger);
  writeFileSync(join(ARTIFACTS, 'valid_input.vkey.json'), `${JSON.stringify(vkey, null, 2)}\n`);
  done();
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function pin(): void {
  copyFileSync(join(BUILD, 'valid_input_js', 'valid_input.wasm'), join(ARTIFACTS, 'valid_input.wasm'));
  // circom's JavaScript glue for the wasm, CommonJS: .cjs so that this ESM package can require it.
  copyFileSync(
    join(BUILD, 'valid_input_js', 'witness_calculator.js'),
    join(ARTIFACTS, 'witness_calculator.cjs'),
  );
  copyFileSync(join(BUILD, 'valid_input.zkey'), join(ARTIFACTS, 'valid_input.zkey'));
  const pins = {
    wasm: sha256(join(ARTIFACTS, 'valid_input.wasm')),
    witnessCalculator: sha256(join(ARTIFACTS, 'witness_calculator.cjs')),
    zkey: sha256(join(ARTIFACTS, 'valid_input.zkey')),
    vkey: sha256(join(ARTIFACTS, 'valid_input.vkey.json')),
  };
  const source = `/**
 * sha256 of the committed VALID_INPUT artifacts. Written by scripts/build-circuit.ts together with
 * the artifacts themselves; the loader refuses a file whose hash differs, and a test checks them.
 */
export const ARTIFACT_SHA256 = {
  /** artifacts/valid_input.wasm: the witness generator. */
  wasm: '${pins.wasm}',
  /** artifacts/witness_calculator.cjs: circom's loader for that wasm. */
  witnessCalculator: '${pins.witnessCalculator}',
  /** artifacts/valid_input.zkey: the development proving key. */
  zkey: '${pins.zkey}',
  /** artifacts/valid_input.vkey.json: the verification key. */
  vkey: '${pins.vkey}',
} as const;
`;
  writeFileSync(join(PACKAGE, 'src', 'artifacts-pinned.ts'), source);
  process.stderr.write(`> pinned ${JSON.stringify(pins, null, 2)}\n`);
}

const fresh = process.argv.includes('--fresh-ptau');
mkdirSync(BUILD, { recursive: true });
mkdirSync(ARTIFACTS, { recursive: true });
compile();
await groth16Key(await powersOfTau(fresh));
pin();
// snarkjs keeps the curve's worker threads alive; this script is done.
process.exit(0);
