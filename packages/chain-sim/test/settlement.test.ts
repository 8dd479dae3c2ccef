// Settlement: a signed batch either lands whole (inputs consumed, locks released, output commitments
// appended, the market's sequence moved on) or fails with the one reason its situation calls for,
// changing nothing. The chain rebuilds each leg's VALID_MATCH statement itself, so a leg that says
// anything its proof was not made for fails with proof_invalid. Statuses follow the confirmation
// levels. Governance changes of the signer count only once final, and a reorg before that undoes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldToHex, rootFromPath, standInMatchProof } from '@venue/notes';
import { type SettlementFailureReason, tradingKeyFromSeed } from '@venue/protocol';
import {
  accountAddress,
  ChainError,
  type SettlementBatch,
  type SettlementLeg,
  signGovernance,
  signSettlementBatch,
  signWithdraw,
  treeReads,
} from '../src/index.ts';
import {
  BASE,
  BASE_MINT,
  type HeldNote,
  outputsOf,
  QUOTE_MINT,
  revealOf,
  standInProofs,
  type World,
  world,
} from './fixtures.ts';

/** Alice bids 500 quote; Bob asks 5 base. Both notes locked by the market. */
async function matched(options = {}) {
  const w = await world({ finalityDepth: 4, ...options });
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 20n);
  return { ...w, bid, ask };
}

function failsWith(w: World, batch: SettlementBatch, reason: SettlementFailureReason): string {
  const before = w.chain.stateHash();
  const record = w.chain.submitSettlement(batch);
  assert.equal(record.state, 'failed');
  assert.equal(record.reason, reason, record.message);
  assert.equal(w.chain.stateHash(), before, 'a failed batch changes nothing');
  assert.equal(treeReads(w.chain).settlementStatus({ by: 'tx', tx_id: record.tx_id }).reason, reason);
  return record.message ?? '';
}

/** The batch with its legs replaced, signed again by the settlement signer (only the legs lie). */
function withLegs(w: World, batch: SettlementBatch, legs: readonly SettlementLeg[]): SettlementBatch {
  const { signature: _, ...unsigned } = batch;
  return signSettlementBatch({ ...unsigned, legs }, w.signer);
}

function legsOf(batch: SettlementBatch): [SettlementLeg, SettlementLeg] {
  const [bid, ask] = batch.legs;
  assert.ok(bid && ask);
  return [bid, ask];
}

test('a landed batch consumes its inputs, releases their locks and appends the fills and changes', async () => {
  const w = await matched();
  const { chain, bid, ask } = w;
  const leavesBefore = chain.leafCount(0);
  const plan = w.plan(bid, ask, 2n, 15_000n); // 2 base at 150 quote each
  const record = chain.submitSettlement(w.batchOf(plan));
  assert.equal(record.state, 'landed', record.message);
  assert.deepEqual(
    record.appended?.map((leaf) => leaf.commitment),
    outputsOf(plan).map((held) => held.note.hex.commitment),
  );
  assert.equal(chain.leafCount(0), leavesBefore + 4);
  for (const held of [bid, ask]) {
    assert.equal(chain.consumedEntry(held.note.hex.noteUseTag)?.by, 'settlement');
    assert.equal(chain.lock(held.note.hex.noteUseTag), undefined);
  }
  for (const leaf of record.appended ?? []) {
    const response = treeReads(chain).inclusion(leaf.tree_id, leaf.commitment);
    assert.equal(
      rootFromPath(chain.hasher, BigInt(`0x${leaf.commitment}`), chain.path(0, Number(leaf.leaf_index))),
      BigInt(`0x${response.root}`),
    );
  }
  assert.equal(chain.market(w.market.market_id).next_batch_seq, 1n);
  // The chain cannot value the outputs; their owners can, and then the pool balances to the unit.
  assert.deepEqual(chain.audit().get(BASE_MINT), { vault: 5n, notes: 0n, hidden: 2 });
  const audit = chain.audit([bid, ask, ...outputsOf(plan)].map(revealOf));
  assert.deepEqual(audit.get(BASE_MINT), { vault: 5n, notes: 5n, hidden: 0 });
  assert.deepEqual(audit.get(QUOTE_MINT), { vault: 500n, notes: 500n, hidden: 0 });
});

test('the status goes submitted, confirmed, finalized; resubmitting the same batch is the same transaction', async () => {
  const w = await matched({ confirmationDepth: 1 });
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  const record = w.chain.submitSettlement(batch);
  const status = () =>
    treeReads(w.chain).settlementStatus({ by: 'batch', market_id: w.market.market_id, batch_seq: 0n });
  assert.equal(status().status, 'submitted');
  w.chain.advance();
  assert.equal(status().status, 'confirmed');
  w.chain.advance(3);
  assert.equal(status().status, 'finalized');
  assert.equal(status().slot, (record.included_slot ?? 0n) + 4n);
  assert.equal(status().match_count, 1);
  assert.equal(w.chain.submitSettlement(batch).tx_id, record.tx_id);
  assert.equal(w.chain.leafCount(0), 6);
});

test('batch_seq is gapless per market: a gap or a repeat is refused, a failure does not use the number', async () => {
  const w = await matched();
  failsWith(w, w.trade(w.bid, w.ask, 2n, 300n, { batchSeq: 1n }), 'chain_rejected');
  failsWith(
    w,
    w.trade(w.bid, w.ask, 2n, 300n, { key: tradingKeyFromSeed(new Uint8Array(32).fill(9)) }),
    'signer_rejected',
  );
  assert.equal(w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n, { batchSeq: 0n })).state, 'landed');
  const bid = w.deposit(w.wallet(1), 'quote', 300n);
  const ask = w.deposit(w.wallet(2), 'base', 2n);
  w.lock([bid, ask], w.chain.slot + 20n);
  failsWith(w, w.trade(bid, ask, 2n, 300n, { batchSeq: 0n }), 'chain_rejected');
  assert.equal(w.chain.submitSettlement(w.trade(bid, ask, 2n, 300n, { batchSeq: 1n })).state, 'landed');
  const byBatch = treeReads(w.chain).settlementStatus({
    by: 'batch',
    market_id: w.market.market_id,
    batch_seq: 1n,
  });
  assert.equal(byBatch.status, 'submitted');
});

test('root_expired: the input names a root that left the window', async () => {
  const w = await matched({ rootWindow: 2 });
  const oldRoots: [string, string] = [w.chain.currentRoot(0).root, w.chain.currentRoot(0).root];
  w.deposit(w.wallet(3), 'base', 1n);
  w.deposit(w.wallet(3), 'base', 1n);
  failsWith(w, w.trade(w.bid, w.ask, 2n, 300n, { roots: oldRoots }), 'root_expired');
});

test('note_consumed: an input was already spent', async () => {
  const w = await matched();
  assert.equal(w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n)).state, 'landed');
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([ask], w.chain.slot + 20n);
  failsWith(w, w.trade(w.bid, ask, 2n, 300n), 'note_consumed');
});

test('note_locked: an input is locked by another market', async () => {
  const w = await world();
  const other = w.chain.createMarket({
    symbol: 'SOL-USDT',
    base_mint: BASE_MINT,
    quote_mint: QUOTE_MINT,
    tick_size: 1n,
    min_size: 1n,
    price_scale: 1n,
    oracle: accountAddress('oracle', 'SOL-USDC'),
  });
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid], w.chain.slot + 20n);
  w.lock([ask], w.chain.slot + 20n, other.market_id);
  failsWith(w, w.trade(bid, ask, 2n, 300n), 'note_locked');
});

test('lock_expired: the lock ended before the batch landed', async () => {
  const w = await world();
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 2n);
  const batch = w.trade(bid, ask, 2n, 300n, { deadline: 100n });
  w.chain.advance(3);
  failsWith(w, batch, 'lock_expired');
});

test('lock_reverted: an input holds no lock of the market', async () => {
  const w = await world();
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid], w.chain.slot + 20n);
  failsWith(w, w.trade(bid, ask, 2n, 300n), 'lock_reverted');
});

test('signer_rejected: the batch is signed by a key governance does not accept', async () => {
  const w = await matched();
  failsWith(w, w.trade(w.bid, w.ask, 2n, 300n, { key: w.authority }), 'signer_rejected');
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  failsWith(w, { ...batch, deadline_slot: batch.deadline_slot + 1n }, 'signer_rejected');
});

test('confirmation_timeout: the batch reached the chain after its deadline', async () => {
  const w = await matched();
  const batch = w.trade(w.bid, w.ask, 2n, 300n, { deadline: w.chain.slot + 1n });
  w.chain.advance(2);
  failsWith(w, batch, 'confirmation_timeout');
});

test("chain_rejected: an unknown market, a zero fill tag, an output that is 0, already a leaf or repeated, a tag not the note's", async () => {
  const w = await matched();
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  const [bidLeg, askLeg] = legsOf(batch);
  const { signature: _, ...unsigned } = batch;
  const elsewhere = accountAddress('market', 'nowhere');
  failsWith(w, signSettlementBatch({ ...unsigned, market_id: elsewhere }, w.signer), 'chain_rejected');
  const zero = '00'.repeat(32);
  failsWith(w, withLegs(w, batch, [{ ...bidLeg, fill_tags: [zero] }, askLeg]), 'chain_rejected');
  failsWith(
    w,
    withLegs(w, batch, [{ ...bidLeg, received: { tree_id: 0, commitment: zero } }, askLeg]),
    'chain_rejected',
  );
  const leaf = { tree_id: 0, commitment: w.bid.note.hex.commitment };
  failsWith(w, withLegs(w, batch, [{ ...bidLeg, change: leaf }, askLeg]), 'chain_rejected');
  const bidChange = bidLeg.change;
  assert.ok(bidChange);
  failsWith(w, withLegs(w, batch, [bidLeg, { ...askLeg, change: bidChange }]), 'chain_rejected');
  failsWith(
    w,
    withLegs(w, batch, [{ ...bidLeg, received: { tree_id: 9, commitment: fieldToHex(5n) } }, askLeg]),
    'chain_rejected',
  );
  // A deposited note's tag is known: another one is refused before any proof is looked at.
  const otherTag = w.ask.note.hex.noteUseTag;
  const message = failsWith(
    w,
    withLegs(w, batch, [{ ...bidLeg, input: { ...bidLeg.input, note_use_tag: otherTag } }, askLeg]),
    'chain_rejected',
  );
  assert.match(message, /legs\[0\]/);
  // Atomic: neither input was consumed by any of the failures.
  assert.equal(w.chain.consumedEntry(w.bid.note.hex.noteUseTag), undefined);
  assert.equal(w.chain.submitSettlement(batch).state, 'landed');
});

test('proof_invalid: a leg that says anything its proof was not made for is named', async () => {
  const w = await matched();
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  const [bidLeg, askLeg] = legsOf(batch);
  const other = fieldToHex(12345n);
  const flipped = (proof: string) => (proof[0] === '0' ? '1' : '0') + proof.slice(1);
  const { change: _, ...spentOut } = askLeg;
  const lies: [string, SettlementLeg[]][] = [
    ['a received commitment', [{ ...bidLeg, received: { tree_id: 0, commitment: other } }, askLeg]],
    ['a change commitment', [bidLeg, { ...askLeg, change: { tree_id: 0, commitment: other } }]],
    ['a dropped change', [bidLeg, spentOut]],
    ['a fill tag', [bidLeg, { ...askLeg, fill_tags: [other] }]],
    ['the side', [{ ...bidLeg, side: 'ask' }, askLeg]],
    ['the price', [bidLeg, { ...askLeg, clearing_price: askLeg.clearing_price + 1n }]],
    ['a proof byte', [{ ...bidLeg, proof: flipped(bidLeg.proof) }, askLeg]],
    [
      'the proofs swapped',
      [
        { ...bidLeg, proof: askLeg.proof },
        { ...askLeg, proof: bidLeg.proof },
      ],
    ],
  ];
  for (const [lie, legs] of lies) {
    const message = failsWith(w, withLegs(w, batch, legs), 'proof_invalid');
    assert.match(message, /legs\[/, lie);
  }
  assert.equal(w.chain.submitSettlement(batch).state, 'landed');
});

test('proof_invalid: valid proofs whose fills do not pair (each fill is one bid and one ask)', async () => {
  const w = await matched();
  const plan = w.plan(w.bid, w.ask, 2n, 300n);
  const [bidProof, askProof] = standInProofs(plan);
  assert.ok(bidProof && askProof);
  // The ask proves a fill of its own, not the bid's: each proof holds, the pairing does not.
  const statement = { ...askProof.statement, fillTags: [99n, 0n, 0n, 0n] };
  const batch = w.batchOf(plan, [bidProof, { statement, proof: standInMatchProof(statement) }]);
  const [bidLeg, askLeg] = legsOf(batch);
  const unpaired = withLegs(w, batch, [bidLeg, { ...askLeg, fill_tags: [fieldToHex(99n)] }]);
  assert.match(failsWith(w, unpaired, 'proof_invalid'), /fills of legs\[0\], legs\[1\] do not pair/);
  // Two bids showing one fill: the same leg twice cannot even be sent (it spends one note twice).
  assert.equal(w.chain.submitSettlement(batch).reason, 'proof_invalid');
});

test('proof_invalid: legs proved for one batch do not settle under another batch_seq or deadline', async () => {
  const w = await matched();
  const plan = w.plan(w.bid, w.ask, 2n, 300n);
  failsWith(
    w,
    w.batchOf(plan, standInProofs(plan), { deadline: plan.header.deadlineSlot + 1n }),
    'proof_invalid',
  );
  // Land batch 0 with other notes, then offer the legs proved for batch 0 as batch 1.
  const bid = w.deposit(w.wallet(3), 'quote', 500n);
  const ask = w.deposit(w.wallet(4), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 20n);
  assert.equal(w.chain.submitSettlement(w.trade(bid, ask, 1n, 300n)).state, 'landed');
  failsWith(w, w.batchOf(plan, standInProofs(plan), { batchSeq: 1n }), 'proof_invalid');
  assert.equal(w.chain.submitSettlement(w.batchOf(w.plan(w.bid, w.ask, 2n, 300n))).state, 'landed');
});

test('a settlement output is spent by its owner: settled again, or withdrawn with a proof', async () => {
  const w = await matched();
  const alice = w.wallet(1);
  const plan = w.plan(w.bid, w.ask, 2n, 300n);
  assert.equal(w.chain.submitSettlement(w.batchOf(plan)).state, 'landed');
  const [aliceBase, aliceChange] = outputsOf(plan) as [HeldNote, HeldNote];
  assert.equal(aliceBase.note.assetId, BASE);
  // Alice now asks with the base she bought; the proof binds its (opaque) tag to its commitment.
  const carol = w.deposit(w.wallet(3), 'quote', 100n);
  w.lock([aliceBase, carol], w.chain.slot + 20n);
  const resale = w.trade(carol, aliceBase, 1n, 300n);
  const [carolLeg, aliceLeg] = legsOf(resale);
  const stranger = w.deposit(w.wallet(4), 'base', 1n);
  w.lock([stranger], w.chain.slot + 20n);
  const wrongTag = { ...aliceLeg, input: { ...aliceLeg.input, note_use_tag: stranger.note.hex.noteUseTag } };
  failsWith(w, withLegs(w, resale, [carolLeg, wrongTag]), 'proof_invalid');
  assert.equal(w.chain.submitSettlement(resale).state, 'landed');
  // The change is withdrawn with a VALID_SPEND proof: the asset is the one the match proof fixed.
  const { request } = await w.withdrawal(alice, aliceChange);
  assert.throws(
    () => w.chain.withdraw(signWithdraw({ ...request, value: request.value + 1n }, alice.authority)),
    (e: unknown) => e instanceof ChainError && e.reason === 'proof_invalid',
  );
  const receipt = w.chain.withdraw(request);
  assert.deepEqual([receipt.mint, receipt.value], [QUOTE_MINT, 494n]);
  assert.equal(w.chain.consumedEntry(aliceChange.note.hex.noteUseTag)?.by, 'withdraw');
});

test('the chain never stores or logs an amount, owner or blinding of a settlement output', async () => {
  const w = await world();
  // Marked amounts: no deposit shares a digit string with any output.
  const bid = w.deposit(w.wallet(1), 'quote', 7_777_777_777n);
  const ask = w.deposit(w.wallet(2), 'base', 3_333_333n);
  w.lock([bid, ask], w.chain.slot + 20n);
  const events: unknown[] = [];
  w.chain.onEvent((event) => events.push(event));
  const plan = w.plan(bid, ask, 1_234_567n, 4_321n);
  const batch = w.batchOf(plan);
  const record = w.chain.submitSettlement(batch);
  assert.equal(record.state, 'landed', record.message);
  const secrets = plan.settled.flatMap(({ received, change }) =>
    [received, change].flatMap((note) => [
      note.value.toString(),
      fieldToHex(note.value),
      note.hex.innerHash,
      fieldToHex(note.blinding),
    ]),
  );
  // Everything the chain holds or said, bigints as 64-hex field elements (a stored value shows as one).
  const ledger = (w.chain as unknown as { ledger: unknown }).ledger;
  const seen = JSON.stringify(
    { ledger, record, events, log: w.chain.settlement(record.tx_id) },
    (key, value) => {
      if (key === 'hasher' || key === 'tree') return undefined;
      if (typeof value === 'bigint') return fieldToHex(value);
      return value instanceof Map ? [...value.entries()] : value;
    },
  );
  for (const secret of secrets) assert.ok(!seen.includes(secret), `${secret} leaked`);
  // The message carries none of them either: commitments, tags, side, price and proofs only.
  const sent = JSON.stringify(batch, (_key, value) =>
    typeof value === 'bigint' ? fieldToHex(value) : value,
  );
  for (const secret of secrets) assert.ok(!sent.includes(secret), `${secret} sent`);
  for (const out of outputsOf(plan))
    assert.ok(seen.includes(out.note.hex.commitment), 'the commitments are there');
});

const NEXT_SIGNER = tradingKeyFromSeed(new Uint8Array(32).fill(7));
const NEXT = { measurement: 'cd'.repeat(32), settlement_signer: NEXT_SIGNER.publicKey };

test('a governance change is not in force until its slot is final, then it is', async () => {
  const w = await world({ finalityDepth: 4 });
  const { chain } = w;
  chain.advance();
  const view = chain.proposeGovernance(signGovernance({ ...NEXT, sequence: 1n }, w.authority));
  assert.equal(view.pending.length, 1);
  assert.equal(view.effective.settlement_signer, w.signer.publicKey);
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], chain.slot + 20n);
  chain.advance(3);
  assert.equal(chain.governanceValues().settlement_signer, w.signer.publicKey, 'three slots: not final');
  assert.equal(
    chain.submitSettlement(w.trade(bid, ask, 2n, 300n, { key: NEXT_SIGNER })).reason,
    'signer_rejected',
  );
  chain.advance();
  assert.deepEqual(chain.governanceValues(), NEXT);
  assert.equal(chain.governance().pending.length, 0);
  assert.equal(
    chain.submitSettlement(w.trade(bid, ask, 2n, 300n)).reason,
    'signer_rejected',
    'the old signer is out',
  );
  assert.equal(chain.submitSettlement(w.trade(bid, ask, 2n, 300n, { key: NEXT_SIGNER })).state, 'landed');
});

test('governance actions need the authority and the next sequence number', async () => {
  const w = await world();
  assert.throws(
    () => w.chain.proposeGovernance(signGovernance({ ...NEXT, sequence: 1n }, w.signer)),
    (e: unknown) => e instanceof ChainError && e.reason === 'unauthorized',
  );
  assert.throws(
    () => w.chain.proposeGovernance(signGovernance({ ...NEXT, sequence: 2n }, w.authority)),
    (e: unknown) => e instanceof ChainError && e.reason === 'conflict',
  );
});

test('a reorg before finality drops a pending governance change', async () => {
  const w = await world({ finalityDepth: 4 });
  w.chain.advance();
  const before = w.chain.stateHash();
  w.chain.advance();
  w.chain.proposeGovernance(signGovernance({ ...NEXT, sequence: 1n }, w.authority));
  w.chain.reorg(1n);
  assert.equal(w.chain.stateHash(), before);
  w.chain.advance(10);
  assert.equal(w.chain.governanceValues().settlement_signer, w.signer.publicKey);
});
