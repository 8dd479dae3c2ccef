// The venue's proof verifier: a worker pool behind verify/verifyMany, the stub-proof rule of a
// settling venue, the bounded queue, and shutdown.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  assetIdOfMint,
  createProofVerifier,
  loadNoteHasher,
  STUB_PROOF_HEX,
  spentMint,
  VerifierBusyError,
  VerifierConfigError,
} from '../src/index.ts';
import { BASE_MINT, proofFixture, QUOTE_MINT } from './fixtures.ts';

const fixture = await proofFixture();
const market = { baseMint: BASE_MINT, quoteMint: QUOTE_MINT };
const assetOf = (order: { side: 'bid' | 'ask' }) => assetIdOfMint(spentMint(order.side, market));
const stubOrder = { ...fixture.order, valid_input_proof: STUB_PROOF_HEX };

const venue = createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 1, batchMax: 8 });
after(() => venue.close());

test('a settlement-enabled venue refuses to start with stub proofs', () => {
  assert.throws(() => createProofVerifier({ mode: 'stub', settles: true, assetOf }), VerifierConfigError);
  assert.throws(
    () => createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 0 }),
    VerifierConfigError,
  );
});

test('the settling venue accepts the real proof and refuses a stub proof', async () => {
  await venue.ready();
  assert.equal(await venue.verify(fixture.order), true);
  assert.equal(await venue.verify(stubOrder), false);
});

test('verifyDeriving re-derives the note commitment on the worker, for the value the order claims', async () => {
  const hasher = await loadNoteHasher();
  const { order } = fixture;
  const right = await venue.verifyDeriving(order, 1000n);
  assert.deepEqual(right, { valid: true, commitment: order.note_commitment });
  // Another value gives another commitment; the proof itself does not depend on the value.
  const wrong = await venue.verifyDeriving(order, 1001n);
  assert.equal(wrong.valid, true);
  assert.equal(wrong.commitment, hasher.noteCommitment(order.owner_commitment, order.note_inner_hash, 1001n));
  assert.notEqual(wrong.commitment, order.note_commitment);
  // A stub proof never reaches a worker, so nothing is derived for it.
  assert.deepEqual(await venue.verifyDeriving(stubOrder, 1000n), { valid: false, commitment: null });
});

test('the settling venue refuses a proof for another root, note, tree, key, or side', async () => {
  for (const [name, order] of Object.entries(fixture.wrong)) {
    assert.equal(await venue.verify(order), false, name);
  }
  // The same note backing a bid: a bid spends quote, and the note holds base.
  assert.equal(await venue.verify({ ...fixture.order, side: 'bid', price_limit: 10n }), false);
});

test('verifyMany answers each order in place, across several batches', async () => {
  const wrong = Object.values(fixture.wrong);
  const orders = Array.from({ length: 20 }, (_, i) =>
    i % 3 === 1 ? (wrong[i % wrong.length] ?? stubOrder) : fixture.order,
  );
  orders.push(stubOrder);
  assert.deepEqual(
    await venue.verifyMany(orders),
    orders.map((o) => o === fixture.order),
  );
  assert.deepEqual(venue.load(), { queued: 0, inFlight: 0, queueMax: 4096 });
});

test('two workers holding small shares back still answer every order, arriving together or one by one', async () => {
  // batchMinShare 6: while one worker is busy the other waits for six proofs; a straggler that
  // never makes six is taken when the busy worker is done.
  const pool = createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 2, batchMinShare: 6 });
  try {
    await pool.ready();
    const wrong = Object.values(fixture.wrong);
    const orders = Array.from({ length: 15 }, (_, i) =>
      i % 4 === 3 ? (wrong[0] ?? stubOrder) : fixture.order,
    );
    const together = Promise.all(orders.map((order) => pool.verify(order)));
    const straggler = pool.verify(fixture.order);
    assert.deepEqual(
      await together,
      orders.map((o) => o === fixture.order),
    );
    assert.equal(await straggler, true);
    for (const order of orders.slice(0, 3)) assert.equal(await pool.verify(order), order === fixture.order);
    assert.equal(pool.load().inFlight + pool.load().queued, 0);
  } finally {
    await pool.close();
  }
  assert.throws(
    () => createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 1, batchMinShare: 0 }),
    VerifierConfigError,
  );
});

test('a full queue refuses at once instead of waiting, and takes nothing in', async () => {
  // Stub mode starts its workers only for a real proof, and this test never lets one in.
  const small = createProofVerifier({ mode: 'stub', settles: false, assetOf, workers: 1, queueMax: 2 });
  try {
    await assert.rejects(small.verifyMany([fixture.order, fixture.order, fixture.order]), VerifierBusyError);
    assert.deepEqual(small.load(), { queued: 0, inFlight: 0, queueMax: 2 });
    // Stub proofs take no queue space.
    assert.deepEqual(await small.verifyMany([stubOrder, stubOrder, stubOrder]), [true, true, true]);
  } finally {
    await small.close();
  }
});

test('stub mode, on a venue that does not settle, accepts stub proofs and still checks real ones', async () => {
  const simulator = createProofVerifier({ mode: 'stub', settles: false, assetOf, workers: 1 });
  try {
    assert.equal(await simulator.verify(stubOrder), true);
    assert.deepEqual(
      await simulator.verifyMany([fixture.order, fixture.wrong['another root'] ?? stubOrder, stubOrder]),
      [true, false, true],
    );
  } finally {
    await simulator.close();
  }
});

test('after close, verification is refused', async () => {
  const closing = createProofVerifier({ mode: 'stub', settles: false, assetOf, workers: 1 });
  await closing.close();
  await assert.rejects(closing.verify(fixture.order), /closed/);
  await assert.rejects(closing.verify(stubOrder), /closed/);
});

test('a claim found valid is answered again without a worker: no queue space, the same verdict', async () => {
  // queueMax 1: five copies of the order could not all wait for a worker at once.
  const pool = createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 1, queueMax: 1 });
  try {
    await assert.rejects(pool.verifyMany([fixture.order, fixture.order]), VerifierBusyError);
    assert.equal(await pool.verify(fixture.order), true);
    assert.deepEqual(pool.reuse(), { reused: 0, kept: 1 });
    assert.deepEqual(await pool.verifyMany(Array.from({ length: 5 }, () => fixture.order)), [
      true,
      true,
      true,
      true,
      true,
    ]);
    assert.deepEqual(pool.reuse(), { reused: 5, kept: 1 });
    assert.deepEqual(pool.load(), { queued: 0, inFlight: 0, queueMax: 1 });
    // Deriving is another claim (it names a value): verified once, then its commitment reused.
    const derived = await pool.verifyDeriving(fixture.order, 1000n);
    assert.deepEqual(derived, { valid: true, commitment: fixture.order.note_commitment });
    assert.deepEqual(await pool.verifyDeriving(fixture.order, 1000n), derived);
    assert.deepEqual(pool.reuse(), { reused: 6, kept: 2 });
  } finally {
    await pool.close();
  }
});

test('reuse never answers for a claim that differs in any field, and never keeps a refusal', async () => {
  const pool = createProofVerifier({ mode: 'groth16', settles: true, assetOf, workers: 1 });
  try {
    assert.equal(await pool.verify(fixture.order), true);
    for (const [name, order] of Object.entries(fixture.wrong)) {
      assert.equal(await pool.verify(order), false, name);
      assert.equal(await pool.verify(order), false, `${name}, asked again`);
    }
    assert.equal(
      await pool.verify({ ...fixture.order, side: 'bid', price_limit: 10n }),
      false,
      'other asset',
    );
    assert.deepEqual(pool.reuse(), { reused: 0, kept: 1 });
  } finally {
    await pool.close();
  }
});

test('verifiedClaimsMax 0 sends every proof to a worker', async () => {
  const pool = createProofVerifier({
    mode: 'groth16',
    settles: true,
    assetOf,
    workers: 1,
    verifiedClaimsMax: 0,
  });
  try {
    assert.deepEqual(await pool.verifyMany([fixture.order, fixture.order]), [true, true]);
    assert.equal(await pool.verify(fixture.order), true);
    assert.deepEqual(pool.reuse(), { reused: 0, kept: 0 });
  } finally {
    await pool.close();
  }
  assert.throws(
    () => createProofVerifier({ mode: 'groth16', settles: true, assetOf, verifiedClaimsMax: -1 }),
    VerifierConfigError,
  );
});
