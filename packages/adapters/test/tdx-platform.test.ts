// The Intel TDX provider against a directory laid out like the configfs TSM report interface, with
// a fake kernel side (@venue/testing startFakeTsm): a boot where the interface is missing, or is not
// a TD's, is refused with what to do; on a "TD" the venue writes the digest of its report as report
// data, serves the quote from GET /attestation under platform intel-tdx, and its own re-check (the
// governance watch's attestation_mismatch) holds while the hardware vouches for what is served and
// pauses trading when the TD's registers change or the served quote binds another boot.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  attestationHolds,
  createTdxPlatform,
  GovernanceWatch,
  parseQuote,
  TdxUnavailableError,
} from '@venue/adapters';
import { type ChainSimulator, createChainSimulator } from '@venue/chain-sim';
import {
  AttestationResponseSchema,
  decodeJsonText,
  TransportAttestationResponseSchema,
  tdxReportDataOf,
  tradingKeyFromSeed,
} from '@venue/protocol';
import {
  buildTdxQuote,
  createDcapTestPki,
  type DcapTestPki,
  type FakeTsm,
  startFakeTsm,
  TEST_TD_REGISTERS,
  TestVenue,
} from '@venue/testing';

const SECRET = new Uint8Array(32).fill(7);
let dir: string;
let pki: DcapTestPki;
let tsm: FakeTsm;
let venue: TestVenue;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'venue-tsm-'));
  pki = await createDcapTestPki({ nowMs: Date.now() });
  tsm = startFakeTsm(join(dir, 'report'), (reportData) => buildTdxQuote(pki, reportData));
  const platform = await createTdxPlatform({
    sealingSecret: SECRET,
    configfsRoot: tsm.root,
    rootCertificatePem: pki.rootCertificatePem,
  });
  venue = await TestVenue.start({ enclave: true, platform });
});
after(async () => {
  await venue?.stop();
  tsm?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('boot on a machine that is not a TD', () => {
  test('is refused when the configfs TSM report directory is missing, saying what to do', async () => {
    await assert.rejects(
      createTdxPlatform({ sealingSecret: SECRET, configfsRoot: join(dir, 'no-such-dir') }),
      (error: unknown) => {
        assert.ok(error instanceof TdxUnavailableError);
        assert.match(error.message, /no-such-dir is missing/);
        assert.match(error.message, /not a TD/);
        assert.match(error.message, /"simulated"/);
        return true;
      },
    );
  });

  test('is refused when the TSM provider is another TEE', async () => {
    const other = startFakeTsm(join(dir, 'sev'), (data) => data, { provider: 'sev_guest' });
    try {
      await assert.rejects(
        createTdxPlatform({ sealingSecret: SECRET, configfsRoot: other.root }),
        /provider .* is "sev_guest", not "tdx_guest"/,
      );
    } finally {
      other.stop();
    }
  });
});

describe('a venue on the TDX platform', () => {
  test('serves a quote whose report data is the digest of its report, under platform intel-tdx', async () => {
    const response = await venue.call('/attestation');
    assert.equal(response.status, 200);
    const served = decodeJsonText(AttestationResponseSchema, response.text);
    assert.equal(served.report.platform, 'intel-tdx');
    assert.equal(served.report.session_id, venue.identity.sessionId);
    assert.ok(served.tdx_quote !== undefined);
    const quote = parseQuote(Buffer.from(served.tdx_quote, 'base64'));
    assert.deepEqual(Buffer.from(quote.reportData), Buffer.from(tdxReportDataOf(served.report)));
    assert.equal(served.signature, quote.signature, 'the served signature is the quote signature');
    const transport = decodeJsonText(
      TransportAttestationResponseSchema,
      (await venue.call('/transport-attestation')).text,
    );
    assert.equal(transport.report_signature, served.signature);
  });

  test('seals under a key that depends on the measurement, the same across boots of one build', async () => {
    const again = await createTdxPlatform({ sealingSecret: SECRET, configfsRoot: tsm.root });
    const measurement = venue.enclave?.measurement ?? '';
    assert.deepEqual(again.sealingKey(measurement), venue.platform?.sealingKey(measurement));
    assert.notDeepEqual(again.sealingKey('00'.repeat(32)), again.sealingKey(measurement));
  });
});

describe("the venue's own re-check (shared fate)", () => {
  const AUTHORITY = tradingKeyFromSeed(new Uint8Array(32).fill(9));
  let chain: ChainSimulator;
  let watch: GovernanceWatch;

  before(async () => {
    const enclave = venue.enclave;
    assert.ok(enclave !== undefined);
    const attested = {
      measurement: enclave.measurement,
      settlementSigner: enclave.settlementSigner.publicKey,
    };
    chain = await createChainSimulator({
      finalityDepth: 4,
      governance: {
        authority: AUTHORITY.publicKey,
        measurement: attested.measurement,
        settlement_signer: attested.settlementSigner,
      },
    });
    watch = new GovernanceWatch(venue.server.gates, chain, attested, {
      attestationHolds: () => enclave.attestationHolds(),
    });
  });

  const reasons = async () => {
    const body = JSON.parse((await venue.call('/system/status')).text) as { pause_reasons: string[] };
    return body.pause_reasons;
  };

  test('holds while the hardware vouches for the served quote', async () => {
    assert.equal(await venue.enclave?.recheckPlatform(), true);
    watch.check();
    assert.deepEqual(await reasons(), []);
  });

  test('pauses as attestation_mismatch when the TD now measures differently, and lifts when it is back', async () => {
    const enclave = venue.enclave;
    assert.ok(enclave !== undefined);
    tsm.setQuoteFor((data) => buildTdxQuote(pki, data, { ...TEST_TD_REGISTERS, rtmr3: 'ee'.repeat(48) }));
    assert.equal(await enclave.recheckPlatform(), false);
    watch.check();
    assert.deepEqual(await reasons(), ['attestation_mismatch']);
    tsm.setQuoteFor((data) => buildTdxQuote(pki, data));
    assert.equal(await enclave.recheckPlatform(), true);
    watch.check();
    assert.deepEqual(await reasons(), []);
  });

  test('a served quote whose report data is for another boot does not hold', () => {
    const enclave = venue.enclave;
    const platform = venue.platform;
    assert.ok(enclave !== undefined && platform !== undefined);
    const served = enclave.attestation();
    const expected = {
      measurement: enclave.measurement,
      sessionId: venue.identity.sessionId,
      tlsSpkiSha256: venue.identity.spkiSha256,
    };
    assert.equal(attestationHolds(served, enclave.transportAttestation(), platform, expected), true);
    const otherBoot = tdxReportDataOf({ ...served.report, session_id: 'ab'.repeat(32) });
    const quote = buildTdxQuote(pki, otherBoot);
    const swapped = {
      ...served,
      tdx_quote: Buffer.from(quote).toString('base64'),
      signature: parseQuote(quote).signature,
    };
    const transport = { ...enclave.transportAttestation(), report_signature: swapped.signature };
    assert.equal(attestationHolds(swapped, transport, platform, expected), false);
  });
});
