// Settlement: a signed batch either lands whole (inputs consumed, locks released, outputs appended,
// the market's sequence moved on) or fails with the one reason its situation calls for, changing
// nothing. Statuses follow the confirmation levels. Governance changes of the signer count only once
// final, and a reorg before that undoes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rootFromPath } from '@venue/notes';
import { type SettlementFailureReason, tradingKeyFromSeed } from '@venue/protocol';
import {
  accountAddress,
  ChainError,
  type SettlementBatch,
  signGovernance,
  signSettlementBatch,
  treeReads,
} from '../src/index.ts';
import { BASE_MINT, QUOTE_MINT, type World, world } from './fixtures.ts';

/** Alice bids 300 quote for 2 base; Bob asks 5 base. Both notes locked by the market. */
async function matched(options = {}) {
  const w = await world({ finalityDepth: 4, ...options });
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 20n);
  return { ...w, bid, ask };
}

function failsWith(w: World, batch: SettlementBatch, reason: SettlementFailureReason): void {
  const before = w.chain.stateHash();
  const record = w.chain.submitSettlement(batch);
  assert.equal(record.state, 'failed');
  assert.equal(record.reason, reason, record.message);
  assert.equal(w.chain.stateHash(), before, 'a failed batch changes nothing');
  assert.equal(treeReads(w.chain).settlementStatus({ by: 'tx', tx_id: record.tx_id }).reason, reason);
}

test('a landed batch consumes its inputs, releases their locks and appends the fills and changes', async () => {
  const w = await matched();
  const { chain, bid, ask } = w;
  const leavesBefore = chain.leafCount(0);
  const record = chain.submitSettlement(w.trade(bid, ask, 2n, 300n));
  assert.equal(record.state, 'landed', record.message);
  assert.equal(record.appended?.length, 4);
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
  const audit = chain.audit();
  assert.deepEqual(audit.get(BASE_MINT), { vault: 5n, notes: 5n });
  assert.deepEqual(audit.get(QUOTE_MINT), { vault: 500n, notes: 500n });
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

test('chain_rejected: value not conserved, outputs to another owner, unknown market', async () => {
  const w = await matched();
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  const [bidLeg, askLeg] = batch.legs;
  assert.ok(bidLeg && askLeg);
  const resign = (legs: SettlementBatch['legs']) => {
    const { signature: _, ...unsigned } = batch;
    return signSettlementBatch({ ...unsigned, legs }, w.signer);
  };
  // The ask's change is dropped: 3 base vanish.
  failsWith(w, resign([bidLeg, { ...askLeg, outputs: askLeg.outputs.slice(0, 1) }]), 'chain_rejected');
  // The bid's fill is handed to Bob's note owner.
  const stolen = askLeg.outputs[0];
  assert.ok(stolen);
  failsWith(w, resign([{ ...bidLeg, outputs: [stolen] }, askLeg]), 'chain_rejected');
  // Atomic: neither input was consumed by any of the failures.
  assert.equal(w.chain.consumedEntry(w.bid.note.hex.noteUseTag), undefined);
  assert.equal(w.chain.submitSettlement(batch).state, 'landed');
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
