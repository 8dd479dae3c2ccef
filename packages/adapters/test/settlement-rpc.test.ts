// The settlement pipeline over a chain it reaches by JSON-RPC (docs/settlement.md section 9), as
// `venue serve` settles: chain-sim's real server on a loopback port, the remote port's per-beat
// view, queued writes. A crossing pair and a partial fill settle as they do in process; an RPC
// outage (requests that never arrive, replies lost after the chain applied them, a venue restart
// in the middle) delays settlement but never applies a batch twice nor loses a match.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openFillMemo } from '@venue/notes';
import fc from 'fast-check';
import type { ProxyMode } from './settlement-rpc-proxy.ts';
import { MARKET, SettlementWorld } from './settlement-world.ts';

const FINALITY = 4;
/** Long enough that the outages below only delay: no lock runs out while the venue is blind. */
const LOCK_SLOTS = 200n;

async function crossing(world: SettlementWorld, amount = 10n, askAmount = amount, name = '') {
  const alice = world.wallet(`alice${name}`);
  const bob = world.wallet(`bob${name}`);
  const quoteNote = world.deposit(alice, 'quote', 20_000n);
  const baseNote = world.deposit(bob, 'base', askAmount);
  world.advance(1); // the roots with the deposits reach the venue
  const bid = world.order(alice, quoteNote, 'bid', amount);
  const ask = world.order(bob, baseNote, 'ask', askAmount);
  await world.place(alice, bid);
  await world.place(bob, ask);
  return { alice, bob, bid, ask, quoteNote, baseNote };
}

/** Every order filled exactly once, one landed batch per auction, value conserved, nothing pending. */
function assertSettledOnce(world: SettlementWorld, orderIds: readonly string[], batches: bigint): void {
  for (const id of orderIds) assert.deepEqual(world.kindsOf(id), ['pending_settlement', 'fully_filled'], id);
  assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, batches, 'batches applied');
  assert.ok(world.conserved());
  assert.equal(world.engine.core.pendingMatches().length, 0);
}

test('over RPC, a crossing pair settles at finality with readable memos', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  try {
    const { alice, bid, ask } = await crossing(world);
    await world.beat(1); // the auction clears; lock, batch and landing follow over a few polls
    assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'landed within the slot');
    assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement'], 'not final yet');
    await world.beat(FINALITY);
    assertSettledOnce(world, [bid.order_id, ask.order_id], 1n);
    const fill = world.fills().find((p) => p.message.order_id === bid.order_id);
    assert.ok(fill !== undefined);
    const memo = openFillMemo(
      alice.viewing.privateKey,
      { orderId: bid.order_id, matchId: fill.message.match_id },
      fill.message.memo,
    );
    assert.equal(memo.received.amount, 10n);
    // The leaf index came from the landing's record, read over RPC.
    assert.equal(world.chain.locate(memo.received.commitment)?.leaf_index, memo.received.leaf_index);
  } finally {
    await world.close();
  }
});

test('over RPC, a partial fill rests on its change note, which the next batch settles', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  try {
    const { alice, ask } = await crossing(world, 4n, 10n);
    await world.beat(1 + FINALITY);
    assert.equal(world.eventsOf(ask.order_id).at(-1)?.kind, 'partially_filled');
    const more = world.deposit(alice, 'quote', 9n);
    world.advance(1);
    const bid = world.order(alice, more, 'bid', 6n);
    await world.place(alice, bid);
    await world.beat(1 + FINALITY);
    assert.deepEqual(world.kindsOf(ask.order_id), [
      'pending_settlement',
      'partially_filled',
      'pending_settlement',
      'fully_filled',
    ]);
    assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'fully_filled']);
    assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 2n);
    assert.ok(world.conserved());
  } finally {
    await world.close();
  }
});

test('lost lock and submit replies: what landed unseen is found in the view and settled once', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  const remote = world.remote;
  assert.ok(remote !== null);
  try {
    const { bid, ask } = await crossing(world);
    // The locks and the batch reach the chain, their answers are lost: only the view tells.
    remote.proxy.only = ['lockNotes', 'submitSettlement'];
    remote.proxy.mode = 'replies-lost';
    await world.beat(1);
    assert.deepEqual(remote.proxy.lostReplies, ['lockNotes', 'submitSettlement']);
    assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'landed unseen by its sender');
    await world.beat(FINALITY);
    assertSettledOnce(world, [bid.order_id, ask.order_id], 1n);
  } finally {
    await world.close();
  }
});

test('a group waiting on the chain is asked about once per view, not on every turn in between (D123)', async (t) => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  const port = world.remote?.port;
  assert.ok(port !== null && port !== undefined);
  try {
    const pairs = [];
    for (const name of ['a', 'b', 'c']) pairs.push(await crossing(world, 10n, 10n, name));
    // Count the pipeline's questions about notes and shards, on the real port.
    const sees = port.sees.bind(port);
    let asked = 0;
    port.sees = (keys) => {
      if ((keys.tags?.length ?? 0) + (keys.trees?.length ?? 0) > 0) asked += 1;
      return sees(keys);
    };
    // The auction: three groups wait for a view that holds their notes.
    world.chain.advance(1);
    world.engine.catchUp();
    await world.engine.settled();
    const waiting = asked;
    assert.ok(waiting >= 1, 'the batch asked when it came in');
    for (let turn = 0; turn < 5; turn += 1) world.settlement.pipeline.step();
    assert.equal(asked, waiting, 'no view came, so nothing waiting asked again');
    await port.refresh();
    const next = asked;
    assert.ok(next > waiting, 'a new view: the waiting asked again');
    for (let turn = 0; turn < 5; turn += 1) world.settlement.pipeline.step();
    assert.equal(asked, next, 'and not again before the next view');
    t.diagnostic(`questions: ${waiting} on arrival, ${next - waiting} at the first view`);
    // Nothing is held back by it: every order settles once.
    await world.beat(1 + FINALITY);
    assertSettledOnce(
      world,
      pairs.flatMap((p) => [p.bid.order_id, p.ask.order_id]),
      1n,
    );
  } finally {
    await world.close();
  }
});

test('a batch on its way is followed by its transaction alone; its notes are read once it fails (D130)', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  const port = world.remote?.port;
  assert.ok(port !== null && port !== undefined);
  try {
    // Every note tag the pipeline asks the port about, on the real port.
    const sees = port.sees.bind(port);
    const tagsAsked: string[] = [];
    port.sees = (keys) => {
      tagsAsked.push(...(keys.tags ?? []));
      return sees(keys);
    };
    const settled = await crossing(world, 10n, 10n, 'landed');
    await world.beat(1);
    assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'landed within the slot');
    // Landed, not final: each beat reads the view, and only the transaction is asked about.
    tagsAsked.length = 0;
    await world.beat(FINALITY - 1);
    assert.deepEqual(world.kindsOf(settled.bid.order_id), ['pending_settlement'], 'not final yet');
    assert.deepEqual(tagsAsked, [], 'no note of a landed batch is asked while it waits for finality');
    await world.beat(1);
    assertSettledOnce(world, [settled.bid.order_id, settled.ask.order_id], 1n);

    // A batch the chain refuses: its notes decide what follows, so they are read, then its legs fail.
    world.chain.faults.failNextSettlement('chain_rejected');
    const refused = await crossing(world, 10n, 10n, 'refused');
    tagsAsked.length = 0;
    await world.beat(1 + FINALITY);
    for (const order of [refused.bid, refused.ask]) {
      assert.ok(world.kindsOf(order.order_id).includes('settlement_failed'), order.order_id);
      assert.equal(
        world.eventsOf(order.order_id).find((e) => e.kind === 'settlement_failed')?.reason,
        'chain_rejected',
      );
    }
    const refusedTags = new Set(tagsAsked);
    assert.ok(refusedTags.size >= 2, "the refused batch's notes were read before its legs failed");
    assert.equal(world.engine.core.pendingMatches().length, 0);
    assert.ok(world.conserved());
  } finally {
    await world.close();
  }
});

test('an outage that outlasts finality delays the outcome; it is reported once the chain answers', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  const remote = world.remote;
  assert.ok(remote !== null);
  try {
    const { bid, ask } = await crossing(world);
    await world.beat(1);
    assert.equal(world.chain.market(MARKET.marketId).next_batch_seq, 1n, 'landed');
    remote.proxy.mode = 'down';
    await world.beat(2 * FINALITY);
    assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement'], 'blind: no outcome');
    remote.proxy.mode = 'pass';
    await world.rounds();
    assertSettledOnce(world, [bid.order_id, ask.order_id], 1n);
  } finally {
    await world.close();
  }
});

test('a venue restart during an outage, batch in flight: the new pipeline follows it and settles once', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'settle-rpc-restart-'));
  const world = await SettlementWorld.create({
    finalityDepth: FINALITY,
    lockDurationSlots: LOCK_SLOTS,
    rpc: true,
    state: { directory, sealingKey: randomBytes(32), snapshotIntervalRecords: 1_000_000 },
  });
  const remote = world.remote;
  assert.ok(remote !== null);
  try {
    const { bid, ask } = await crossing(world);
    world.chain.faults.delayNextSettlement(3n); // the batch waits on chain, pending
    await world.beat(1);
    assert.equal(world.chain.settlementForBatch(MARKET.marketId, 0n)?.state, 'pending');
    remote.proxy.mode = 'down';
    await world.beat(1);
    await world.restart(); // new engine from disk, new pipeline, new (empty) view
    await world.beat(3);
    assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement'], 'blind: no outcome');
    remote.proxy.mode = 'pass';
    await world.beat(1 + FINALITY);
    assertSettledOnce(world, [bid.order_id, ask.order_id], 1n);
  } finally {
    await world.close();
    await world.engine.close();
    await rm(directory, { recursive: true, force: true });
  }
});

test('property: any schedule of lost requests and lost replies delays, never doubles or loses', async () => {
  const modes: ProxyMode[] = ['pass', 'down', 'replies-lost'];
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...modes), { minLength: 4, maxLength: 16 }),
      fc.integer({ min: 1, max: 3 }),
      async (schedule, pairs) => {
        const world = await SettlementWorld.create({
          finalityDepth: FINALITY,
          lockDurationSlots: LOCK_SLOTS,
          rpc: true,
        });
        const remote = world.remote;
        assert.ok(remote !== null);
        try {
          const orders: string[] = [];
          for (let i = 0; i < pairs; i += 1) {
            const { bid, ask } = await crossing(world, 10n, 10n, String(i));
            orders.push(bid.order_id, ask.order_id);
            await world.rounds(1); // each pair clears in an auction of its own
          }
          for (const mode of schedule) {
            remote.proxy.mode = mode;
            await world.beat(1);
          }
          remote.proxy.mode = 'pass';
          for (let slot = 0; slot < 4 * FINALITY && world.engine.core.pendingMatches().length > 0; slot += 1)
            await world.beat(1);
          for (const id of orders)
            assert.deepEqual(world.kindsOf(id), ['pending_settlement', 'fully_filled'], id);
          // Each pair is a group of its own; groups share a batch when they wait together.
          const batches = world.chain.market(MARKET.marketId).next_batch_seq;
          assert.ok(batches >= 1n && batches <= BigInt(pairs), `${batches} batches for ${pairs} pairs`);
          assert.ok(world.conserved());
          assert.equal(world.engine.core.pendingMatches().length, 0);
        } finally {
          await world.close();
        }
      },
    ),
    { numRuns: 12 },
  );
});
