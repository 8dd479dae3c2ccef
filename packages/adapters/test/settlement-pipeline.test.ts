// The settlement pipeline against the chain simulator (docs/settlement.md): a crossing pair settles
// at finality with events in spec order, readable fill memos, the right notes in the tree and value
// conserved per mint; partial fills re-lock the change note; every injected fault ends in the right
// event with its lock expiry, after which (and only after which) the input is reusable; a reorg
// before finality resubmits the same batch; and a rebooted pipeline reconciles without applying a
// batch twice or losing one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFillMemo } from '@venue/notes';
import { VenueError } from '@venue/protocol';
import { placeCommand } from '@venue/testing';
import { MARKET, SettlementWorld } from './settlement-world.ts';

const FINALITY = 4;

/** A bid for `amount` base against an ask for `askAmount`, both placed now; returns both orders. */
async function crossing(world: SettlementWorld, amount = 10n, askAmount = amount) {
  const alice = world.wallet('alice');
  const bob = world.wallet('bob');
  const quoteNote = world.deposit(alice, 'quote', 20_000n);
  const baseNote = world.deposit(bob, 'base', askAmount);
  world.advance(1); // the roots with the deposits reach the venue
  const bid = world.order(alice, quoteNote, 'bid', amount);
  const ask = world.order(bob, baseNote, 'ask', askAmount);
  await world.place(alice, bid);
  await world.place(bob, ask);
  return { alice, bob, bid, ask, quoteNote, baseNote };
}

test('a crossing pair settles at finality: events in order, memos readable by owners only, notes in the tree', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { alice, bob, bid, ask, quoteNote, baseNote } = await crossing(world);
  world.advance(1); // the batch clears, the notes are locked, the settlement batch lands
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement']);
  // Locked, batched and landed within the slot: the input is consumed, its lock gone with it.
  const tag = world.hasher.noteUseTagHex(quoteNote.hex.ownerCommitment, quoteNote.hex.innerHash);
  assert.ok(world.chain.consumedEntry(tag));
  assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n);
  world.advance(FINALITY - 1);
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement'], 'not final yet');
  world.advance(1);
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'fully_filled']);
  assert.deepEqual(world.kindsOf(ask.order_id), ['pending_settlement', 'fully_filled']);
  assert.ok(world.conserved());

  const fills = world.fills();
  assert.equal(fills.length, 2);
  const memoFor = (orderId: string) => {
    const fill = fills.find((p) => p.message.order_id === orderId);
    assert.ok(fill);
    return { fill, memo: fill.message.memo, matchId: fill.message.match_id };
  };
  const bidFill = memoFor(bid.order_id);
  assert.equal(bidFill.fill.accountId, alice.accountId);
  const opened = openFillMemo(
    alice.viewing.privateKey,
    { orderId: bid.order_id, matchId: bidFill.matchId },
    bidFill.memo,
  );
  assert.equal(opened.fill_quantity, 10n);
  assert.equal(opened.quote_amount, 15n); // floor(10 x 1500 / 1000)
  assert.equal(opened.received.amount, 10n);
  assert.equal(opened.received.mint, MARKET.baseMint);
  assert.equal(opened.change?.amount, quoteNote.value - 15n);
  // The notes named in the memo are leaves of the tree where it says.
  assert.equal(world.chain.locate(opened.received.commitment)?.leaf_index, opened.received.leaf_index);
  assert.ok(world.chain.locate(opened.change?.commitment ?? ''));
  // Only the owner can read it.
  assert.throws(
    () =>
      openFillMemo(bob.viewing.privateKey, { orderId: bid.order_id, matchId: bidFill.matchId }, bidFill.memo),
    VenueError,
  );
  const askFill = memoFor(ask.order_id);
  const askMemo = openFillMemo(
    bob.viewing.privateKey,
    { orderId: ask.order_id, matchId: askFill.matchId },
    askFill.memo,
  );
  assert.equal(askMemo.received.amount, 15n);
  assert.equal(askMemo.received.mint, MARKET.quoteMint);
  assert.equal(baseNote.value, 10n);
  assert.equal(askMemo.change, undefined, 'a spent-out note leaves no change note');

  // The tree channel announced the appended leaves.
  const tree = world.trees().filter((message) => message.tree_id === 0);
  const announced = tree.flatMap((message) => message.leaves).map((l) => l.commitment);
  assert.ok(announced.includes(opened.received.commitment));

  const metrics = world.metrics.market(MARKET.marketId);
  assert.equal(metrics.batches_submitted, 1);
  assert.equal(metrics.batches_confirmed, 1);
  assert.equal(metrics.queue_depth, 0);
  assert.deepEqual(metrics.batch_size_histogram, [{ min_matches: 2, max_matches: 3, batches: 1 }]);
  assert.equal(metrics.match_to_final_slots_p50, BigInt(FINALITY));
});

test('a partial fill rests on its change note, which the next batch settles', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY });
  const { alice, ask } = await crossing(world, 4n, 10n);
  world.advance(1 + FINALITY);
  const partial = world.eventsOf(ask.order_id).at(-1);
  assert.equal(partial?.kind, 'partially_filled');
  assert.equal(partial?.filledQuantity, 4n);
  assert.equal(partial?.newAmount, 6n);
  assert.equal(partial?.newNoteAmount, 6n);

  const more = world.deposit(alice, 'quote', 9n);
  world.advance(1);
  const bid = world.order(alice, more, 'bid', 6n);
  await world.place(alice, bid);
  world.advance(1 + FINALITY);
  assert.deepEqual(world.kindsOf(ask.order_id), [
    'pending_settlement',
    'partially_filled',
    'pending_settlement',
    'fully_filled',
  ]);
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'fully_filled']);
  assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 2n);
  assert.ok(world.conserved());
});

/** The failure event of an order, after checking there is exactly one and it is terminal. */
function failureOf(world: SettlementWorld, orderId: string) {
  const kinds = world.kindsOf(orderId);
  assert.deepEqual(kinds, ['pending_settlement', 'settlement_failed'], `events of ${orderId}`);
  return world.eventsOf(orderId).at(-1);
}

test('every injected fault ends in settlement_failed with its reason and lock expiry', async (t) => {
  const cases: {
    name: string;
    reason: string;
    arm(world: SettlementWorld, notes: { tags: string[]; root: string }): void;
    /** Runs once the match's notes are locked (after the first slot). */
    afterMatch?(world: SettlementWorld, notes: { tags: string[]; root: string }): void;
    /** Slots to run after the match batch before looking. */
    slots: number;
    /** Batches that fail on chain (default 1); a fault caught before a batch is sent fails none. */
    batchesFailed?: number;
  }[] = [
    {
      name: 'fail',
      reason: 'chain_rejected',
      arm: (world) => world.chain.faults.failNextSettlement('chain_rejected'),
      slots: 1,
    },
    {
      name: 'delay past the deadline',
      reason: 'confirmation_timeout',
      arm: (world) => world.chain.faults.delayNextSettlement(40n),
      slots: 45,
    },
    {
      name: 'expired root',
      reason: 'root_expired',
      arm: (world, notes) => world.chain.faults.expireRoot(0, notes.root),
      slots: 1,
      // Spec 2.1: the root is checked against the chain's window at lock, so no batch is sent.
      batchesFailed: 0,
    },
    {
      name: 'reverted lock',
      reason: 'lock_reverted',
      arm: (world) => world.chain.faults.delayNextSettlement(2n),
      afterMatch: (world, notes) => {
        for (const tag of notes.tags) world.chain.faults.revertLock(tag);
      },
      slots: 4,
    },
    {
      name: 'signer no longer accepted',
      reason: 'signer_rejected',
      arm: (world) => world.chain.faults.failNextSettlement('signer_rejected'),
      slots: 1,
    },
  ];
  for (const fault of cases) {
    await t.test(fault.name, async () => {
      const world = await SettlementWorld.create({ finalityDepth: FINALITY });
      const { bid, ask, quoteNote, baseNote } = await crossing(world);
      const tags = [quoteNote, baseNote].map((n) =>
        world.hasher.noteUseTagHex(n.hex.ownerCommitment, n.hex.innerHash),
      );
      const notes = { tags, root: bid.merkle_root };
      fault.arm(world, notes);
      world.advance(1);
      fault.afterMatch?.(world, notes);
      world.advance(fault.slots - 1);
      const failed = failureOf(world, bid.order_id);
      assert.equal(failed?.reason, fault.reason);
      assert.equal(failureOf(world, ask.order_id)?.reason, fault.reason);
      const lockExpiry = failed?.lockExpirySlot;
      assert.ok(lockExpiry !== undefined);
      assert.ok(world.conserved());
      assert.equal(world.metrics.market(MARKET.marketId).batches_failed, fault.batchesFailed ?? 1);
      await reusableOnlyAfter(world, quoteNote, lockExpiry, fault.name);
    });
  }
});

/**
 * A failed order's input (spec 3.1): a fresh order on the same note is refused by the venue through
 * the lock expiry slot, and the chain's lock blocks through that slot too; from the next slot both
 * let it be used again.
 */
async function reusableOnlyAfter(
  world: SettlementWorld,
  note: ReturnType<SettlementWorld['deposit']>,
  lockExpiry: bigint,
  label: string,
) {
  const alice = world.wallet('alice');
  const tag = world.hasher.noteUseTagHex(note.hex.ownerCommitment, note.hex.innerHash);
  if (world.chain.slot <= lockExpiry) {
    const early = world.order(alice, note, 'bid', 10n);
    await assert.rejects(
      world.engine.submit(placeCommand(early, world.chain.slot, alice.accountId)),
      VenueError,
      label,
    );
    const lock = world.chain.lock(tag);
    if (lock !== undefined && !lock.reverted) assert.equal(world.chain.isLocked(tag), true, label);
    world.advance(Number(lockExpiry - world.chain.slot) + 1);
  }
  assert.equal(world.chain.isLocked(tag), false, label);
  const again = world.order(alice, note, 'bid', 10n);
  await world.engine.submit(placeCommand(again, world.chain.slot, alice.accountId));
}

/** One bid against `asks` asks of one unit each; the bid meets every ask in one auction. */
async function oneAgainstMany(world: SettlementWorld, asks: number) {
  const alice = world.wallet('alice');
  const quoteNote = world.deposit(alice, 'quote', 20_000n);
  const sellers = Array.from({ length: asks }, (_, i) => {
    const seller = world.wallet(`seller-${i}`);
    return { seller, note: world.deposit(seller, 'base', 1n) };
  });
  world.advance(1);
  const bid = world.order(alice, quoteNote, 'bid', BigInt(asks));
  await world.place(alice, bid);
  const orders = [];
  for (const { seller, note } of sellers) {
    const ask = world.order(seller, note, 'ask', 1n);
    await world.place(seller, ask);
    orders.push(ask);
  }
  return { bid, asks: orders };
}

test('an order meeting up to 16 counterparties settles with the wide proof; more fail at admission, said to the operator', async () => {
  for (const [asks, settles] of [
    [6, true],
    [16, true],
    [17, false],
  ] as const) {
    const world = await SettlementWorld.create({ finalityDepth: FINALITY });
    const { bid, asks: orders } = await oneAgainstMany(world, asks);
    world.advance(1 + FINALITY);
    const end = settles ? 'fully_filled' : 'settlement_failed';
    for (const order of [bid, ...orders]) {
      assert.deepEqual(world.kindsOf(order.order_id), ['pending_settlement', end], `${asks} asks`);
    }
    assert.ok(world.conserved());
    if (settles) {
      assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'one batch');
      assert.deepEqual(world.logs, []);
    } else {
      assert.equal(world.metrics.market(MARKET.marketId).batches_submitted, 0, 'nothing sent');
      assert.equal(world.eventsOf(bid.order_id).at(-1)?.reason, 'chain_rejected');
      assert.match(world.logs.join('\n'), /more counterparties than a proof's 16 fill slots/);
    }
    await world.close();
  }
});
