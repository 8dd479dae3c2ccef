// How a Trader with a wallet handles the note of each order on a real (non-settling) venue: the
// note is reserved before the order is sent, freed by a cancel and by a refusal, follows a modify
// to a new order id, a cancel after a fill the trader never heard of spends the note (the order's
// record is read before the note is freed), and a reservation a crash left without an order is
// freed by recover(). The
// wallet's notes are confirmed against a small local tree (wallet-world.ts); the venue takes stub
// proofs against TEST_ROOT.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { assetIdOfMint, deriveChangeNote, loadNoteHasher } from '@venue/notes';
import type { OrderEvent } from '@venue/protocol';
import { TEST_CORE_CONFIG, TEST_ROOT, TestVenue, testMarket } from '@venue/testing';
import {
  KeyFile,
  NoteWallet,
  Trader,
  VenueApiError,
  type VenueClient,
  type VenueStream,
  type WalletNote,
} from '../src/index.ts';
import { connectedClient, credentials } from './helpers.ts';
import { TreeWorld } from './wallet-world.ts';

const QUOTE = testMarket('SOL-USDC').quoteMint;
const BASE = testMarket('SOL-USDC').baseMint;

let venue: TestVenue;
let dir: string;
let client: VenueClient;
let keyFile: KeyFile;

before(async () => {
  const hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    enclave: true,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  dir = mkdtempSync(join(tmpdir(), 'trader-wallet-'));
  client = await connectedClient(venue);
  await client.login(await credentials(venue, 'wallet'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
});
after(async () => {
  await client.close();
  await venue.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A wallet with two spendable quote notes (100 and 200), confirmed in a local tree. */
async function walletWithNotes(stateDir: string): Promise<{ wallet: NoteWallet; notes: WalletNote[] }> {
  const wallet = await NoteWallet.open(keyFile, stateDir);
  const world = new TreeWorld(
    await loadNoteHasher(),
    keyFile.publicParts.owner_commitment,
    keyFile.publicParts.viewing_pubkey,
  );
  const notes = [100n, 200n].map((value) => wallet.prepareDeposit({ mint: QUOTE, value }).note);
  for (const note of notes) world.append(note.commitment);
  await wallet.scan(world);
  return { wallet, notes };
}

test('each order holds its note from before the send until it ends, and a refusal frees it', async () => {
  const stateDir = join(dir, 'lifecycle');
  const { wallet, notes } = await walletWithNotes(stateDir);
  const [small, large] = notes as [WalletNote, WalletNote];
  const trader = Trader.open(client, keyFile, stateDir, { wallet });
  try {
    const bid = (note: WalletNote, price = 1000n) =>
      trader.place({
        symbol: 'SOL-USDC',
        side: 'bid',
        amount: 100n,
        price,
        input: wallet.stubInput(note, TEST_ROOT),
      });

    const order = await bid(small);
    assert.equal(wallet.note(small.commitment)?.reserved_by, order.order_id);
    // The same note cannot back a second order: refused locally, nothing is sent.
    await assert.rejects(bid(small), /reserved by order/);
    assert.equal(trader.orders.all().length, 1);

    // A price off the tick is refused by the venue: the note it named is free again.
    await assert.rejects(bid(large, 1005n), (error) => error instanceof VenueApiError);
    assert.equal(wallet.note(large.commitment)?.status, 'spendable');

    // A modify to a new id takes the note along; the cancel of the new id frees it.
    const moved = await trader.modify(order.order_id, { price: 990n, newOrderId: true });
    assert.equal(wallet.note(small.commitment)?.reserved_by, moved.order_id);
    await trader.cancel(moved.order_id);
    assert.equal(wallet.note(small.commitment)?.status, 'spendable');
    assert.deepEqual(
      wallet.balances().map((b) => [b.spendable, b.reserved, b.pending]),
      [[300n, 0n, 0n]],
    );
  } finally {
    trader.close();
    wallet.close();
  }
});

test('a cancel after a fill whose event never arrived spends the note instead of freeing it', async () => {
  const stateDir = join(dir, 'missed-fill');
  venue.clock.advanceMs(1_000); // a fresh nonce file starts above the nonces earlier tests used
  const { wallet, notes } = await walletWithNotes(stateDir);
  const note = notes[0] as WalletNote;
  const trader = Trader.open(client, keyFile, stateDir, { wallet });
  // The counterparty: another account asking 40 base on a note of its own.
  const other = await connectedClient(venue);
  await other.login(await credentials(venue, 'missed-fill-counterparty'));
  const otherKey = await KeyFile.create(join(dir, 'counterparty-key.json'));
  const otherWallet = await NoteWallet.open(otherKey, null);
  const otherTrader = Trader.open(other, otherKey, join(dir, 'counterparty'));
  try {
    const bid = await trader.place({
      symbol: 'SOL-USDC',
      side: 'bid',
      amount: 100n,
      price: 1000n,
      input: wallet.stubInput(note, TEST_ROOT),
    });
    const base = otherWallet.prepareDeposit({ mint: BASE, value: 40n }).note;
    await otherTrader.place({
      symbol: 'SOL-USDC',
      side: 'ask',
      amount: 40n,
      price: 1000n,
      input: otherWallet.stubInput(base, TEST_ROOT),
    });
    venue.server.engine.record({
      type: 'oracle_price',
      marketId: testMarket('SOL-USDC').marketId,
      price: 1000n,
    });
    venue.advanceSlots(1);
    venue.server.engine.catchUp(); // the batch of the new slot matches the two orders
    // This venue does not settle: confirm the match as the chain would, the bid resting on its
    // change (100 - 40 quote paid at 1000 per 1000).
    const pending = (await client.reconcile([bid.order_id])).get(bid.order_id);
    assert.equal(pending?.state, 'pending_settlement');
    const change = deriveChangeNote(
      await loadNoteHasher(),
      { ownerCommitment: keyFile.publicParts.owner_commitment, innerHash: note.inner_hash },
      assetIdOfMint(QUOTE),
      60n,
    );
    venue.server.engine.record({
      type: 'match_settled',
      marketId: testMarket('SOL-USDC').marketId,
      matchId: BigInt(pending?.match_id ?? -1),
      changeNote: { commitment: change.hex.commitment, value: 60n, treeId: 0 },
    });
    // This trader follows no stream: the partial fill's event never reaches it, so the cancel
    // reply is the first it hears of the order since placing it.
    assert.equal(trader.orders.get(bid.order_id)?.filled_quantity, 0n);
    await trader.cancel(bid.order_id);
    const order = trader.orders.get(bid.order_id);
    assert.equal(order?.state, 'cancelled');
    assert.equal(order?.filled_quantity, 40n, 'the record told of the fill');
    const spent = wallet.note(note.commitment);
    assert.equal(spent?.status, 'spent', 'the fill consumed the note on chain: it must not be free');
    assert.equal(spent?.spent_by?.order_id, bid.order_id);
    assert.ok(
      wallet.pick(QUOTE, 100n)?.commitment !== note.commitment,
      'the consumed note cannot back another order',
    );
    // The change of the missed match is known (by commitment, from the record) and not reserved.
    assert.ok(wallet.notes().every((n) => n.reserved_by !== bid.order_id));
    assert.equal(trader.walletErrors.length, 0);
  } finally {
    otherTrader.close();
    otherWallet.close();
    await other.close();
    trader.close();
    wallet.close();
  }
});

test('recover() frees a note a crash left reserved for an order that was never recorded', async () => {
  const stateDir = join(dir, 'crash');
  const { wallet, notes } = await walletWithNotes(stateDir);
  const note = notes[0] as WalletNote;
  wallet.reserve(note.commitment, 'ab'.repeat(16)); // the crash came before the order's intent
  wallet.close();

  const reopened = await NoteWallet.open(keyFile, stateDir);
  assert.equal(reopened.note(note.commitment)?.status, 'reserved', 'the reservation survived the crash');
  const trader = Trader.open(client, keyFile, stateDir, { wallet: reopened });
  try {
    await trader.recover();
    assert.equal(reopened.note(note.commitment)?.status, 'spendable');
  } finally {
    trader.close();
    reopened.close();
  }
});

test('a reconcile waits for the trader’s own requests and never adopts a record older than an event', async () => {
  const stateDir = join(dir, 'reconcile');
  venue.clock.advanceMs(1_000); // a fresh nonce file starts above the nonces earlier tests used
  const { wallet, notes } = await walletWithNotes(stateDir);
  const note = notes[0] as WalletNote;
  const trader = Trader.open(client, keyFile, stateDir, { wallet });
  const stream = await client.openStream({ channels: ['orders'] });
  const unfollow = trader.follow(stream);
  const real = { modify: client.modify.bind(client), reconcile: client.reconcile.bind(client) };
  try {
    const order = await trader.place({
      symbol: 'SOL-USDC',
      side: 'bid',
      amount: 100n,
      price: 1000n,
      input: wallet.stubInput(note, TEST_ROOT),
    });
    const id = order.order_id;

    // A gap asks for the records while a reprice is on its way (held until the reconcile was
    // asked for): no record is read until the reply is applied, so none can bring 1000 back.
    let asked = () => {};
    const reconcileAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let modifying = false; // from trader.modify until the venue's reply is back
    const readsDuringModify: string[][] = [];
    client.modify = async (orderId, request) => {
      try {
        await reconcileAsked;
        await new Promise((resolve) => setImmediate(resolve));
        return await real.modify(orderId, request);
      } finally {
        modifying = false;
      }
    };
    client.reconcile = async (ids) => {
      if (modifying) readsDuringModify.push([...ids]);
      return real.reconcile(ids);
    };
    modifying = true;
    const modified = trader.modify(id, { price: 970n });
    const reconciled = trader.reconcile();
    asked();
    await Promise.all([modified, reconciled]);
    assert.deepEqual(readsDuringModify, [], 'no record was read while the modify was on its way');
    assert.equal(trader.orders.get(id)?.price_limit, 970n);
    assert.equal((await real.reconcile([id])).get(id)?.price_limit, 970n);

    // The order is cancelled (by another path) while its record is being read, and the stream's
    // event arrives before the read returns: the stale record is read again, not adopted.
    let cancelled = false;
    client.reconcile = async (ids) => {
      const records = await real.reconcile(ids);
      if (!cancelled) {
        cancelled = true;
        const heard = nextOrderEvent(stream, (event) => event.order_id === id && event.kind === 'cancelled');
        await client.cancel(id, trader.keys.signCancel(id, client.sessionId));
        await heard;
      }
      return records;
    };
    await trader.reconcile();
    assert.equal(trader.orders.get(id)?.state, 'cancelled');
    assert.equal(wallet.note(note.commitment)?.status, 'spendable');
  } finally {
    client.modify = real.modify;
    client.reconcile = real.reconcile;
    unfollow();
    await stream.close();
    trader.close();
    wallet.close();
  }
});

/** The next orders-channel event of `stream` that `matches` (heard after the trader's own listener). */
function nextOrderEvent(stream: VenueStream, matches: (event: OrderEvent) => boolean): Promise<OrderEvent> {
  return new Promise((resolve) => {
    const listener = (event: OrderEvent) => {
      if (!matches(event)) return;
      stream.off('order', listener);
      resolve(event);
    };
    stream.on('order', listener);
  });
}
