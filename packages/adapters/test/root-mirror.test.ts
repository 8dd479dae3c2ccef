// The venue's recent-root mirror follows the chain simulator (spec 2.1 merkle_root): a deposit's new
// root becomes acceptable at intake after the next refresh, and after a reorg that drops the
// deposit the vanished root is refused again (UNKNOWN_MERKLE_ROOT), with nothing booked.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RootMirror } from '@venue/adapters';
import { createChainSimulator, spendAuthorityOf } from '@venue/chain-sim';
import { fieldToHex } from '@venue/notes';
import { signPlaceOrder } from '@venue/protocol';
import { envelopeOf, TestVenue, type Trader } from '@venue/testing';

const MINT = 'So11111111111111111111111111111111111111112';

let venue: TestVenue;
let trader: Trader;

before(async () => {
  venue = await TestVenue.start({ roots: [] });
  trader = await venue.trader();
});
after(() => venue.stop());

test('roots follow deposits and rewind with a reorg', async () => {
  const chain = await createChainSimulator({ shards: 4 });
  const mirror = new RootMirror(venue.server.engine, chain, 4);
  mirror.refresh();
  chain.advance(1);
  const spendingKey = 0x5eedn;
  chain.deposit({
    tree_id: 0,
    mint: MINT,
    value: 1000n,
    owner_commitment: fieldToHex(chain.hasher.ownerCommitment(spendingKey)),
    blinding: fieldToHex(77n),
    spend_authority: spendAuthorityOf(spendingKey).publicKey,
  });
  const depositRoot = chain.currentRoot(0).root;
  const orderWith = (id: number, nonce: bigint) =>
    signPlaceOrder({ ...venue.order({ id, nonce }, trader.key), merkle_root: depositRoot }, trader.key);

  // Not mirrored yet: the venue does not know the root.
  const early = await venue.place(trader, orderWith(1, 1n));
  assert.equal(early.status, 400, early.text);
  assert.equal(envelopeOf(early).code, 1031);

  mirror.refresh();
  assert.equal((await venue.place(trader, orderWith(2, 2n))).status, 200);

  // The slot holding the deposit is rolled back (not final yet): its root no longer exists.
  chain.reorg(1n);
  mirror.refresh();
  const before = venue.server.engine.core.stateHash();
  const late = await venue.place(trader, orderWith(3, 3n));
  assert.equal(late.status, 400, late.text);
  assert.equal(envelopeOf(late).code, 1031);
  assert.equal(venue.server.engine.core.stateHash(), before);
});
