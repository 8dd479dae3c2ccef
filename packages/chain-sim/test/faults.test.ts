// Fault injection: each armed fault does exactly what it says once, and a reorg rolls the ledger
// back to the exact state at the end of the target slot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChainError, treeReads } from '../src/index.ts';
import { world } from './fixtures.ts';

async function matched(options = {}) {
  const w = await world({ finalityDepth: 8, ...options });
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 30n);
  return { ...w, bid, ask };
}

test('an injected failure fails the next settlement of the market with its reason, once', async () => {
  const w = await matched();
  w.chain.faults.failNextSettlement('chain_rejected', w.market.market_id);
  const before = w.chain.stateHash();
  const failed = w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n));
  assert.equal(failed.reason, 'chain_rejected');
  assert.equal(w.chain.stateHash(), before);
  assert.equal(
    w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n, { deadline: w.chain.slot + 11n })).state,
    'landed',
  );
});

test('a delayed settlement stays submitted, then lands; past its deadline it times out', async () => {
  const w = await matched();
  w.chain.faults.delayNextSettlement(3n);
  const record = w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n));
  assert.equal(record.state, 'pending');
  w.chain.advance(2);
  assert.equal(treeReads(w.chain).settlementStatus({ by: 'tx', tx_id: record.tx_id }).status, 'submitted');
  w.chain.advance();
  assert.equal(w.chain.settlement(record.tx_id)?.state, 'landed');

  const bid = w.deposit(w.wallet(1), 'quote', 300n);
  const ask = w.deposit(w.wallet(2), 'base', 2n);
  w.lock([bid, ask], w.chain.slot + 30n);
  w.chain.faults.delayNextSettlement(5n);
  const late = w.chain.submitSettlement(w.trade(bid, ask, 2n, 300n, { deadline: w.chain.slot + 2n }));
  w.chain.advance(5);
  assert.equal(w.chain.settlement(late.tx_id)?.reason, 'confirmation_timeout');
});

test('an expired root makes a settlement against it fail with root_expired', async () => {
  const w = await matched();
  const root = w.chain.currentRoot(0).root;
  w.chain.faults.expireRoot(0, root);
  assert.equal(
    w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n, { roots: [root, root] })).reason,
    'root_expired',
  );
});

test('a reverted lock stops blocking withdrawals and fails the settlement with lock_reverted', async () => {
  const w = await matched();
  w.chain.faults.revertLock(w.ask.note.hex.noteUseTag);
  assert.equal(w.chain.isLocked(w.ask.note.hex.noteUseTag), false);
  assert.equal(w.chain.submitSettlement(w.trade(w.bid, w.ask, 2n, 300n)).reason, 'lock_reverted');
});

test('a stall swallows slots until it runs out or is resumed', async () => {
  const { chain } = await world();
  chain.faults.stallSlots(2);
  assert.equal(chain.advance(3), 1n);
  chain.faults.stallSlots();
  assert.equal(chain.advance(100), 1n);
  chain.faults.resumeSlots();
  assert.equal(chain.advance(), 2n);
});

test('a reorg restores the exact state of the target slot and forgets the batches it dropped', async () => {
  const w = await matched();
  const { chain } = w;
  chain.advance();
  const target = chain.slot;
  const hash = chain.stateHash();
  const rootsBefore = treeReads(chain).roots();
  chain.advance();
  const batch = w.trade(w.bid, w.ask, 2n, 300n);
  const landed = chain.submitSettlement(batch);
  assert.equal(landed.state, 'landed');
  chain.advance();
  const extra = w.deposit(w.wallet(3), 'base', 9n, 1);
  w.lock([extra], chain.slot + 5n);
  chain.faults.revertLock(extra.note.hex.noteUseTag);
  chain.advance();
  assert.notEqual(chain.stateHash(), hash);
  const dropped = chain.rollbackTo(target);
  assert.deepEqual(dropped, [landed.tx_id]);
  assert.equal(chain.stateHash(), hash);
  assert.deepEqual(
    treeReads(chain)
      .roots()
      .trees.map((t) => t.root),
    rootsBefore.trees.map((t) => t.root),
  );
  assert.equal(chain.settlement(landed.tx_id), undefined);
  // The same signed batch can land again on the new fork.
  assert.equal(chain.submitSettlement(batch).state, 'landed');
});

test('final slots cannot be rolled back', async () => {
  const w = await matched();
  w.chain.advance(20);
  assert.throws(
    () => w.chain.rollbackTo(w.chain.finalizedSlot() - 1n),
    (e: unknown) => e instanceof ChainError && e.reason === 'bad_request',
  );
  assert.deepEqual(w.chain.rollbackTo(w.chain.finalizedSlot()), []);
});
