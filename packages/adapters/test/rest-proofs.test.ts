// Real collateral proofs at order intake (spec 2.1 valid_input_proof, issue 4 on the venue side):
// a venue running the Groth16 verifier with Poseidon note commitments books an order whose proof
// was made by the notes prover for a note in a real note tree, and refuses a stub proof and a
// tampered proof with their own codes, changing nothing. The venue is wired as dev mode and serve
// are: the proof worker re-derives the note commitment and the sequencer only looks it up.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assetOfOrder, CommitmentMemo, proofChecksOf } from '@venue/adapters';
import {
  assetIdOfMint,
  createNote,
  createProofVerifier,
  createValidInputProver,
  loadNoteHasher,
  NoteTree,
  type ProofVerifier,
  STUB_PROOF_HEX,
} from '@venue/notes';
import { generateTradingKey, type PlaceOrder, signPlaceOrder } from '@venue/protocol';
import { envelopeOf, hex32, TEST_CORE_CONFIG, TestVenue, type Trader, testMarket } from '@venue/testing';

let venue: TestVenue;
let verifier: ProofVerifier;
let trader: Trader;
let order: PlaceOrder;
const memo = new CommitmentMemo();
/** Re-derivations the sequencer had to compute itself (the memo had no answer). */
let inline = 0;

before(async () => {
  const hasher = await loadNoteHasher();
  const market = testMarket('SOL-USDC');
  const spendingKey = 0x5eed_0f_a11ce_0123456789abcdefn;
  const note = createNote(hasher, {
    ownerCommitment: hasher.ownerCommitment(spendingKey),
    assetId: assetIdOfMint(market.baseMint), // an ask spends base
    value: 1000n,
    blinding: 4242n,
  });
  const tree = new NoteTree(hasher);
  tree.append(hasher.poseidon([7n]));
  const index = tree.append(note.commitment);
  const key = generateTradingKey();
  const prover = await createValidInputProver();
  const proved = await prover
    .prove({
      spendingKey,
      note,
      path: tree.path(index),
      merkleRoot: tree.root(),
      treeId: 0,
      tradingKey: key.publicKey,
    })
    .finally(() => prover.close());

  verifier = createProofVerifier({
    mode: 'groth16',
    settles: false,
    assetOf: assetOfOrder(() => [testMarket('SOL-USDC'), testMarket('ETH-USDC')]),
    workers: 1,
  });
  await verifier.ready();
  venue = await TestVenue.start({
    core: {
      ...TEST_CORE_CONFIG,
      noteCommitment: memo.wrap((owner, inner, value) => {
        inline += 1;
        return hasher.noteCommitment(owner, inner, value);
      }),
    },
    proofMode: 'groth16',
    roots: [proved.orderFields.merkle_root],
    proofs: proofChecksOf(verifier, {
      memo,
      priceScaleOf: (symbol) => (symbol === market.symbol ? market.priceScale : undefined),
    }),
  });
  trader = { ...(await venue.trader('prover')), key };
  order = signPlaceOrder(
    {
      symbol: 'SOL-USDC',
      side: 'ask',
      order_type: 'limit',
      amount: 1000n,
      price_limit: 0n,
      expiry_slot: venue.clock.slot() + 500n,
      order_id: hex32('proved-order').slice(0, 32),
      arrival_nonce: 1n,
      trading_key: key.publicKey,
      viewing_pubkey: hex32('viewing'),
      session_id: venue.identity.sessionId,
      ...proved.orderFields,
    },
    key,
  );
});
after(async () => {
  await venue?.stop();
  await verifier?.close();
});

test('a stub proof is refused with 400 1034 on a venue that verifies real proofs', async () => {
  const before = venue.server.engine.core.stateHash();
  const stub = signPlaceOrder({ ...order, valid_input_proof: STUB_PROOF_HEX }, trader.key);
  const refused = await venue.place(trader, stub);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(envelopeOf(refused).code, 1034);
  assert.equal(venue.server.engine.core.stateHash(), before);
});

test('a tampered proof (C replaced by A, both curve points) is refused with 400 1033', async () => {
  const proof = order.valid_input_proof;
  const tampered = signPlaceOrder(
    { ...order, valid_input_proof: proof.slice(0, 384) + proof.slice(0, 128) },
    trader.key,
  );
  const refused = await venue.place(trader, tampered);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(envelopeOf(refused).code, 1033);
});

test('a value the note does not hold is refused with 400 1032, the worker having derived it', async () => {
  const before = venue.server.engine.core.stateHash();
  // The proof is valid for the note (its value is not a public input); the commitment re-derived
  // with the claimed 1001 differs from the note's, which the core catches with its own code.
  const inflated = signPlaceOrder({ ...order, collateral_amount: 1001n, arrival_nonce: 2n }, trader.key);
  const hitsBefore = memo.stats.hits;
  const refused = await venue.place(trader, inflated);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(envelopeOf(refused).code, 1032);
  assert.equal(memo.stats.hits, hitsBefore + 1, 'the sequencer used the worker-derived commitment');
  assert.equal(inline, 0);
  assert.equal(venue.server.engine.core.stateHash(), before);
});

test('the real proof books the order, its commitment derived off the sequencer', async () => {
  const placed = await venue.place(trader, order);
  assert.equal(placed.status, 200, placed.text);
  assert.equal(JSON.parse(placed.text).order_id, order.order_id);
  assert.equal(inline, 0, 'the sequencer never ran Poseidon');
  assert.equal(memo.stats.size, 0, 'each derivation serves one order');
});

test('a requote against the same note is booked on the earlier verdict, with no second pairing', async () => {
  // The order above rests on the note; cancel it, then place again with the very same proof.
  const cancelled = await venue.cancel(
    trader,
    order.order_id,
    venue.cancelParams(order.order_id, 1n, trader.key),
  );
  assert.equal(cancelled.status, 200, cancelled.text);
  const reusedBefore = verifier.reuse().reused;
  const requote = signPlaceOrder(
    { ...order, order_id: hex32('requote').slice(0, 32), arrival_nonce: 3n, price_limit: 10n },
    trader.key,
  );
  const placed = await venue.place(trader, requote);
  assert.equal(placed.status, 200, placed.text);
  assert.equal(verifier.reuse().reused, reusedBefore + 1, 'answered from the earlier verdict');
  assert.equal(inline, 0, 'the commitment came with the reused verdict: the sequencer ran no Poseidon');
  // The claim of another value is not the same claim: the worker derives it and the core refuses it.
  const inflated = signPlaceOrder(
    { ...requote, order_id: hex32('requote-2').slice(0, 32), collateral_amount: 1002n, arrival_nonce: 4n },
    trader.key,
  );
  const refused = await venue.place(trader, inflated);
  assert.equal(refused.status, 400, refused.text);
  assert.equal(envelopeOf(refused).code, 1032, refused.text);
  assert.equal(verifier.reuse().reused, reusedBefore + 1);
});
