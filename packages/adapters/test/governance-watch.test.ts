// Shared fate (spec 1 item 7): an attestation, signer or finalized-governance mismatch each pauses
// new trading on every market under its own reason, shown in /system/status and /instruments;
// cancels keep working; a governance change that is not yet final changes nothing; each reason
// lifts when its cause is gone; every final governance change lands in the transparency log.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { attestationHolds, GovernanceWatch } from '@venue/adapters';
import { type ChainSimulator, createChainSimulator, signGovernance } from '@venue/chain-sim';
import {
  decodeJsonText,
  generateTradingKey,
  TRANSPARENCY_ZERO_HASH,
  TransparencyResponseSchema,
  tradingKeyFromSeed,
  verifyTransparencyChain,
} from '@venue/protocol';
import { bodyOf, envelopeOf, TestVenue, type Trader } from '@venue/testing';

const AUTHORITY = tradingKeyFromSeed(new Uint8Array(32).fill(9));
const FINALITY_DEPTH = 4;

let venue: TestVenue;
let trader: Trader;
let chain: ChainSimulator;
let attested: { measurement: string; settlementSigner: string };
let sequence = 0n;
let orderId = 0;

before(async () => {
  venue = await TestVenue.start({ enclave: true });
  trader = await venue.trader();
  const enclave = venue.enclave;
  assert.ok(enclave !== undefined);
  attested = { measurement: enclave.measurement, settlementSigner: enclave.settlementSigner.publicKey };
  chain = await createChainSimulator({
    finalityDepth: FINALITY_DEPTH,
    governance: {
      authority: AUTHORITY.publicKey,
      measurement: attested.measurement,
      settlement_signer: attested.settlementSigner,
    },
  });
});
after(() => venue.stop());

/** Proposes governance and makes it final. */
function govern(measurement: string, signer: string): void {
  sequence += 1n;
  chain.proposeGovernance(signGovernance({ measurement, settlement_signer: signer, sequence }, AUTHORITY));
  chain.advance(FINALITY_DEPTH + 1);
}

async function status(): Promise<{ status: unknown; reasons: unknown }> {
  const body = bodyOf(await venue.call('/system/status'));
  return { status: body['status'], reasons: body['pause_reasons'] };
}

/** New orders are refused with 503/5001 on every market; a resting order can still be cancelled. */
async function expectPausedButCancellable(): Promise<void> {
  const instruments = bodyOf(await venue.call('/instruments'))['instruments'] as Record<string, unknown>[];
  assert.ok(
    instruments.every((i) => i['trading_enabled'] === false && i['paused_reason'] === 'venue_paused'),
  );
  for (const symbol of ['SOL-USDC', 'ETH-USDC']) {
    orderId += 1;
    const refused = await venue.place(
      trader,
      venue.order({ id: orderId, nonce: BigInt(orderId), symbol }, trader.key),
    );
    assert.equal(refused.status, 503, symbol);
    assert.equal(envelopeOf(refused).code, 5001);
  }
}

async function placeResting(): Promise<string> {
  orderId += 1;
  const order = venue.order({ id: orderId, nonce: BigInt(orderId) }, trader.key);
  const placed = await venue.place(trader, order);
  assert.equal(placed.status, 200, placed.text);
  return order.order_id;
}

let cancelNonce = 0n;
async function cancel(id: string): Promise<void> {
  cancelNonce += 1n;
  const cancelled = await venue.cancel(trader, id, venue.cancelParams(id, cancelNonce, trader.key));
  assert.equal(cancelled.status, 200, cancelled.text);
}

test('final governance naming another build pauses every market as governance_mismatch; cancels work', async () => {
  const enclave = venue.enclave;
  assert.ok(enclave !== undefined);
  const watch = new GovernanceWatch(venue.server.gates, chain, attested, {
    attestationHolds: () => enclave.attestationHolds(),
    transparency: enclave,
    nowMs: () => venue.clock.nowMs(),
  });
  const unsubscribe = chain.onEvent(() => watch.check());
  try {
    watch.check();
    assert.deepEqual(await status(), { status: 'trading', reasons: [] });
    const resting = await placeResting();

    chain.advance();
    sequence += 1n;
    chain.proposeGovernance(
      signGovernance(
        { measurement: 'cd'.repeat(32), settlement_signer: attested.settlementSigner, sequence },
        AUTHORITY,
      ),
    );
    chain.advance(FINALITY_DEPTH - 1);
    assert.equal((await status()).status, 'trading', 'not final yet: no pause');
    chain.advance();
    assert.deepEqual(await status(), { status: 'paused', reasons: ['governance_mismatch'] });
    await expectPausedButCancellable();
    await cancel(resting);

    // Governance returns to this boot's build: trading reopens once that is final.
    govern(attested.measurement, attested.settlementSigner);
    assert.deepEqual(await status(), { status: 'trading', reasons: [] });
    await placeResting();

    // The log holds this boot, then each final governance the watch saw, and still chains.
    const log = decodeJsonText(TransparencyResponseSchema, (await venue.call('/transparency')).text);
    assert.deepEqual(
      log.entries.map((e) => [e.kind, e.measurement ?? null]),
      [
        ['measurement', attested.measurement],
        ['signer', null],
        ['governance', attested.measurement],
        ['governance', 'cd'.repeat(32)],
        ['governance', attested.measurement],
      ],
    );
    assert.ok(log.entries.slice(2).every((e) => e.governance_slot !== undefined));
    assert.equal(verifyTransparencyChain(log.entries, TRANSPARENCY_ZERO_HASH), log.head_hash);
  } finally {
    unsubscribe();
  }
});

test('another settlement signer pauses as signer_mismatch; both causes show both reasons', async () => {
  const watch = new GovernanceWatch(venue.server.gates, chain, attested);
  watch.check();
  const other = generateTradingKey().publicKey;
  const resting = await placeResting();
  govern(attested.measurement, other);
  watch.check();
  assert.deepEqual(await status(), { status: 'paused', reasons: ['signer_mismatch'] });
  await expectPausedButCancellable();
  await cancel(resting);
  govern('ef'.repeat(32), other);
  watch.check();
  assert.deepEqual((await status()).reasons, ['governance_mismatch', 'signer_mismatch']);
  govern(attested.measurement, attested.settlementSigner);
  watch.check();
  assert.deepEqual(await status(), { status: 'trading', reasons: [] });
});

test('an attestation that no longer verifies pauses as attestation_mismatch until it does again', async () => {
  const enclave = venue.enclave;
  const platform = venue.platform;
  assert.ok(enclave !== undefined && platform !== undefined);
  assert.equal(enclave.attestationHolds(), true, "the venue's own attestation passes a client's checks");
  const expected = {
    measurement: attested.measurement,
    sessionId: venue.identity.sessionId,
    tlsSpkiSha256: venue.identity.spkiSha256,
  };
  // What the platform vouches for now: the served report, or one that binds another TLS key.
  let served = enclave.attestation();
  const watch = new GovernanceWatch(venue.server.gates, chain, attested, {
    attestationHolds: () => attestationHolds(served, enclave.transportAttestation(), platform, expected),
  });
  watch.check();
  const resting = await placeResting();
  served = { ...served, report: { ...served.report, tls_spki_sha256: 'ab'.repeat(32) } };
  watch.check();
  assert.deepEqual(await status(), { status: 'paused', reasons: ['attestation_mismatch'] });
  await expectPausedButCancellable();
  await cancel(resting);
  served = enclave.attestation();
  watch.check();
  assert.deepEqual(await status(), { status: 'trading', reasons: [] });
});
