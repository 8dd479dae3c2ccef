// Issue 5's end-to-end test: two traders deposit notes on the chain simulator, prove them with real
// VALID_INPUT proofs, place crossing orders over HTTPS, and the batch settles. Both receive their
// order events in spec order on the stream (pending_settlement, then fully_filled) and a fill memo
// that only they can decrypt; the tree holds the notes the memos name; value is conserved per mint.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type NoteOpeningReveal, spendAuthorityOf } from '@venue/chain-sim';
import {
  assetIdOfMint,
  createNote,
  createValidInputProver,
  type DerivedNote,
  fieldToHex,
  generateViewingKey,
  loadNoteHasher,
  type NoteHasher,
  openFillMemo,
  type ViewingKeyPair,
} from '@venue/notes';
import { type FillMemo, type PlaceOrder, signPlaceOrder } from '@venue/protocol';
import {
  hex32,
  type ProvingVenue,
  type StreamClient,
  startProvingVenue,
  type TestVenue,
  type Trader,
  testMarket,
} from '@venue/testing';

const MARKET = testMarket('SOL-USDC');
const PRICE = 1500n;
const FINALITY = 4;

let venue: TestVenue;
let hasher: NoteHasher;
let prover: Awaited<ReturnType<typeof createValidInputProver>>;

let proving: ProvingVenue;

before(async () => {
  hasher = await loadNoteHasher();
  prover = await createValidInputProver();
  proving = await startProvingVenue({ finalityDepth: FINALITY, price: PRICE });
  venue = proving.venue;
});
after(async () => {
  await proving.stop();
  await prover.close();
});

interface Participant {
  readonly trader: Trader;
  readonly spendingKey: bigint;
  readonly viewing: ViewingKeyPair;
  readonly stream: StreamClient;
  readonly frames: Record<string, unknown>[];
  note: DerivedNote;
}

async function participant(label: string, spendingKey: bigint): Promise<Participant> {
  const trader = await venue.trader(label);
  const stream = await venue.stream();
  await stream.login(trader.token);
  await stream.request({ op: 'subscribe', channels: ['orders', 'fills'] });
  const frames: Record<string, unknown>[] = [];
  return { trader, spendingKey, viewing: generateViewingKey(), stream, frames, note: undefined as never };
}

function deposit(who: Participant, mint: string, value: bigint): DerivedNote {
  const chain = venue.chain;
  assert.ok(chain);
  const note = createNote(hasher, {
    ownerCommitment: hasher.ownerCommitment(who.spendingKey),
    assetId: assetIdOfMint(mint),
    value,
  });
  chain.deposit({
    tree_id: 0,
    mint,
    value,
    owner_commitment: note.hex.ownerCommitment,
    blinding: fieldToHex(note.blinding),
    spend_authority: spendAuthorityOf(who.spendingKey).publicKey,
  });
  return note;
}

async function provedOrder(
  who: Participant,
  side: 'bid' | 'ask',
  amount: bigint,
  nonce: bigint,
  label = 'e2e',
): Promise<PlaceOrder> {
  const chain = venue.chain;
  assert.ok(chain);
  const place = chain.locate(who.note.hex.commitment);
  assert.ok(place);
  const proved = await prover.prove({
    spendingKey: who.spendingKey,
    note: who.note,
    path: chain.path(0, Number(place.leaf_index)),
    merkleRoot: BigInt(`0x${chain.currentRoot(0).root}`),
    treeId: 0,
    tradingKey: who.trader.key.publicKey,
  });
  return signPlaceOrder(
    {
      symbol: MARKET.symbol,
      side,
      order_type: 'limit',
      amount,
      price_limit: PRICE,
      expiry_slot: venue.clock.slot() + 500n,
      order_id: hex32(`${label}-${side}`).slice(0, 32),
      arrival_nonce: nonce,
      trading_key: who.trader.key.publicKey,
      viewing_pubkey: who.viewing.publicKey,
      session_id: venue.identity.sessionId,
      ...(side === 'bid' ? { collateral_amount: who.note.value } : {}),
      ...proved.orderFields,
    },
    who.trader.key,
  );
}

/** Every channel frame (orders, fills) the participant's stream received, once the fill memo is in. */
async function channelFrames(who: Participant): Promise<Record<string, unknown>[]> {
  await who.stream.next((frame) => frame['channel'] === 'fills', 10_000);
  return who.stream.frames.filter((frame) => frame['channel'] !== undefined) as Record<string, unknown>[];
}

test('two traders settle a crossing pair end to end', async () => {
  const chain = venue.chain;
  assert.ok(chain);
  const alice = await participant('alice', 0xa11ce_5eedn);
  const bob = await participant('bob', 0xb0b_5eedn);
  alice.note = deposit(alice, MARKET.quoteMint, 100n); // pays 10 x 1500 / 1000 = 15 quote
  bob.note = deposit(bob, MARKET.baseMint, 10n);
  venue.advanceSlots(1); // the deposits' root reaches the venue
  const bid = await provedOrder(alice, 'bid', 10n, 1n);
  const ask = await provedOrder(bob, 'ask', 10n, 1n);
  assert.equal((await venue.place(alice.trader, bid)).status, 200);
  assert.equal((await venue.place(bob.trader, ask)).status, 200);
  const vaultsBefore = chain.audit();

  // Clear, lock, prove (the real VALID_MATCH circuit), land, finalize.
  await venue.settleAll({ slotsMin: 1 + FINALITY });
  const outputs: NoteOpeningReveal[] = [];
  for (const [who, order, received, change] of [
    [alice, bid, { amount: 10n, mint: MARKET.baseMint }, 85n],
    [bob, ask, { amount: 15n, mint: MARKET.quoteMint }, undefined],
  ] as const) {
    const frames = await channelFrames(who);
    const orders = frames.filter((f) => f['channel'] === 'orders');
    assert.deepEqual(
      orders.map((f) => f['kind']),
      ['pending_settlement', 'fully_filled'],
    );
    assert.ok(orders.every((f) => f['order_id'] === order.order_id));
    const fill = frames.find((f) => f['channel'] === 'fills');
    assert.ok(fill, 'a fill memo arrives');
    assert.ok(
      frames.indexOf(fill) > frames.indexOf(orders[1] as Record<string, unknown>),
      'after fully_filled',
    );
    const context = { orderId: order.order_id, matchId: BigInt(fill['match_id'] as string) };
    const memo = openFillMemo(who.viewing.privateKey, context, fill['memo'] as FillMemo);
    assert.equal(memo.fill_quantity, 10n);
    assert.equal(memo.clearing_price, PRICE);
    assert.deepEqual({ amount: memo.received.amount, mint: memo.received.mint }, received);
    assert.equal(memo.change?.amount, change);
    // The other trader cannot read it.
    const other = who === alice ? bob : alice;
    assert.throws(() => openFillMemo(other.viewing.privateKey, context, fill['memo'] as FillMemo));
    // The tree holds the note the memo names, at the index it names.
    const inclusion = await venue.call(`/tree/inclusion?tree_id=0&commitment=${memo.received.commitment}`, {
      token: who.trader.token,
    });
    assert.equal(inclusion.status, 200, inclusion.text);
    assert.equal(JSON.parse(inclusion.text).leaf_index, Number(memo.received.leaf_index));
    // And the owner re-derives it from its own note: the memo holds no secret it could not check.
    assert.equal(
      hasher.noteCommitment(who.note.hex.ownerCommitment, memo.received.inner_hash, memo.received.amount),
      memo.received.commitment,
    );
    for (const note of [memo.received, memo.change]) {
      if (note === undefined) continue;
      outputs.push({
        commitment: note.commitment,
        owner_commitment: who.note.hex.ownerCommitment,
        note_inner_hash: note.inner_hash,
        value: note.amount,
      });
    }
  }
  // Per mint, what the vault holds is what the unconsumed notes hold, and no value appeared. The
  // chain holds the settled notes as bare commitments: the owners show their openings to the audit.
  for (const [mint, entry] of chain.audit(outputs)) {
    assert.equal(entry.hidden, 0, mint);
    assert.equal(entry.vault, entry.notes, mint);
    assert.equal(entry.vault, vaultsBefore.get(mint)?.vault, mint);
  }
  const status = await venue.call(`/settlement/status?market_id=${MARKET.marketId}&batch_seq=0`, {
    token: alice.trader.token,
  });
  assert.equal(JSON.parse(status.text).status, 'finalized');
  const metrics = await venue.call('/admin/metrics/settlement', { token: venue.adminToken });
  const sol = JSON.parse(metrics.text).markets.find((m: { symbol: string }) => m.symbol === MARKET.symbol);
  assert.equal(sol.batches_confirmed, 1);
  assert.equal(sol.queue_depth, 0);
  await alice.stream.close();
  await bob.stream.close();
});

test('a root the venue returns right after a deposit is accepted at once, with no slot in between', async () => {
  const chain = venue.chain;
  assert.ok(chain);
  const carol = await participant('carol', 0xca401_5eedn);
  carol.note = deposit(carol, MARKET.baseMint, 10n);
  // The client's view: the inclusion proof the venue serves (no slot passes: this venue's clock
  // moves only when the test advances it, so the chain's beat does not bring the root in).
  const inclusion = await venue.call(`/tree/inclusion?tree_id=0&commitment=${carol.note.hex.commitment}`, {
    token: carol.trader.token,
  });
  assert.equal(inclusion.status, 200, inclusion.text);
  assert.equal(JSON.parse(inclusion.text).root, chain.currentRoot(0).root);
  const ask = await provedOrder(carol, 'ask', 10n, 1n, 'fresh-root');
  const placed = await venue.place(carol.trader, ask);
  assert.equal(placed.status, 200, `a place proved against the root just served: ${placed.text}`);
  await carol.stream.close();
});
