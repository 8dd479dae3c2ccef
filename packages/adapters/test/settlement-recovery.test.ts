// Settlement under a stalled chain, a reorg, and a venue restart (docs/settlement.md sections 3
// and 5): a stall only delays; a reorg before finality re-lands the same signed batch; and a new
// pipeline built over the same core state and chain reconciles, so that no batch is applied twice
// and no match is lost, whatever the old pipeline had done when it stopped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MARKET, SettlementWorld } from './settlement-world.ts';

const FINALITY = 4;

async function crossing(world: SettlementWorld) {
  const alice = world.wallet('alice');
  const bob = world.wallet('bob');
  const quoteNote = world.deposit(alice, 'quote', 20_000n);
  const baseNote = world.deposit(bob, 'base', 10n);
  world.advance(1);
  const bid = world.order(alice, quoteNote, 'bid', 10n);
  const ask = world.order(bob, baseNote, 'ask', 10n);
  await world.place(alice, bid);
  await world.place(bob, ask);
  return { bid, ask };
}

function assertFilledOnce(world: SettlementWorld, orderIds: readonly string[]): void {
  for (const id of orderIds) assert.deepEqual(world.kindsOf(id), ['pending_settlement', 'fully_filled'], id);
  assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'exactly one batch applied');
  assert.ok(world.conserved());
  assert.equal(world.engine.core.pendingMatches().length, 0);
}

test('a stalled chain delays settlement; it completes once slots resume', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.chain.faults.stallSlots();
  world.advance(10);
  assert.deepEqual(world.kindsOf(bid.order_id), []);
  world.chain.faults.resumeSlots();
  world.advance(1 + FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
});

test('a reorg that drops the landed batch before finality re-lands the same signed batch', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.advance(1);
  const first = world.chain.settlementForBatch(MARKET.marketId, 0n);
  assert.equal(first?.state, 'landed');
  const dropped = world.chain.reorg(1n);
  assert.deepEqual(dropped, [first?.tx_id]);
  // The reorg beat re-locked and resubmitted: the same transaction landed again.
  assert.equal(world.chain.settlement(first?.tx_id ?? '')?.state, 'landed');
  world.advance(FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
});

test('reboot while the batch is still pending on chain: the same batch is followed, not repeated', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.chain.faults.delayNextSettlement(3n);
  world.advance(1);
  assert.equal(world.chain.settlementForBatch(MARKET.marketId, 0n)?.state, 'pending');
  world.settlement.stop();
  world.settlement = world.newPipeline();
  world.settlement.reconcile();
  world.advance(3 + FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
});

test('reboot after the batch landed: the match is reported at finality without a second batch', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.advance(1);
  world.settlement.stop();
  world.advance(1);
  world.settlement = world.newPipeline();
  world.settlement.reconcile();
  world.advance(FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
  // A match recovered at boot has no batch price, so no memo is sent for it (section 4).
  assert.equal(world.published.filter((p) => p.channel === 'fills').length, 0);
});

test('reboot before the pipeline heard the match: it locks, batches and settles it', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.settlement.stop();
  world.advance(1);
  world.engine.catchUp(); // the batch clears with no pipeline listening
  assert.equal(world.engine.core.pendingMatches().length, 2);
  world.settlement = world.newPipeline();
  world.settlement.reconcile();
  world.advance(1 + FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
});

test('a second reconcile over a running pipeline changes nothing', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { bid, ask } = await crossing(world);
  world.advance(1);
  world.settlement.reconcile();
  world.advance(FINALITY);
  assertFilledOnce(world, [bid.order_id, ask.order_id]);
});
