// A settlement pipeline with a turn budget (turn-budget.ts) spreads a backlog over many event-loop
// turns and still settles exactly what a pipeline doing each beat at once settles: the same events
// per order, every memo readable by its owner, value conserved on chain. The budget of 0 ms is the
// harshest: one leg of planning, proving or reporting per turn. With the settlement worker, the
// legs' hashes and memos are made on another thread and applied in order: the outcomes are the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SETTLEMENT_TURN_BUDGET_MS, SettlementPool } from '@venue/adapters';
import { openFillMemo } from '@venue/notes';
import type { PlaceOrder } from '@venue/protocol';
import { SettlementWorld, type Wallet, type WorldOptions } from './settlement-world.ts';

const FINALITY = 3;
const PAIRS = 24;
const SLOT_MS = 10;

interface Booked {
  readonly owner: Wallet;
  readonly order: PlaceOrder;
}

/** PAIRS bids and asks in one auction; every fourth ask is smaller, so some bids keep a remainder. */
async function book(world: SettlementWorld): Promise<Booked[]> {
  const pairs = Array.from({ length: PAIRS }, (_, i) => {
    const buyer = world.wallet(`buyer-${i}`);
    const seller = world.wallet(`seller-${i}`);
    const askAmount = i % 4 === 0 ? 4n : 10n;
    return {
      buyer,
      seller,
      askAmount,
      quote: world.deposit(buyer, 'quote', 20n),
      base: world.deposit(seller, 'base', askAmount),
    };
  });
  world.advance(1); // the roots with the deposits reach the venue
  const booked: Booked[] = [];
  for (const { buyer, seller, askAmount, quote, base } of pairs) {
    const bid = world.order(buyer, quote, 'bid', 10n);
    const ask = world.order(seller, base, 'ask', askAmount);
    await world.place(buyer, bid);
    await world.place(seller, ask);
    booked.push({ owner: buyer, order: bid }, { owner: seller, order: ask });
  }
  return booked;
}

function lockedOrConsumed(world: SettlementWorld, booked: readonly Booked[]): number {
  return booked.filter(({ order }) => {
    const tag = world.hasher.noteUseTagHex(order.owner_commitment, order.note_inner_hash);
    return world.chain.lock(tag) !== undefined || world.chain.consumedEntry(tag) !== undefined;
  }).length;
}

test('a pipeline with a turn budget settles a backlog over many turns, with the outcomes of one doing it at once', async () => {
  // Five matches a unit: the auction's record of 48 matches is taken in over ten turns.
  await settlesLikeWhole({ turnBudgetMs: 0, takeInPerUnit: 5 });
});

test('a pipeline hashing legs and sealing memos on a worker settles what one doing it all on its thread settles', async () => {
  const work = new SettlementPool();
  try {
    await work.ready();
    await settlesLikeWhole({ turnBudgetMs: 0, work });
    await settlesLikeWhole({ turnBudgetMs: SETTLEMENT_TURN_BUDGET_MS, work });
  } finally {
    await work.close();
  }
});

test('a rejected batch is told to the core over many turns, with the outcomes of one told at once', async () => {
  const options = { finalityDepth: FINALITY, lockDurationSlots: 500n };
  const sliced = await SettlementWorld.create({ ...options, turnBudgetMs: 0 });
  const whole = await SettlementWorld.create(options);
  try {
    const slicedOrders = await book(sliced);
    const wholeOrders = await book(whole);
    sliced.chain.faults.failNextSettlement('chain_rejected');
    whole.chain.faults.failNextSettlement('chain_rejected');
    // Failures seen per event-loop iteration (an immediate runs once in each).
    const failed = (world: SettlementWorld) =>
      world.orderEvents.filter((event) => event.kind === 'settlement_failed').length;
    let most = 0;
    let seen = 0;
    let watching = true;
    const watch = () => {
      const now = failed(sliced);
      most = Math.max(most, now - seen);
      seen = now;
      if (watching) setImmediate(watch);
    };
    setImmediate(watch);
    await sliced.settleAll(SLOT_MS);
    watching = false;
    await whole.settleAll(SLOT_MS);
    assert.ok(failed(whole) > PAIRS, 'the batch failed, each of its legs');
    assert.equal(failed(sliced), failed(whole));
    // At a budget of 0 a turn tells one failure, and a few more where failing is asked outside a step.
    assert.ok(most <= 4, `at most a few failures per iteration, not the batch at once (saw ${most})`);
    for (const [i, booked] of slicedOrders.entries()) {
      const twin = wholeOrders[i] as Booked;
      const told = (world: SettlementWorld, id: string) =>
        world.eventsOf(id).map((event) => `${event.kind} ${event.reason ?? ''}`);
      assert.deepEqual(told(sliced, booked.order.order_id), told(whole, twin.order.order_id), `order ${i}`);
    }
    assert.equal(sliced.engine.core.pendingMatches().length, 0);
  } finally {
    await sliced.close();
    await whole.close();
  }
});

/** Settles the same booking with `slicedOptions` and all at once, and compares what each order saw. */
async function settlesLikeWhole(
  slicedOptions: Pick<WorldOptions, 'turnBudgetMs' | 'takeInPerUnit' | 'work'>,
): Promise<void> {
  // Slots come every SLOT_MS of wall time below; the lock window leaves the sliced pipeline room.
  const options = { finalityDepth: FINALITY, lockDurationSlots: 500n };
  const sliced = await SettlementWorld.create({ ...options, ...slicedOptions });
  const whole = await SettlementWorld.create(options);
  try {
    const slicedOrders = await book(sliced);
    const wholeOrders = await book(whole);

    sliced.advance(1); // the auction clears; the beat plans only the first leg before it yields
    whole.advance(1);
    const matched = lockedOrConsumed(whole, wholeOrders);
    assert.ok(matched >= PAIRS, 'at once: every matched note is locked in the beat');
    assert.ok(lockedOrConsumed(sliced, slicedOrders) < matched, 'sliced: the beat left legs for later turns');

    await sliced.settleAll(SLOT_MS);
    // Memos sealed on the worker reach the stream once sealed: wait for the last ones.
    while ((slicedOptions.work?.depth ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, SLOT_MS));
    await whole.settleAll(SLOT_MS);
    const memoOf = (world: SettlementWorld, { owner, order }: Booked) => {
      const fill = world.fills().find((f) => f.message.order_id === order.order_id);
      if (fill === undefined) return null;
      assert.equal(fill.accountId, owner.accountId);
      const memo = openFillMemo(
        owner.viewing.privateKey,
        { orderId: order.order_id, matchId: fill.message.match_id },
        fill.message.memo,
      );
      return { quantity: memo.fill_quantity, quote: memo.quote_amount, change: memo.change?.amount ?? 0n };
    };
    for (const [i, booked] of slicedOrders.entries()) {
      const twin = wholeOrders[i] as Booked;
      assert.deepEqual(
        sliced.kindsOf(booked.order.order_id),
        whole.kindsOf(twin.order.order_id),
        `order ${i}`,
      );
      assert.deepEqual(memoOf(sliced, booked), memoOf(whole, twin), `the memo of order ${i}`);
    }
    assert.equal(sliced.fills().length, whole.fills().length);
    assert.ok(sliced.conserved(), 'value conserved on chain');
    assert.equal(sliced.engine.core.pendingMatches().length, 0);
    assert.deepEqual(sliced.logs, [], 'nothing said to the operator');
  } finally {
    await sliced.close();
    await whole.close();
  }
}
