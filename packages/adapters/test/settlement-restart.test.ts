// Settlement across a real venue restart (docs/settlement.md section 5, docs/durability.md): the
// engine journals into a state directory, the process "dies" (engine and pipeline dropped, memory
// lost), and a new engine boots from the directory with empty note openings. Whatever the venue had
// accepted must still settle: resting orders placed before the restart, a remainder resting on a
// change note the pipeline derived, and matches cleared but not yet settled. Each case runs twice:
// with a snapshot after every record (openings come back from the snapshot) and with no snapshot
// (openings come back from the journaled commands).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MARKET, SettlementWorld } from './settlement-world.ts';

const FINALITY = 4;

const MODES = [
  { name: 'from the snapshot', snapshotIntervalRecords: 1 },
  { name: 'from the journal', snapshotIntervalRecords: 1_000_000 },
] as const;

async function stateWorld(snapshotIntervalRecords: number) {
  const directory = await mkdtemp(join(tmpdir(), 'settle-restart-'));
  const world = await SettlementWorld.create({
    finalityDepth: FINALITY,
    state: { directory, sealingKey: randomBytes(32), snapshotIntervalRecords },
  });
  return {
    world,
    async dispose() {
      world.settlement.stop();
      await world.engine.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The restart must have found what the mode says it finds. */
function assertRecoveredAsMode(world: SettlementWorld, snapshotIntervalRecords: number): void {
  const snapshot = world.recovery?.snapshot ?? null;
  if (snapshotIntervalRecords === 1) assert.notEqual(snapshot, null, 'a snapshot was restored');
  else assert.equal(snapshot, null, 'no snapshot: everything came from the journal');
}

for (const mode of MODES) {
  test(`openings ${mode.name}: an order resting before a restart settles after it`, async () => {
    const { world, dispose } = await stateWorld(mode.snapshotIntervalRecords);
    try {
      const alice = world.wallet('alice');
      const bob = world.wallet('bob');
      const quoteNote = world.deposit(alice, 'quote', 15_000n);
      await world.advanceDurably(1);
      const bid = world.order(alice, quoteNote, 'bid', 10n);
      await world.place(alice, bid);
      await world.advanceDurably(2); // the engine's snapshot policy runs on these ticks
      await world.restart();
      assertRecoveredAsMode(world, mode.snapshotIntervalRecords);
      assert.equal(
        world.openings.get(quoteNote.hex.commitment)?.ownerCommitment,
        quoteNote.hex.ownerCommitment,
      );
      const baseNote = world.deposit(bob, 'base', 10n);
      await world.advanceDurably(1);
      const ask = world.order(bob, baseNote, 'ask', 10n);
      await world.place(bob, ask);
      await world.advanceDurably(2 + FINALITY);
      assert.deepEqual(world.kindsOf(bid.order_id).slice(-2), ['pending_settlement', 'fully_filled']);
      assert.deepEqual(world.kindsOf(ask.order_id), ['pending_settlement', 'fully_filled']);
      assert.ok(world.conserved());
    } finally {
      await dispose();
    }
  });

  test(`openings ${mode.name}: a remainder on a derived change note settles after a restart`, async () => {
    const { world, dispose } = await stateWorld(mode.snapshotIntervalRecords);
    try {
      const alice = world.wallet('alice');
      const bob = world.wallet('bob');
      const carol = world.wallet('carol');
      const quoteNote = world.deposit(alice, 'quote', 15_000n);
      const bobNote = world.deposit(bob, 'base', 4n);
      await world.advanceDurably(1);
      const bid = world.order(alice, quoteNote, 'bid', 10n);
      await world.place(alice, bid);
      await world.place(bob, world.order(bob, bobNote, 'ask', 4n));
      await world.advanceDurably(2 + FINALITY);
      assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'partially_filled']);
      const change = [...world.openings.save()].find(([, , , derived]) => derived);
      assert.ok(change !== undefined, 'the pipeline derived a change note for the remainder');
      await world.restart();
      assertRecoveredAsMode(world, mode.snapshotIntervalRecords);
      assert.deepEqual(world.openings.get(change[0]), {
        ownerCommitment: change[1],
        innerHash: change[2],
        derived: true,
      });
      const carolNote = world.deposit(carol, 'base', 6n);
      await world.advanceDurably(1);
      const ask = world.order(carol, carolNote, 'ask', 6n);
      await world.place(carol, ask);
      await world.advanceDurably(2 + FINALITY);
      assert.deepEqual(world.kindsOf(bid.order_id).slice(-2), ['pending_settlement', 'fully_filled']);
      assert.deepEqual(world.kindsOf(ask.order_id), ['pending_settlement', 'fully_filled']);
      assert.ok(world.conserved());
      assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 2n);
    } finally {
      await dispose();
    }
  });

  test(`openings ${mode.name}: matches cleared but unsettled at the restart settle once`, async () => {
    const { world, dispose } = await stateWorld(mode.snapshotIntervalRecords);
    try {
      const alice = world.wallet('alice');
      const bob = world.wallet('bob');
      const quoteNote = world.deposit(alice, 'quote', 15_000n);
      const baseNote = world.deposit(bob, 'base', 10n);
      await world.advanceDurably(1);
      const bid = world.order(alice, quoteNote, 'bid', 10n);
      const ask = world.order(bob, baseNote, 'ask', 10n);
      await world.place(alice, bid);
      await world.place(bob, ask);
      world.settlement.stop();
      await world.advanceDurably(2);
      world.engine.catchUp(); // the batch clears with no pipeline listening
      await world.engine.settled();
      assert.equal(world.engine.core.pendingMatches().length, 2);
      await world.advanceDurably(3); // quiet slots: the snapshot policy catches up past the match
      await world.restart();
      assert.equal(world.facts.size, 2, 'both matches came back with their price and counterparts');
      assertRecoveredAsMode(world, mode.snapshotIntervalRecords);
      assert.equal(world.engine.core.pendingMatches().length, 2, 'the matches came back pending');
      await world.advanceDurably(2 + FINALITY);
      assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'fully_filled']);
      assert.deepEqual(world.kindsOf(ask.order_id), ['pending_settlement', 'fully_filled']);
      assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'exactly one batch applied');
      assert.equal(world.engine.core.pendingMatches().length, 0);
      assert.ok(world.conserved());
      // The batch price came back with the match facts, so each owner still gets its fill memo.
      const fills = world.published.filter((p) => p.channel === 'fills');
      assert.deepEqual(fills.map((p) => p.accountId).sort(), [alice.accountId, bob.accountId]);
      assert.equal(world.facts.size, 0, 'facts are dropped once the outcome is applied');
    } finally {
      await dispose();
    }
  });
}
