// The attested connect against a venue on Intel TDX (its quotes come from a fake configfs kernel
// side and are signed under a test DCAP PKI, since no TD runs here): the SDK verifies the whole DCAP
// chain under the pinned root, then the TD's registers and the binding of report, boot and TLS key.
// What Intel's public data cannot show is refused here, each with its own reason: an expired or a
// revoked PCK certificate, a TCB status the policy refuses, collateral that cannot be fetched. The
// binding step is tested on its own on the parsed report: report data for another boot, another
// session, another TLS key, another build, a signature that is not the quote's.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createBootIdentity, createTdxPlatform } from '@venue/adapters';
import { AttestationResponseSchema, decodeJsonText, tdxReportDataOf, tdxRootKeyId } from '@venue/protocol';
import {
  buildTdxQuote,
  createDcapTestPki,
  type DcapTestPki,
  type FakeTsm,
  startFakeTsm,
  startTestPccs,
  TEST_TD_REGISTERS,
  TestVenue,
} from '@venue/testing';
import {
  AttestationError,
  checkTdxBinding,
  connectVenue,
  type TdxTrust,
  type TrustAnchors,
  verifyTdxQuote,
} from '../src/index.ts';
import { startProxy } from './proxies.ts';

const DAY_MS = 86_400_000;
let dir: string;
let pki: DcapTestPki;
let tsm: FakeTsm;
let venue: TestVenue;
let trust: TrustAnchors;
let tdx: TdxTrust;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'venue-tdx-sdk-'));
  pki = await createDcapTestPki({ nowMs: Date.now() });
  tsm = startFakeTsm(join(dir, 'report'), (reportData) => buildTdxQuote(pki, reportData));
  const platform = await createTdxPlatform({
    sealingSecret: new Uint8Array(32).fill(3),
    configfsRoot: tsm.root,
    rootCertificatePem: pki.rootCertificatePem,
  });
  venue = await TestVenue.start({ enclave: true, platform });
  tdx = {
    measurements: [TEST_TD_REGISTERS],
    collateral: { offline: pki.collateral },
    rootCertificatePem: pki.rootCertificatePem,
  };
  trust = { roots: new Map(), measurements: new Set([venue.enclave?.measurement ?? '']), tdx };
});
after(async () => {
  await venue?.stop();
  tsm?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const url = () => `https://127.0.0.1:${venue.port}`;

function refusedWith(failure: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AttestationError, `expected an AttestationError, got ${String(error)}`);
    assert.equal(error.failure, failure, error.message);
    return true;
  };
}

describe('attested connect to a TDX venue', () => {
  test('succeeds with offline collateral and pins the attested key', async () => {
    const client = await connectVenue({ url: url(), trust });
    assert.equal(client.report.platform, 'intel-tdx');
    assert.equal(client.spkiSha256, venue.identity.spkiSha256);
    assert.equal((await client.time()).slot, venue.clock.slot());
    await client.close();
  });

  test('fetches collateral from a configured collateral service', async () => {
    const pccs = await startTestPccs(pki.collateral);
    try {
      const client = await connectVenue({
        url: url(),
        trust: { ...trust, tdx: { ...tdx, collateral: { url: pccs.url } } },
      });
      await client.close();
      assert.ok(pccs.requests.some((path) => path.startsWith('/tdx/certification/v4/tcb?fmspc=')));
      assert.ok(pccs.requests.some((path) => path.startsWith('/sgx/certification/v4/pckcrl')));
    } finally {
      await pccs.close();
    }
    await assert.rejects(
      connectVenue({ url: url(), trust: { ...trust, tdx: { ...tdx, collateral: { url: pccs.url } } } }),
      refusedWith('collateral_unavailable'),
    );
  });

  test('a client without TDX trust refuses the venue (untrusted_root)', async () => {
    const { tdx: _none, ...simulatedOnly } = trust;
    await assert.rejects(
      connectVenue({
        url: url(),
        trust: { ...simulatedOnly, roots: new Map([['ab'.repeat(32), 'cd'.repeat(32)]]) },
      }),
      (error: unknown) => error instanceof Error && /not sha256 of its key/.test(error.message),
    );
    const stranger = await createDcapTestPki({ nowMs: Date.now() });
    await assert.rejects(
      connectVenue({
        url: url(),
        trust: { ...trust, tdx: { ...tdx, rootCertificatePem: stranger.rootCertificatePem } },
      }),
      refusedWith('untrusted_root'),
    );
  });

  test('a TD build not on the allow-list is refused (unknown_td_measurement)', async () => {
    const other = { ...TEST_TD_REGISTERS, mrtd: 'ff'.repeat(48) };
    await assert.rejects(
      connectVenue({ url: url(), trust: { ...trust, tdx: { ...tdx, measurements: [other] } } }),
      refusedWith('unknown_td_measurement'),
    );
  });

  test('a man in the middle with another certificate is refused (certificate_mismatch)', async () => {
    const proxy = await startProxy(
      venue.port,
      (await createBootIdentity()).tlsCredentials(),
      () => 'intercept',
    );
    try {
      await assert.rejects(
        connectVenue({ url: `https://127.0.0.1:${proxy.port}`, trust }),
        refusedWith('certificate_mismatch'),
      );
    } finally {
      await proxy.close();
    }
  });
});

describe('DCAP refusals only a PKI of our own can show', () => {
  const NOW = Date.parse('2030-01-15T00:00:00Z');
  const verifyUnder = async (pkiOf: DcapTestPki, overrides: Partial<TdxTrust> = {}) =>
    verifyTdxQuote(buildTdxQuote(pkiOf, new Uint8Array(64)), {
      measurements: [TEST_TD_REGISTERS],
      collateral: { offline: pkiOf.collateral },
      rootCertificatePem: pkiOf.rootCertificatePem,
      nowMs: () => NOW,
      ...overrides,
    });

  test('an expired PCK certificate is refused (certificate_expired)', async () => {
    const expired = await createDcapTestPki({ nowMs: NOW, pckNotAfter: new Date(NOW - DAY_MS) });
    await assert.rejects(verifyUnder(expired), refusedWith('certificate_expired'));
  });

  test('a revoked PCK certificate is refused (certificate_revoked)', async () => {
    const revoked = await createDcapTestPki({ nowMs: NOW, revokePck: true });
    await assert.rejects(verifyUnder(revoked), refusedWith('certificate_revoked'));
  });

  test('an OutOfDate platform is refused by default and accepted only when the policy says so', async () => {
    const outdated = await createDcapTestPki({ nowMs: NOW, tcbStatus: 'OutOfDate' });
    await assert.rejects(verifyUnder(outdated), refusedWith('tcb_status_refused'));
    const accepted = await verifyUnder(outdated, { acceptedTcbStatuses: new Set(['UpToDate', 'OutOfDate']) });
    assert.equal(accepted.tcbStatus, 'OutOfDate');
    assert.deepEqual(accepted.advisoryIds, ['INTEL-SA-00000']);
  });

  test('a Revoked TCB level is refused whatever the policy', async () => {
    const revoked = await createDcapTestPki({ nowMs: NOW, tcbStatus: 'Revoked' });
    await assert.rejects(verifyUnder(revoked), refusedWith('tcb_status_refused'));
    await assert.rejects(
      connectVenue({
        url: url(),
        trust: { ...trust, tdx: { ...tdx, acceptedTcbStatuses: new Set(['Revoked']) } },
      }),
      /never accepted/,
    );
  });
});

describe('the binding step on the parsed report', () => {
  const expectedOf = () => ({
    rootKeyId: tdxRootKeyId(
      new Uint8Array(Buffer.from(pki.rootCertificatePem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64')),
    ),
    measurements: new Set([venue.enclave?.measurement ?? '']),
    sessionId: venue.identity.sessionId,
    tlsSpkiSha256: venue.identity.spkiSha256,
  });
  const served = async () =>
    decodeJsonText(AttestationResponseSchema, (await venue.call('/attestation')).text);

  test('binds the served report to this boot and this TLS key', async () => {
    const response = await served();
    const quote = await verifyTdxQuote(Buffer.from(response.tdx_quote ?? '', 'base64'), tdx);
    assert.equal(checkTdxBinding(response, quote, expectedOf()).session_id, venue.identity.sessionId);
  });

  test('report data for another boot is refused (report_data_mismatch)', async () => {
    const response = await served();
    const otherBoot = {
      reportData: tdxReportDataOf({ ...response.report, session_id: 'ab'.repeat(32) }),
      signature: response.signature,
    };
    assert.throws(
      () => checkTdxBinding(response, otherBoot, expectedOf()),
      refusedWith('report_data_mismatch'),
    );
    const otherKey = {
      reportData: tdxReportDataOf({ ...response.report, tls_spki_sha256: 'cd'.repeat(32) }),
      signature: response.signature,
    };
    assert.throws(
      () => checkTdxBinding(response, otherKey, expectedOf()),
      refusedWith('report_data_mismatch'),
    );
  });

  test('a bound report for another session, TLS key or build is refused with its reason', async () => {
    const response = await served();
    const bound = (report: typeof response.report) => ({
      reportData: tdxReportDataOf(report),
      signature: response.signature,
    });
    const expected = expectedOf();
    const cases = [
      [{ ...response.report, session_id: 'ab'.repeat(32) }, 'stale_session'],
      [{ ...response.report, tls_spki_sha256: 'cd'.repeat(32) }, 'certificate_mismatch'],
      [{ ...response.report, measurement: 'ef'.repeat(32) }, 'unknown_measurement'],
      [{ ...response.report, platform_key_id: '01'.repeat(32) }, 'untrusted_root'],
    ] as const;
    for (const [report, failure] of cases) {
      assert.throws(
        () => checkTdxBinding({ ...response, report }, bound(report), expected),
        refusedWith(failure),
      );
    }
    const otherSignature = { ...bound(response.report), signature: '00'.repeat(64) };
    assert.throws(() => checkTdxBinding(response, otherSignature, expected), refusedWith('bad_signature'));
  });
});
