// Shared fate (spec 1 item 7): once the chain's final governance no longer names this boot's
// measurement or settlement signer, new trading pauses on every market with the reason shown in
// /system/status and /instruments, cancels keep working, and a governance change that is not yet
// final changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GovernanceWatch } from '@venue/adapters';
import { createChainSimulator, signGovernance } from '@venue/chain-sim';
import { tradingKeyFromSeed } from '@venue/protocol';
import { bodyOf, envelopeOf, TestVenue, type Trader } from '@venue/testing';

const AUTHORITY = tradingKeyFromSeed(new Uint8Array(32).fill(9));

let venue: TestVenue;
let trader: Trader;

before(async () => {
  venue = await TestVenue.start({ enclave: true });
  trader = await venue.trader();
});
after(() => venue.stop());

test('a final governance change away from this boot pauses every market; cancels still work', async () => {
  const enclave = venue.enclave;
  assert.ok(enclave !== undefined);
  const attested = { measurement: enclave.measurement, settlementSigner: enclave.settlementSigner.publicKey };
  const chain = await createChainSimulator({
    finalityDepth: 4,
    governance: {
      authority: AUTHORITY.publicKey,
      measurement: attested.measurement,
      settlement_signer: attested.settlementSigner,
    },
  });
  const watch = new GovernanceWatch(venue.server.gates, chain, attested);
  chain.onEvent(() => watch.check());
  watch.check();
  assert.equal(bodyOf(await venue.call('/system/status'))['status'], 'trading');
  const resting = venue.order({ id: 1, nonce: 1n }, trader.key);
  assert.equal((await venue.place(trader, resting)).status, 200);

  chain.advance();
  chain.proposeGovernance(
    signGovernance(
      { measurement: 'cd'.repeat(32), settlement_signer: attested.settlementSigner, sequence: 1n },
      AUTHORITY,
    ),
  );
  chain.advance(3);
  assert.equal(bodyOf(await venue.call('/system/status'))['status'], 'trading', 'not final yet: no pause');

  chain.advance();
  const status = bodyOf(await venue.call('/system/status'));
  assert.equal(status['status'], 'paused');
  assert.deepEqual(status['pause_reasons'], ['attestation_mismatch']);
  const instruments = bodyOf(await venue.call('/instruments'))['instruments'] as Record<string, unknown>[];
  assert.ok(
    instruments.every((i) => i['trading_enabled'] === false && i['paused_reason'] === 'venue_paused'),
  );
  const refused = await venue.place(trader, venue.order({ id: 2, nonce: 2n }, trader.key));
  assert.equal(refused.status, 503);
  assert.equal(envelopeOf(refused).code, 5001);
  const cancelled = await venue.cancel(
    trader,
    resting.order_id,
    venue.cancelParams(resting.order_id, 1n, trader.key),
  );
  assert.equal(cancelled.status, 200, cancelled.text);

  // Governance returns to this boot's measurement: trading reopens once that is final.
  chain.proposeGovernance(
    signGovernance(
      { measurement: attested.measurement, settlement_signer: attested.settlementSigner, sequence: 2n },
      AUTHORITY,
    ),
  );
  chain.advance(4);
  assert.equal(bodyOf(await venue.call('/system/status'))['status'], 'trading');
  assert.equal((await venue.place(trader, venue.order({ id: 3, nonce: 3n }, trader.key))).status, 200);
});
