/**
 * Adversarial proofs (issue 11 items 2 and 3), with the real VALID_INPUT prover and the venue's
 * Groth16 verifier:
 * - a proof made for one note cannot back an order on another note, nor be lifted by another
 *   trading key (it binds the note, the root, the tree, the asset and the key);
 * - proof bytes of any shape, and claims with any field changed, are answered true only for the
 *   untouched proof and false otherwise, never with an exception (an exception would be a 500 at
 *   intake, or a dead verification worker).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assetOfOrder, proofChecksOf } from '@venue/adapters';
import {
  type AssetClaim,
  assetIdOfMint,
  BASE_FIELD_MODULUS,
  type ClaimChecker,
  createClaimChecker,
  createNote,
  createProofVerifier,
  createValidInputProver,
  loadNoteHasher,
  NoteTree,
  type ProofVerifier,
} from '@venue/notes';
import { generateTradingKey, type PlaceOrder, signPlaceOrder, type TradingKey } from '@venue/protocol';
import { envelopeOf, hex32, TEST_CORE_CONFIG, TestVenue, type Trader, testMarket } from '@venue/testing';
import fc from 'fast-check';

const SEED = Number(process.env['ADVERSARIAL_FUZZ_SEED'] ?? 11_2028);

let venue: TestVenue;
let verifier: ProofVerifier;
let checker: ClaimChecker;
let trader: Trader;
let key: TradingKey;
/** The proved note's order fields, and a second note of the same owner in the same tree. */
let proved: {
  note_commitment: string;
  owner_commitment: string;
  note_inner_hash: string;
  merkle_root: string;
  tree_id: number;
  valid_input_proof: string;
};
let otherNote: { note_commitment: string; note_inner_hash: string };
let assetId: bigint;

before(async () => {
  const hasher = await loadNoteHasher();
  const market = testMarket('SOL-USDC');
  assetId = assetIdOfMint(market.baseMint); // an ask spends base
  const spendingKey = 0xadd_0bad_5eedn;
  const owner = hasher.ownerCommitment(spendingKey);
  const note = createNote(hasher, { ownerCommitment: owner, assetId, value: 1000n, blinding: 11n });
  const other = createNote(hasher, { ownerCommitment: owner, assetId, value: 1000n, blinding: 12n });
  const tree = new NoteTree(hasher);
  const index = tree.append(note.commitment);
  tree.append(other.commitment);
  key = generateTradingKey();
  // The prover, the verifier pool and the in-thread checker load their artifacts in parallel.
  verifier = createProofVerifier({
    mode: 'groth16',
    settles: false,
    assetOf: assetOfOrder(() => [testMarket('SOL-USDC'), testMarket('ETH-USDC')]),
    workers: 1,
  });
  const proving = createValidInputProver().then((prover) =>
    prover
      .prove({
        spendingKey,
        note,
        path: tree.path(index),
        merkleRoot: tree.root(),
        treeId: 0,
        tradingKey: key.publicKey,
      })
      .finally(() => prover.close()),
  );
  const [result, loadedChecker] = await Promise.all([proving, createClaimChecker(), verifier.ready()]);
  checker = loadedChecker;
  proved = result.orderFields;
  otherNote = { note_commitment: other.hex.commitment, note_inner_hash: other.hex.innerHash };
  venue = await TestVenue.start({
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
    proofMode: 'groth16',
    roots: [proved.merkle_root],
    proofs: proofChecksOf(verifier),
  });
  trader = { ...(await venue.trader('prover')), key };
});
after(async () => {
  await venue?.stop();
  await verifier?.close();
  await checker?.close();
});

function ask(fields: Partial<PlaceOrder>, signer: TradingKey, nonce: bigint): PlaceOrder {
  return signPlaceOrder(
    {
      symbol: 'SOL-USDC',
      side: 'ask',
      order_type: 'limit',
      amount: 1000n,
      price_limit: 0n,
      expiry_slot: venue.clock.slot() + 500n,
      order_id: hex32(`proof-order-${nonce}`).slice(0, 32),
      arrival_nonce: nonce,
      trading_key: signer.publicKey,
      viewing_pubkey: hex32('viewing'),
      session_id: venue.identity.sessionId,
      ...proved,
      ...fields,
    },
    signer,
  );
}

describe('adversarial: proofs', { concurrency: false }, () => {
  test('a proof for another note is 400 1033 and books nothing', async () => {
    const before = venue.server.engine.core.stateHash();
    const refused = await venue.place(trader, ask(otherNote, key, 1n));
    assert.equal(refused.status, 400, refused.text);
    assert.equal(envelopeOf(refused).code, 1033);
    assert.equal(venue.server.engine.core.stateHash(), before);
  });

  test("a proof lifted by another trading key (the note's fields intact, signed by the thief) is 400 1033", async () => {
    const thiefKey = generateTradingKey();
    const thief = { ...trader, key: thiefKey };
    const before = venue.server.engine.core.stateHash();
    const refused = await venue.place(thief, ask({}, thiefKey, 1n));
    assert.equal(refused.status, 400, refused.text);
    assert.equal(envelopeOf(refused).code, 1033);
    assert.equal(venue.server.engine.core.stateHash(), before);
  });

  test('the owner with the right note and key is booked (the two refusals above were for cause)', async () => {
    const booked = await venue.place(trader, ask({}, key, 2n));
    assert.equal(booked.status, 200, booked.text);
  });
});

describe('fuzz: proof bytes and claims', () => {
  const word = (i: number, proof: string) => proof.slice(i * 64, i * 64 + 64);
  const hex64 = (n: bigint) => n.toString(16).padStart(64, '0');
  type Mutation =
    | { kind: 'byte'; at: number; xor: number }
    | { kind: 'word'; at: number; value: bigint }
    | { kind: 'swap'; a: number; b: number }
    | {
        kind: 'field';
        field: 'note_commitment' | 'merkle_root' | 'note_inner_hash' | 'owner_commitment';
        xor: number;
      }
    | { kind: 'tree'; tree: number }
    | { kind: 'asset'; delta: bigint }
    | { kind: 'key' };
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({
      kind: fc.constant('byte' as const),
      at: fc.nat({ max: 255 }),
      xor: fc.integer({ min: 1, max: 255 }),
    }),
    fc.record({
      kind: fc.constant('word' as const),
      at: fc.nat({ max: 7 }),
      value: fc.oneof(
        fc.constantFrom(0n, 1n, 2n, BASE_FIELD_MODULUS - 1n, BASE_FIELD_MODULUS, 2n ** 256n - 1n),
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
      ),
    }),
    fc.record({ kind: fc.constant('swap' as const), a: fc.nat({ max: 7 }), b: fc.nat({ max: 7 }) }),
    fc.record({
      kind: fc.constant('field' as const),
      field: fc.constantFrom('note_commitment', 'merkle_root', 'note_inner_hash', 'owner_commitment'),
      xor: fc.integer({ min: 1, max: 255 }),
    }),
    fc.record({ kind: fc.constant('tree' as const), tree: fc.integer({ min: 1, max: 255 }) }),
    fc.record({ kind: fc.constant('asset' as const), delta: fc.bigInt({ min: 1n, max: 2n ** 64n }) }),
    fc.record({ kind: fc.constant('key' as const) }),
  );

  function apply(claim: AssetClaim, m: Mutation): AssetClaim {
    const proof = claim.valid_input_proof;
    const words = Array.from({ length: 8 }, (_, i) => word(i, proof));
    switch (m.kind) {
      case 'byte': {
        const bytes = Buffer.from(proof, 'hex');
        bytes[m.at] = (bytes[m.at] ?? 0) ^ m.xor;
        return { ...claim, valid_input_proof: bytes.toString('hex') };
      }
      case 'word':
        words[m.at] = hex64(m.value);
        return { ...claim, valid_input_proof: words.join('') };
      case 'swap':
        [words[m.a], words[m.b]] = [words[m.b] as string, words[m.a] as string];
        return { ...claim, valid_input_proof: words.join('') };
      case 'field': {
        const bytes = Buffer.from(claim[m.field], 'hex');
        bytes[31] = (bytes[31] ?? 0) ^ m.xor;
        return { ...claim, [m.field]: bytes.toString('hex') };
      }
      case 'tree':
        return { ...claim, tree_id: m.tree };
      case 'asset':
        return { ...claim, assetId: claim.assetId + m.delta };
      case 'key':
        return { ...claim, trading_key: generateTradingKey().publicKey };
    }
  }

  test('a changed proof or claim is false, the untouched one true; never an exception, batched or alone', async () => {
    const valid: AssetClaim = { ...proved, trading_key: key.publicKey, assetId };
    assert.deepEqual(await checker.check([valid]), [true]);
    let changed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const claim = mutations.reduce(apply, valid);
        const same =
          JSON.stringify(claim, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)) ===
          JSON.stringify(valid, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
        const alone = await checker.check([claim]);
        assert.deepEqual(
          alone,
          [same],
          JSON.stringify(mutations, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)),
        );
        // In a batch beside a valid proof: bisection must single out exactly the bad one.
        assert.deepEqual(await checker.check([valid, claim, valid]), [true, same, true]);
        if (!same) changed += 1;
      }),
      { seed: SEED, numRuns: 60 },
    );
    assert.ok(changed > 40, 'most cases really changed something');
  });
});
