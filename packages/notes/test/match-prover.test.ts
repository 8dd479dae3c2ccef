// VALID_MATCH end to end: the worker pool proves an honest batch and the batched verifier accepts
// it; a proof presented for another batch, another leg or a broken leg is refused. Few proofs: the
// rules themselves are checked against the witness in match-rules.test.ts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  batchBinding,
  createMatchProver,
  createMatchVerifier,
  loadNoteHasher,
  type MatchProof,
  type MatchProver,
  MatchProvingError,
  type MatchVerifier,
  sampleMatchBatch,
} from '../src/index.ts';

const hasher = await loadNoteHasher();
const sample = sampleMatchBatch(hasher, 2);
let prover: MatchProver;
let verifier: MatchVerifier;
let proofs: MatchProof[];

before(async () => {
  prover = createMatchProver({ workers: 2 });
  verifier = await createMatchVerifier();
  proofs = await prover.proveBatch(sample.header, sample.legs);
});

after(async () => {
  await prover.close();
  await verifier.close();
});

test('an honest batch proves leg by leg and verifies as one batch', async () => {
  assert.equal(proofs.length, sample.legs.length);
  assert.deepEqual(await verifier.verifyBatch(proofs), { ok: true });
});

test('a proof replayed into another batch (next sequence number) is refused', async () => {
  const replayed = proofs.map((proof) => ({
    ...proof,
    statement: {
      ...proof.statement,
      batchBinding: batchBinding(hasher, { ...sample.header, batchSeq: sample.header.batchSeq + 1n }),
    },
  }));
  const verdict = await verifier.verifyBatch(replayed);
  assert.equal(verdict.ok, false);
  assert.ok(!verdict.ok && verdict.fault === 'proof_invalid');
  assert.deepEqual(verdict.legs, [0, 1, 2, 3]);
});

test('a proof presented for another leg, or with one output changed, is refused and named', async () => {
  const [first, second, ...rest] = proofs;
  assert.ok(first && second);
  const swapped = [{ ...first, proof: second.proof }, second, ...rest];
  assert.deepEqual(await verifier.verifyEach(swapped), [false, true, true, true]);
  const changed = [first, { ...second, statement: { ...second.statement, changeCommitment: 1n } }, ...rest];
  const verdict = await verifier.verifyBatch(changed);
  assert.ok(!verdict.ok && verdict.fault === 'proof_invalid' && verdict.legs.join() === '1');
});

test('valid proofs whose fills do not pair (a leg left out) are refused by the batch', async () => {
  const verdict = await verifier.verifyBatch(proofs.slice(1));
  assert.ok(!verdict.ok && verdict.fault === 'fills_unpaired');
});

test('a leg that breaks a rule is never proved: the prover rejects it loudly', async () => {
  const [leg] = sample.legs;
  assert.ok(leg);
  const [fill] = leg.fills;
  assert.ok(fill);
  const rounded = { ...leg, fills: [{ ...fill, quoteAmount: fill.quoteAmount + 1n }] };
  await assert.rejects(prover.prove(sample.header, rounded), MatchProvingError);
});
