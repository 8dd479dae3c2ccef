// Verifying a real, public Intel TDX quote with its collateral (fixtures/tdx/README.md names the
// source) at a fixed time inside the collateral's validity: it passes, and every kind of damage is
// refused with its own AttestationError reason: a changed byte of the quote, of a certificate or of
// any collateral part, collateral past its validity, a TCB status the policy refuses, and a TD
// whose MRTD/RTMRs are not on the allow-list.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Collateral } from '@phala/dcap-qvl';
import { createBootIdentity } from '@venue/adapters';
import { AttestationError, type TdxTrust, verifyTdxQuote } from '../src/index.ts';

const FIXTURES = new URL('./fixtures/tdx/', import.meta.url);
const QUOTE = new Uint8Array(readFileSync(new URL('tdx-quote.bin', FIXTURES)));
const COLLATERAL = JSON.parse(
  readFileSync(new URL('tdx-quote-collateral.json', FIXTURES), 'utf8'),
) as Collateral;
/** Inside every validity window of the collateral (19 June to 19 July 2025). */
const VERIFIED_AT = Date.parse('2025-07-01T00:00:00Z');

/** The registers of the sample TD, as a release would publish them. */
const SAMPLE_TD = {
  mrtd: '91eb2b44d141d4ece09f0c75c2c53d247a3c68edd7fafe8a3520c942a604a407de03ae6dc5f87f27428b2538873118b7',
  rtmr0: '44c0197b39157fdd7a4dcc44767f9d6b0bb3977c7a8e347b8492f827fe9d9e5c48aca29b220b80b6a540cf994b9bc9c0',
  rtmr1: '0084452c01668329d4bc06acdf58a7205c26743304509973949e5619bf81a6a7aea8c323c173019b3093d54e579e9378',
  rtmr2: 'd833feef2cd945148aa38ead2c53e9b7f138190aaaebfc551dccd829fc207aa3ba80b70870d7330733642e01d48c3132',
  rtmr3: '0'.repeat(96),
};

function trust(overrides: Partial<TdxTrust> = {}): TdxTrust {
  return {
    measurements: [SAMPLE_TD],
    collateral: { offline: COLLATERAL },
    nowMs: () => VERIFIED_AT,
    ...overrides,
  };
}

function refusedWith(failure: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AttestationError, `expected an AttestationError, got ${String(error)}`);
    assert.equal(error.failure, failure, error.message);
    return true;
  };
}

function flipped(bytes: Uint8Array, offset: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[offset] = (copy[offset] as number) ^ 0x01;
  return copy;
}

/** Offsets in the sample (version 4: 48-byte header, 584-byte TD report, then the auth data). */
const PEM = Buffer.from(QUOTE).indexOf('-----BEGIN CERTIFICATE-----');
const QUOTE_DAMAGE: readonly (readonly [field: string, offset: number, failure: string])[] = [
  ['header version', 0, 'malformed_quote'],
  ['header user data', 30, 'quote_signature'],
  ['MRTD', 184, 'quote_signature'],
  ['RTMR0', 376, 'quote_signature'],
  ['report data', 570, 'quote_signature'],
  ['auth data length', 633, 'malformed_quote'],
  ['quote signature', 650, 'quote_signature'],
  ['attestation key', 710, 'quote_signature'],
  ['certification data type', 764, 'malformed_quote'],
  ['QE report', 800, 'quote_signature'],
  ['QE report signature', 1160, 'quote_signature'],
  ['QE auth data', 1225, 'quote_signature'],
  ['PCK leaf certificate', PEM + 200, 'malformed_quote'],
  ['PCK platform CA certificate', PEM + 2073, 'certificate_chain'],
  ['root certificate carried in the quote', PEM + 3029, 'certificate_chain'],
  ['padding after the auth data', QUOTE.length - 1, 'malformed_quote'],
];

function flipChar(text: string, index: number): string {
  const code = text.charCodeAt(index);
  // Hex stays hex, base64 stays base64: the damage is to the value, not to the encoding.
  const swapped = code === 0x30 ? 0x31 : code === 0x41 ? 0x42 : code ^ 0x01;
  return text.slice(0, index) + String.fromCharCode(swapped) + text.slice(index + 1);
}

const COLLATERAL_DAMAGE: readonly (readonly [field: keyof Collateral, at: number, failure: string])[] = [
  ['tcb_info', COLLATERAL.tcb_info.indexOf('"tcbStatus"') + 14, 'collateral_signature'],
  ['tcb_info_signature', 10, 'collateral_signature'],
  ['tcb_info_issuer_chain', 200, 'malformed_collateral'],
  ['tcb_info_issuer_chain', 700, 'certificate_chain'],
  ['qe_identity', COLLATERAL.qe_identity.indexOf('"isvprodid"') + 12, 'collateral_signature'],
  ['qe_identity_signature', 10, 'collateral_signature'],
  ['qe_identity_issuer_chain', 1500, 'malformed_collateral'],
  ['qe_identity_issuer_chain', 700, 'certificate_chain'],
  ['root_ca_crl', 200, 'collateral_signature'],
  ['pck_crl', 600, 'malformed_collateral'],
  ['pck_crl', COLLATERAL.pck_crl.length - 20, 'collateral_signature'],
  ['pck_crl_issuer_chain', 300, 'certificate_chain'],
];

describe('a real TDX quote', () => {
  test('verifies with its collateral and yields the TD registers and report data', async () => {
    const verified = await verifyTdxQuote(QUOTE, trust());
    assert.equal(verified.tcbStatus, 'UpToDate');
    assert.deepEqual(verified.measurement, SAMPLE_TD);
    assert.equal(verified.reportData.length, 64);
    assert.equal(verified.signature.length, 128);
  });

  for (const [field, offset, failure] of QUOTE_DAMAGE) {
    test(`a changed byte of the quote's ${field} is refused (${failure})`, async () => {
      await assert.rejects(verifyTdxQuote(flipped(QUOTE, offset), trust()), refusedWith(failure));
    });
  }

  test('a changed byte anywhere in the quote is refused (every 61st byte)', async () => {
    for (let offset = 0; offset < QUOTE.length; offset += 61) {
      await assert.rejects(
        verifyTdxQuote(flipped(QUOTE, offset), trust()),
        AttestationError,
        `byte ${offset}`,
      );
    }
  });

  for (const [field, at, failure] of COLLATERAL_DAMAGE) {
    test(`a changed character of the collateral's ${field} at ${at} is refused (${failure})`, async () => {
      const damaged = { ...COLLATERAL, [field]: flipChar(COLLATERAL[field] as string, at) };
      await assert.rejects(
        verifyTdxQuote(QUOTE, trust({ collateral: { offline: damaged } })),
        refusedWith(failure),
      );
    });
  }

  test('collateral past its next update, or not yet issued, is refused (collateral_expired)', async () => {
    for (const at of ['2025-07-20T00:00:00Z', '2025-06-01T00:00:00Z']) {
      await assert.rejects(
        verifyTdxQuote(QUOTE, trust({ nowMs: () => Date.parse(at) })),
        refusedWith('collateral_expired'),
      );
    }
  });

  test('a TCB status the policy does not accept is refused (tcb_status_refused)', async () => {
    const strict = trust({ acceptedTcbStatuses: new Set(['SWHardeningNeeded']) });
    await assert.rejects(verifyTdxQuote(QUOTE, strict), refusedWith('tcb_status_refused'));
  });

  test('MRTD or any RTMR not on the allow-list is refused (unknown_td_measurement)', async () => {
    for (const register of ['mrtd', 'rtmr0', 'rtmr1', 'rtmr2', 'rtmr3'] as const) {
      const other = { ...SAMPLE_TD, [register]: flipChar(SAMPLE_TD[register], 0) };
      await assert.rejects(
        verifyTdxQuote(QUOTE, trust({ measurements: [other] })),
        refusedWith('unknown_td_measurement'),
      );
    }
  });

  test('a root other than the one that signed the chain is refused (certificate_chain)', async () => {
    const other = (await createBootIdentity()).certPem;
    await assert.rejects(
      verifyTdxQuote(QUOTE, trust({ rootCertificatePem: other })),
      refusedWith('certificate_chain'),
    );
  });
});
