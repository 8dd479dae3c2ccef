// Real Groth16 VALID_INPUT proofs, end to end on one thread: the SDK proves, the venue's checker
// verifies it, refuses every claim the proof was not made for, and batches find exactly the bad
// proofs. snarkjs's own verifier is the reference.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { isVenueError } from '@venue/protocol';
import fc from 'fast-check';
import * as snarkjs from 'snarkjs';
import { loadCurve, prepareKey } from '../src/groth16.ts';
import {
  type AssetClaim,
  assetIdOfMint,
  checkClaims,
  createClaimChecker,
  createValidInputProver,
  decodeProof,
  loadNoteHasher,
  loadVerificationKey,
  STUB_PROOF_HEX,
  snarkjsOfCoordinates,
  VALID_INPUT_PUBLIC_INPUTS,
} from '../src/index.ts';
import { KEY, proofFixture, QUOTE_MINT, SPENDING_KEY } from './fixtures.ts';

const fixture = await proofFixture();
const checker = await createClaimChecker();
after(() => checker.close());

const claim = (order = fixture.order, assetId = fixture.assetId): AssetClaim => ({ ...order, assetId });

test('the prover returns a 256-byte proof and the order fields it was made for', () => {
  const { orderFields, publicInputs } = fixture.proved;
  assert.match(orderFields.valid_input_proof, /^[0-9a-f]{512}$/);
  assert.equal(orderFields.note_commitment, fixture.note.hex.commitment);
  assert.equal(orderFields.owner_commitment, fixture.note.hex.ownerCommitment);
  assert.equal(orderFields.note_inner_hash, fixture.note.hex.innerHash);
  assert.equal(orderFields.tree_id, 0);
  assert.equal(publicInputs.length, VALID_INPUT_PUBLIC_INPUTS.length);
});

test('snarkjs.groth16.verify accepts the proof read back from its 256 bytes', async () => {
  const vkey = await loadVerificationKey();
  const proof = snarkjsOfCoordinates(decodeProof(fixture.order.valid_input_proof));
  const signals = fixture.proved.publicInputs.map(String);
  assert.equal(await snarkjs.groth16.verify(vkey, signals, proof), true);
  const wrongRoot = [...signals];
  wrongRoot[1] = '5';
  assert.equal(await snarkjs.groth16.verify(vkey, wrongRoot, proof), false);
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
});

test('the checker accepts the real proof for the order it was made for', async () => {
  assert.deepEqual(await checker.check([claim()]), [true]);
});

for (const [name, order] of Object.entries(fixture.wrong)) {
  test(`the checker refuses the proof for ${name}`, async () => {
    assert.deepEqual(await checker.check([claim(order)]), [false]);
  });
}

test('the checker refuses the proof for another asset (a bid would spend quote)', async () => {
  assert.deepEqual(await checker.check([claim(fixture.order, assetIdOfMint(QUOTE_MINT))]), [false]);
});

test('the checker refuses a stub proof: it is not a proof encoding', async () => {
  assert.deepEqual(await checker.check([claim({ ...fixture.order, valid_input_proof: STUB_PROOF_HEX })]), [
    false,
  ]);
});

test('a batch returns exactly the bad proofs as false, whatever their positions (property)', async () => {
  const bad = Object.values(fixture.wrong);
  const [curve, vkey, hasher] = await Promise.all([loadCurve(), loadVerificationKey(), loadNoteHasher()]);
  const key = prepareKey(curve, vkey);
  // pick 0 is the valid order (drawn most often, as at a real intake); pick k > 0 is the k-th wrong claim.
  const pick = fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: bad.length }) },
  );
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(pick, { minLength: 2, maxLength: 12 }), async (picks) => {
        const claims = picks.map((k) => claim(k === 0 ? fixture.order : bad[k - 1]));
        const expected = picks.map((k) => k === 0);
        assert.deepEqual(await checkClaims(key, hasher, claims, true), expected, 'batched, with bisection');
        assert.deepEqual(await checker.check(claims), expected, 'through the checker');
      }),
      { numRuns: 8 },
    );
  } finally {
    await curve.terminate();
  }
});

test('the prover refuses a path that does not lead to the claimed root', async () => {
  const prover = await createValidInputProver({ singleThread: true });
  try {
    await assert.rejects(
      prover.prove({
        spendingKey: SPENDING_KEY + 1n, // another owner: the same path leads elsewhere
        note: fixture.note,
        path: fixture.tree.path(1),
        merkleRoot: fixture.tree.root(),
        treeId: 0,
        tradingKey: KEY,
      }),
      (e) => isVenueError(e) && e.errorName === 'UNKNOWN_MERKLE_ROOT',
    );
  } finally {
    await prover.close();
  }
});
