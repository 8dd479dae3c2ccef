// The prebuilt Poseidon module (D144): the committed bytes are what circomlibjs's generator makes
// today, and its digests are circomlibjs's own, for every width the hasher takes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { PoseidonWasm } from 'circomlibjs';
import fc from 'fast-check';
import { buildPoseidonWasmBytes } from '../scripts/poseidon-wasm-builder.ts';
import { artifactPath, FIELD_MODULUS, loadArtifact } from '../src/index.ts';
import { instantiatePoseidon } from '../src/poseidon-wasm.ts';

/** circomlibjs's run-time Poseidon, built the slow way, as the reference. */
async function circomlibjsPoseidon(): Promise<PoseidonWasm> {
  const source = new URL('./src/poseidon_wasm.js', import.meta.resolve('circomlibjs'));
  const { buildPoseidon } = (await import(source.href)) as { buildPoseidon: () => Promise<PoseidonWasm> };
  return buildPoseidon();
}

test('artifacts/poseidon.wasm is byte for byte what the generator builds from the installed packages', async () => {
  const rebuilt = await buildPoseidonWasmBytes();
  const committed = readFileSync(artifactPath('poseidonWasm'));
  assert.ok(
    Buffer.from(rebuilt).equals(committed),
    'run node --import tsx packages/notes/scripts/build-poseidon-wasm.ts and commit the result',
  );
});

test('the prebuilt module hashes as circomlibjs does, 1 to 16 inputs anywhere in the field (property)', async () => {
  const ours = await instantiatePoseidon(await loadArtifact('poseidonWasm'));
  const reference = await circomlibjsPoseidon();
  const element = fc.oneof(
    fc.bigInt({ min: 0n, max: FIELD_MODULUS - 1n }),
    fc.constantFrom(0n, 1n, FIELD_MODULUS - 1n, (1n << 64n) - 1n, 1n << 192n),
  );
  fc.assert(
    fc.property(fc.array(element, { minLength: 1, maxLength: 16 }), (inputs) => {
      assert.equal(ours(inputs), reference.F.toObject(reference(inputs)));
    }),
    { numRuns: 300 },
  );
});

test('a call leaves nothing behind for the next: the same inputs give the same digest after any other', async () => {
  const ours = await instantiatePoseidon(await loadArtifact('poseidonWasm'));
  const first = ours([5n, 6n]);
  ours([FIELD_MODULUS - 1n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 11n, 12n, 13n, 14n, 15n]);
  assert.equal(ours([5n, 6n]), first);
});
