// The committed VALID_INPUT, VALID_MATCH (narrow and wide) and VALID_SPEND artifacts and the
// prebuilt Poseidon module: their bytes are the pinned ones, a drifted file is refused, and each
// verification key, circuit source and public-input list agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_SHA256,
  ArtifactDriftError,
  artifactPath,
  checkPinned,
  loadArtifact,
  loadVerificationKey,
  MATCH_CIRCUIT_ARTIFACTS,
  MATCH_WIDTHS,
  matchPublicInputCount,
  SPEND_INPUTS_MAX,
  sha256Hex,
  VALID_INPUT_PUBLIC_INPUTS,
  VALID_MATCH_PUBLIC_INPUT_COUNT,
  VALID_MATCH_PUBLIC_INPUTS,
  VALID_SPEND_PUBLIC_INPUT_COUNT,
  VALID_SPEND_PUBLIC_INPUTS,
} from '../src/index.ts';

const NAMES = [
  'wasm',
  'witnessCalculator',
  'zkey',
  'vkey',
  'matchWasm',
  'matchZkey',
  'matchVkey',
  'matchWideWasm',
  'matchWideZkey',
  'matchWideVkey',
  'spendWasm',
  'spendZkey',
  'spendVkey',
  'poseidonWasm',
] as const;

test('every committed artifact has its pinned sha256', () => {
  assert.deepEqual(Object.keys(ARTIFACT_SHA256).sort(), [...NAMES].sort());
  for (const name of NAMES) {
    assert.equal(
      sha256Hex(readFileSync(artifactPath(name))),
      ARTIFACT_SHA256[name],
      `${name} drifted from its pin`,
    );
  }
});

test('a file whose bytes changed by one bit is refused', async () => {
  const bytes = await loadArtifact('vkey');
  const tampered = Buffer.from(bytes);
  tampered[10] = (tampered[10] ?? 0) ^ 1;
  assert.throws(() => checkPinned('vkey', tampered), ArtifactDriftError);
  assert.equal(checkPinned('vkey', bytes), bytes);
  assert.throws(() => checkPinned('zkey', bytes), /rebuild with packages\/notes\/scripts\/build-circuit.ts/);
  assert.throws(
    () => checkPinned('poseidonWasm', bytes),
    /rebuild with packages\/notes\/scripts\/build-poseidon-wasm.ts/,
  );
});

test('the verification key is Groth16 on BN254 with one IC point per public input', async () => {
  const vkey = await loadVerificationKey();
  assert.equal(vkey.protocol, 'groth16');
  assert.equal(vkey.curve, 'bn128');
  assert.equal(vkey.nPublic, VALID_INPUT_PUBLIC_INPUTS.length);
  assert.equal(vkey.IC.length, VALID_INPUT_PUBLIC_INPUTS.length + 1);
});

test('the circuit declares the public inputs in VALID_INPUT_PUBLIC_INPUTS order, at tree depth 20', () => {
  const source = readFileSync(
    fileURLToPath(new URL('../circuits/valid_input.circom', import.meta.url)),
    'utf8',
  );
  const main = /component main \{public \[([^\]]*)\]\} = ValidInput\((\d+)\);/.exec(source);
  assert.ok(main, 'the circuit has a main component');
  assert.deepEqual(
    main[1]?.split(',').map((s) => s.trim()),
    [...VALID_INPUT_PUBLIC_INPUTS],
  );
  assert.equal(main[2], '20');
  // snarkjs orders public inputs by declaration: the declarations must follow the same order.
  const body = source.slice(source.indexOf('template ValidInput('));
  const declared = [...body.matchAll(/signal input (\w+);/g)].map((m) => m[1]);
  assert.deepEqual(declared.slice(0, VALID_INPUT_PUBLIC_INPUTS.length), [...VALID_INPUT_PUBLIC_INPUTS]);
});

test('each VALID_MATCH key takes one input per slot of the layout, which its circuit declares in order', async () => {
  assert.equal(VALID_MATCH_PUBLIC_INPUT_COUNT, matchPublicInputCount(4));
  const files = { 4: 'valid_match.circom', 16: 'valid_match_wide.circom' } as const;
  for (const width of MATCH_WIDTHS) {
    const vkey = await loadVerificationKey(MATCH_CIRCUIT_ARTIFACTS[width].vkey);
    assert.equal(vkey.nPublic, matchPublicInputCount(width));
    assert.equal(vkey.IC.length, matchPublicInputCount(width) + 1);
    const main = readFileSync(fileURLToPath(new URL(`../circuits/${files[width]}`, import.meta.url)), 'utf8');
    const listed = /component main \{public \[([^\]]*)\]\} = ValidMatch\((\d+), 0\);/.exec(main);
    assert.ok(listed, 'the circuit has a main component with no in-circuit inclusion');
    assert.equal(listed[2], String(width), `${files[width]} has ${width} fill slots`);
    assert.deepEqual(
      listed[1]?.split(',').map((s) => s.trim()),
      [...VALID_MATCH_PUBLIC_INPUTS],
    );
  }
  const library = readFileSync(
    fileURLToPath(new URL('../circuits/lib/valid_match.circom', import.meta.url)),
    'utf8',
  );
  const body = library.slice(library.indexOf('template ValidMatch('));
  const declared = [...body.matchAll(/signal input (\w+)(?:\[\w+\])?;/g)].map((m) => m[1]);
  assert.deepEqual(declared.slice(0, VALID_MATCH_PUBLIC_INPUTS.length), [...VALID_MATCH_PUBLIC_INPUTS]);
});

test('the VALID_SPEND key takes one input per slot of the layout, which its circuit declares in order', async () => {
  const vkey = await loadVerificationKey('spendVkey');
  assert.equal(vkey.nPublic, VALID_SPEND_PUBLIC_INPUT_COUNT);
  assert.equal(vkey.IC.length, VALID_SPEND_PUBLIC_INPUT_COUNT + 1);
  const main = readFileSync(
    fileURLToPath(new URL('../circuits/valid_spend.circom', import.meta.url)),
    'utf8',
  );
  const listed = /component main \{public \[([^\]]*)\]\} = ValidSpend\((\d+)\);/.exec(main);
  assert.ok(listed, 'the circuit has a main component');
  assert.deepEqual(
    listed[1]?.split(',').map((s) => s.trim()),
    [...VALID_SPEND_PUBLIC_INPUTS],
  );
  assert.equal(Number(listed[2]), SPEND_INPUTS_MAX);
  const lib = readFileSync(
    fileURLToPath(new URL('../circuits/lib/valid_spend.circom', import.meta.url)),
    'utf8',
  );
  const body = lib.slice(lib.indexOf('template ValidSpend('));
  const declared = [...body.matchAll(/signal input (\w+)(\[\w+\])?;/g)].map((m) => m[1]);
  assert.deepEqual(declared.slice(0, VALID_SPEND_PUBLIC_INPUTS.length), [...VALID_SPEND_PUBLIC_INPUTS]);
});
