// Settlement separates operating errors from programmer errors (docs/settlement.md, error
// handling): an AssertionError or a TypeError out of the chain port's submit crashes the beat that
// met it instead of passing for a lost submission (which used to end in confirmation_timeout),
// while the chain refusing a request or a settlement still ends the match in its settlement_failed
// reason.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SettlementChain, SettlementPipeline } from '@venue/adapters';
import { ChainError, settlementChainOf } from '@venue/chain-sim';
import { createStandInMatchProver } from '@venue/notes';
import { AssertionError } from '@venue/protocol';
import { SettlementWorld } from './settlement-world.ts';

/** The world's chain port with `submit` replaced; everything else reads the same chain. */
function withSubmit(world: SettlementWorld, submit: SettlementChain['submit']): SettlementChain {
  const port = settlementChainOf(world.chain, world.signer);
  return {
    ...port,
    get slot() {
      return port.slot;
    },
    submit,
  };
}

/** Replaces the world's pipeline by one over `chain`, then places a crossing pair. */
async function crossingOver(world: SettlementWorld, chain: SettlementChain) {
  world.settlement.stop();
  new SettlementPipeline({
    engine: world.engine,
    chain,
    hasher: world.hasher,
    prover: createStandInMatchProver(world.hasher),
    openings: world.openings,
    facts: world.facts,
    clock: world.clock,
  });
  const alice = world.wallet('alice');
  const bob = world.wallet('bob');
  const quoteNote = world.deposit(alice, 'quote', 20_000n);
  const baseNote = world.deposit(bob, 'base', 10n);
  world.advance(1);
  const bid = world.order(alice, quoteNote, 'bid', 10n);
  await world.place(alice, bid);
  await world.place(bob, world.order(bob, baseNote, 'ask', 10n));
  return bid;
}

for (const bug of [
  new AssertionError('a settlement batch leg names no input note'),
  new TypeError("Cannot read properties of undefined (reading 'tree_id')"),
]) {
  test(`a ${bug.name} in submit crashes the beat instead of becoming confirmation_timeout`, async () => {
    const world = await SettlementWorld.create();
    const bid = await crossingOver(
      world,
      withSubmit(world, () => {
        throw bug;
      }),
    );
    assert.throws(() => world.advance(1), bug);
    assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement'], 'no outcome was made up');
  });
}

test('a refusal thrown by submit is retried and ends in confirmation_timeout at the deadline', async () => {
  const world = await SettlementWorld.create();
  let refused = 0;
  const bid = await crossingOver(
    world,
    withSubmit(world, () => {
      refused += 1;
      throw new ChainError('bad_request', 'too many delayed settlements');
    }),
  );
  world.advance(25); // past the lock expiry (20 slots), the batch's deadline
  assert.ok(refused > 1, 'the refused batch was sent again');
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'settlement_failed']);
  assert.equal(world.eventsOf(bid.order_id).at(-1)?.reason, 'confirmation_timeout');
});

test('a settlement the chain refuses ends in settlement_failed with the chain reason', async () => {
  const world = await SettlementWorld.create();
  const port = settlementChainOf(world.chain, world.signer);
  const bid = await crossingOver(
    world,
    withSubmit(world, (batch) => port.submit(batch)),
  );
  world.chain.faults.failNextSettlement('note_consumed');
  world.advance(1);
  assert.deepEqual(world.kindsOf(bid.order_id), ['pending_settlement', 'settlement_failed']);
  assert.equal(world.eventsOf(bid.order_id).at(-1)?.reason, 'note_consumed');
});
