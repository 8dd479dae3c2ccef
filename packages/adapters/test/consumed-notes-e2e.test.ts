// spec 3.2 over the real HTTPS venue on a settling in-process chain: a note is spendable only while
// the chain has no consume record for it. A withdrawn note cannot back a new order or a modify's
// replacement (409, 1210 NOTE_CONSUMED); an order resting on a note that its owner then withdraws
// ends cancelled with cancel_reason note_consumed before the next batch, so the order that would
// have crossed it stays resting instead of being dragged into a failed settlement.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assetIdOfMint,
  createSpendProver,
  createStandInSpendProver,
  type DerivedNote,
  loadNoteHasher,
  type NoteHasher,
  proveWithdraw,
} from '@venue/notes';
import { ERRORS, type PlaceOrder } from '@venue/protocol';
import {
  depositFor,
  noteOrder,
  spendingKeyOf,
  TEST_CORE_CONFIG,
  TestVenue,
  type Trader,
  testMarket,
} from '@venue/testing';

const MARKET = testMarket('SOL-USDC');
const PRICE = 1500n;

let venue: TestVenue;
let hasher: NoteHasher;
let alice: Trader;
let bob: Trader;
let nextId = 0;

before(async () => {
  hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    settlement: true,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  venue.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: PRICE });
  alice = await venue.trader('alice');
  bob = await venue.trader('bob');
});
after(() => venue.stop());

/** A note of `value` deposited on the chain for `trader` (base units for an ask, quote for a bid). */
function deposit(trader: Trader, side: 'bid' | 'ask', value: bigint): DerivedNote {
  const chain = venue.chain;
  assert.ok(chain);
  return depositFor(chain, hasher, MARKET, trader, side, value);
}

/**
 * The owner takes the note's tokens out of the pool with a VALID_SPEND proof of the chain's proof
 * mode (no opening sent): the chain records it consumed.
 */
async function withdraw(trader: Trader, note: DerivedNote): Promise<void> {
  const chain = venue.chain;
  assert.ok(chain);
  const prover =
    chain.matchProofs === 'stand-in' ? createStandInSpendProver(hasher) : await createSpendProver();
  try {
    const { request } = await proveWithdraw(prover, {
      spendingKey: spendingKeyOf(trader),
      mint: note.assetId === assetIdOfMint(MARKET.baseMint) ? MARKET.baseMint : MARKET.quoteMint,
      note: { tree_id: 0, blinding: note.blinding, value: note.value },
      value: note.value,
      recipient: 'Recipient1111111111111111111111111111111111',
    });
    chain.withdraw(request);
  } finally {
    await prover.close();
  }
}

/** A signed limit order over `note` (the test venue's proof checks pass any proof). */
function order(trader: Trader, note: DerivedNote, side: 'bid' | 'ask', amount: bigint): PlaceOrder {
  const chain = venue.chain;
  assert.ok(chain);
  nextId += 1;
  const context = { chain, market: MARKET, sessionId: venue.identity.sessionId, slot: venue.clock.slot() };
  return noteOrder(context, trader, note, { side, amount, price: PRICE, id: nextId });
}

async function record(trader: Trader, orderId: string): Promise<Record<string, unknown>> {
  const read = await venue.call(`/orders/${orderId}`, { token: trader.token });
  assert.equal(read.status, 200, read.text);
  return JSON.parse(read.text) as Record<string, unknown>;
}

test('a withdrawn note cannot back a new order or a replacement: 409 NOTE_CONSUMED', async () => {
  const spent = deposit(alice, 'ask', 10n);
  const fresh = deposit(alice, 'ask', 10n);
  venue.advanceSlots(1); // the deposits' root reaches the venue
  await withdraw(alice, spent);

  const refused = await venue.place(alice, order(alice, spent, 'ask', 10n));
  assert.equal(refused.status, 409, refused.text);
  const error = JSON.parse(refused.text) as { code: number; message: string };
  assert.equal(error.code, ERRORS.NOTE_CONSUMED.code);
  assert.match(error.message, /another note/, 'the message says what to do');

  const resting = order(alice, fresh, 'ask', 10n);
  assert.equal((await venue.place(alice, resting)).status, 200);
  const replacement = order(alice, spent, 'ask', 10n);
  const modify = await venue.modify(
    alice,
    resting.order_id,
    venue.modifyRequest(resting.order_id, 1n, replacement, alice.key),
  );
  assert.equal(modify.status, 409, modify.text);
  assert.equal((JSON.parse(modify.text) as { code: number }).code, ERRORS.NOTE_CONSUMED.code);
  assert.equal(
    (await record(alice, resting.order_id))['state'],
    'resting',
    'a refused modify changes nothing',
  );
  // Out of the way of the next test's crossing orders.
  const cancel = await venue.cancel(
    alice,
    resting.order_id,
    venue.cancelParams(resting.order_id, 1n, alice.key),
  );
  assert.equal(cancel.status, 200, cancel.text);
});

test('an order whose note is withdrawn is cancelled (note_consumed); its would-be counterparty keeps resting', async () => {
  const askNote = deposit(alice, 'ask', 20n);
  const bidNote = deposit(bob, 'bid', (20n * PRICE) / MARKET.priceScale);
  venue.advanceSlots(1);
  // Two crossing orders in one slot: the next batch would match them.
  const ask = order(alice, askNote, 'ask', 20n);
  const bid = order(bob, bidNote, 'bid', 20n);
  assert.equal((await venue.place(alice, ask)).status, 200);
  assert.equal((await venue.place(bob, bid)).status, 200);

  await withdraw(alice, askNote);
  const cancelled = await record(alice, ask.order_id);
  assert.equal(cancelled['state'], 'cancelled');
  assert.equal(cancelled['cancel_reason'], 'note_consumed');

  venue.advanceSlots(6); // several batches, and finality for anything that had settled
  const survivor = await record(bob, bid.order_id);
  assert.equal(survivor['state'], 'resting', 'nothing was matched against the consumed note');
  assert.equal(String(survivor['filled_quantity']), '0');
});
