/**
 * Builds one circuit and runs a DEVELOPMENT trusted setup (docs/notes.md sections 6 and 10.5).
 *
 *   node --import tsx packages/notes/scripts/build-circuit.ts [valid_input | valid_match | valid_match_wide | valid_spend] [--fresh-ptau]
 *
 * The circuit defaults to valid_input. Each circuit has its own power of tau (CIRCUITS below); the
 * prepared ptau of each power is cached and shared.
 *
 * Run it from the repository root: circom2 is a WebAssembly build that only sees files below its
 * working folder, and the circuit includes circomlib from node_modules.
 *
 * Steps: compile with circom2 (--O2, so linear constraints disappear); powers of tau at the
 * circuit's power (one random contribution and a beacon, then `prepare phase2`, which
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
import { ARTIFACT_SHA256 } from '../src/artifacts-pinned.ts';

type PinName = keyof typeof ARTIFACT_SHA256;

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '..', '..');
/** Intermediate files (r1cs, ptau, zkeys): outside the repository, so nothing there is linted or committed. */
const BUILD = process.env['NOTES_BUILD_DIR'] ?? join(tmpdir(), 'venue-notes-build');
const ARTIFACTS = join(PACKAGE, 'artifacts');

/** What each circuit is built from, its power of tau, and the pin names of its artifacts. */
const CIRCUITS = {
  // 5,953 constraints: 2^13.
  valid_input: { power: 13, wasm: 'wasm', zkey: 'zkey', vkey: 'vkey' },
  // 4,654 constraints would fit 2^13; 2^14 leaves room for more fill slots without a new phase 1.
  valid_match: { power: 14, wasm: 'matchWasm', zkey: 'matchZkey', vkey: 'matchVkey' },
  // Sixteen fill slots; measured constraints in docs/notes.md section 10.2, within 2^14 too.
  valid_match_wide: { power: 14, wasm: 'matchWideWasm', zkey: 'matchWideZkey', vkey: 'matchWideVkey' },
  // Withdraw and merge, 8 input slots: 8,203 constraints, the same power (and cached phase 1) again.
  valid_spend: { power: 14, wasm: 'spendWasm', zkey: 'spendZkey', vkey: 'spendVkey' },
} as const satisfies Record<string, { power: number; wasm: PinName; zkey: PinName; vkey: PinName }>;
type CircuitName = keyof typeof CIRCUITS;
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

function compile(name: CircuitName): void {
  const done = step(`compile ${name} with circom2`);
  const cli = join(ROOT, 'node_modules', 'circom2', 'cli.js');
  const source = `packages/notes/circuits/${name}.circom`;
  const args = [cli, source, '--r1cs', '--wasm', '--O2', '-o', BUILD, '-l', 'node_modules'];
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`circom2 failed with status ${result.status}`);
  done();
}

async function powersOfTau(power: number, fresh: boolean): Promise<string> {
  const final = join(BUILD, `pot${power}_final.ptau`);
  if (!fresh && existsSync(final)) {
    process.stderr.write(`> reuse ${final} (pass --fresh-ptau to redo it)\n`);
    return final;
  }
  const curve = await snarkjs.curves.getCurveFromName('bn128');
  let done = step(`powers of tau, power ${power}`);
  const file = (stage: string): string => join(BUILD, `pot${power}_${stage}.ptau`);
  await snarkjs.powersOfTau.newAccumulator(curve, power, file('0'), logger);
  await snarkjs.powersOfTau.contribute(
    file('0'),
    file('1'),
    'venue development contribution',
    entropy(),
    logger,
  );
  await snarkjs.powersOfTau.beacon(file('1'), file('beacon'), 'venue development beacon', BEACON, 10, logger);
  done();
  done = step('prepare phase 2 (slow: a few minutes)');
  await snarkjs.powersOfTau.preparePhase2(file('beacon'), final, logger);
  done();
  return final;
}

async function groth16Key(name: CircuitName, ptau: string): Promise<void> {
  const done = step(`Groth16 key for ${name}`);
  const r1cs = join(BUILD, `${name}.r1cs`);
  await snarkjs.zKey.newZKey(r1cs, ptau, join(BUILD, `${name}_0.zkey`), logger);
  await snarkjs.zKey.contribute(
    join(BUILD, `${name}_0.zkey`),
    join(BUILD, `${name}_1.zkey`),
    'venue development contribution',
    entropy(),
    logger,
  );
  await snarkjs.zKey.beacon(
    join(BUILD, `${name}_1.zkey`),
    join(BUILD, `${name}.zkey`),
    'venue development beacon',
    BEACON,
    10,
    logger,
  );
  const vkey = await snarkjs.zKey.exportVerificationKey(join(BUILD, `${name}.zkey`), logger);
  writeFileSync(join(ARTIFACTS, `${name}.vkey.json`), `${JSON.stringify(vkey, null, 2)}\n`);
  done();
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** What each pin says in artifacts-pinned.ts, in the order it is written. */
const PIN_DOCS: Record<PinName, string> = {
  wasm: 'artifacts/valid_input.wasm: the VALID_INPUT witness generator.',
  witnessCalculator: "artifacts/witness_calculator.cjs: circom's loader for either wasm (the same file).",
  zkey: 'artifacts/valid_input.zkey: the VALID_INPUT development proving key.',
  vkey: 'artifacts/valid_input.vkey.json: the VALID_INPUT verification key.',
  matchWasm: 'artifacts/valid_match.wasm: the VALID_MATCH witness generator.',
  matchZkey: 'artifacts/valid_match.zkey: the VALID_MATCH development proving key.',
  matchVkey: 'artifacts/valid_match.vkey.json: the VALID_MATCH verification key.',
  matchWideWasm: 'artifacts/valid_match_wide.wasm: the VALID_MATCH_WIDE witness generator.',
  matchWideZkey: 'artifacts/valid_match_wide.zkey: the VALID_MATCH_WIDE development proving key.',
  matchWideVkey: 'artifacts/valid_match_wide.vkey.json: the VALID_MATCH_WIDE verification key.',
  spendWasm: 'artifacts/valid_spend.wasm: the VALID_SPEND witness generator.',
  spendZkey: 'artifacts/valid_spend.zkey: the VALID_SPEND development proving key.',
  spendVkey: 'artifacts/valid_spend.vkey.json: the VALID_SPEND verification key.',
  poseidonWasm: "artifacts/poseidon.wasm: circomlib's Poseidon, prebuilt (scripts/build-poseidon-wasm.ts).",
};

/** Copies the circuit's runtime artifacts in and rewrites every pin (the other circuit's unchanged). */
function pin(name: CircuitName): void {
  const names = CIRCUITS[name];
  copyFileSync(join(BUILD, `${name}_js`, `${name}.wasm`), join(ARTIFACTS, `${name}.wasm`));
  // circom's JavaScript glue for the wasm, CommonJS: .cjs so that this ESM package can require it.
  copyFileSync(join(BUILD, `${name}_js`, 'witness_calculator.js'), join(ARTIFACTS, 'witness_calculator.cjs'));
  copyFileSync(join(BUILD, `${name}.zkey`), join(ARTIFACTS, `${name}.zkey`));
  const pins: Record<PinName, string> = { ...ARTIFACT_SHA256 };
  pins[names.wasm] = sha256(join(ARTIFACTS, `${name}.wasm`));
  pins.witnessCalculator = sha256(join(ARTIFACTS, 'witness_calculator.cjs'));
  pins[names.zkey] = sha256(join(ARTIFACTS, `${name}.zkey`));
  pins[names.vkey] = sha256(join(ARTIFACTS, `${name}.vkey.json`));
  const lines = (Object.keys(PIN_DOCS) as PinName[]).map(
    (key) => `  /** ${PIN_DOCS[key]} */\n  ${key}: '${pins[key]}',`,
  );
  const source = `/**
 * sha256 of the committed circuit artifacts. Written by scripts/build-circuit.ts together with the
 * artifacts themselves; the loader refuses a file whose hash differs, and a test checks them.
 */
export const ARTIFACT_SHA256 = {
${lines.join('\n')}
} as const;
`;
  writeFileSync(join(PACKAGE, 'src', 'artifacts-pinned.ts'), source);
  process.stderr.write(`> pinned ${JSON.stringify(pins, null, 2)}\n`);
}

const requested = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? 'valid_input';
if (!(requested in CIRCUITS))
  throw new Error(`unknown circuit ${requested}: ${Object.keys(CIRCUITS).join(', ')}`);
const circuit = requested as CircuitName;
const fresh = process.argv.includes('--fresh-ptau');
mkdirSync(BUILD, { recursive: true });
mkdirSync(ARTIFACTS, { recursive: true });
compile(circuit);
await groth16Key(circuit, await powersOfTau(CIRCUITS[circuit].power, fresh));
pin(circuit);
// snarkjs keeps the curve's worker threads alive; this script is done.
process.exit(0);
