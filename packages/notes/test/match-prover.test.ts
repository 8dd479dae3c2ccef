// VALID_MATCH end to end: the worker pool proves an honest batch and the batched verifier accepts
// it; a proof presented for another batch, another leg or a broken leg is refused; a leg of 5 to 16
// fills goes to the wide circuit and its key. Few proofs: the
// rules themselves are checked against the witness in match-rules.test.ts.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
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
  matchWidthOfStatement,
  padFillTags,
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

test('a leg of 5 to 16 fills is proved by the wide circuit and checked with its key beside narrow legs', async () => {
  const wide = sampleMatchBatch(hasher, 1, 9n, 5);
  const [bid] = wide.legs;
  assert.ok(bid && bid.fills.length === 5);
  const proof = await prover.prove(wide.header, bid);
  assert.equal(matchWidthOfStatement(proof.statement), 16);
  assert.deepEqual(await verifier.verifyEach([...proofs, proof]), [true, true, true, true, true]);
  // One tag of the wide statement replaced by a tag of the narrow batch: refused.
  const [firstTag] = proofs[0]?.statement.fillTags ?? [];
  assert.ok(firstTag !== undefined);
  const swappedTag = {
    ...proof,
    statement: { ...proof.statement, fillTags: [firstTag, ...proof.statement.fillTags.slice(1)] },
  };
  assert.deepEqual(await verifier.verifyEach([swappedTag]), [false]);
  // A narrow proof presented with its tags padded to 16 is checked by the wide key: refused.
  const [narrow] = proofs;
  assert.ok(narrow);
  const padded = {
    ...narrow,
    statement: { ...narrow.statement, fillTags: padFillTags([...narrow.statement.fillTags, 0n]) },
  };
  assert.equal(matchWidthOfStatement(padded.statement), 16);
  assert.deepEqual(await verifier.verifyEach([padded]), [false]);
});

test('a leg of more than 16 fills is refused before any proving (fills_max)', async () => {
  const crowded = sampleMatchBatch(hasher, 1, 10n, 17);
  const [bid] = crowded.legs;
  assert.ok(bid);
  await assert.rejects(prover.prove(crowded.header, bid), /fills_max/);
});

test('a prover made with nice runs its workers below the caller, which keeps its priority (D132)', async (t) => {
  if (process.platform !== 'linux') {
    t.diagnostic('thread priorities are per thread only on Linux');
    return;
  }
  const own = getPriority(process.pid);
  const before = new Set(readdirSync('/proc/self/task'));
  const lowered = createMatchProver({ workers: 1, nice: 5 });
  try {
    await lowered.ready();
    const started = readdirSync('/proc/self/task').filter((tid) => !before.has(tid));
    const niced = started.filter((tid) => getPriority(Number(tid)) === Math.min(19, own + 5));
    // The worker's thread, and not the threads Node started for it at its own priority.
    assert.equal(
      niced.length,
      1,
      `threads started: ${started.map((tid) => `${tid}:${getPriority(Number(tid))}`).join(' ')}`,
    );
    assert.equal(getPriority(process.pid), own, 'the calling thread keeps its priority');
    // Proving is unchanged: the lowered worker's proof of the first leg verifies beside the
    // other leg's proof from the default prover (a batch's fills must pair).
    const [leg] = sample.legs;
    assert.ok(leg !== undefined && proofs[1] !== undefined);
    const mine = await lowered.prove(sample.header, leg);
    assert.deepEqual(mine.statement, proofs[0]?.statement);
    assert.deepEqual(await verifier.verifyBatch([mine, proofs[1]]), { ok: true });
  } finally {
    await lowered.close();
  }
  assert.throws(() => createMatchProver({ nice: 20 }), /nice must be 0 to 19/);
});
