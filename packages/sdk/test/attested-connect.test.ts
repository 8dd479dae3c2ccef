// The attested connect (spec 1 item 9, design decisions section 5): the SDK checks the venue's
// attestation on the very TLS connection it fetched it over, refuses an untrusted root, an unknown
// measurement, a tampered report, another boot and a man in the middle with another certificate,
// sends nothing secret before the checks pass, and holds every later connection to the attested key.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createBootIdentity } from '@venue/adapters';
import { AttestationResponseSchema, decodeJsonText, generateTradingKey } from '@venue/protocol';
import { TestVenue } from '@venue/testing';
import { checkReport } from '../src/attestation.ts';
import { AttestationError, connectVenue, type TrustAnchors } from '../src/index.ts';
import { startProxy } from './proxies.ts';

let venue: TestVenue;
let trust: TrustAnchors;
let otherCertificate: { key: string; cert: string };

before(async () => {
  venue = await TestVenue.start({ enclave: true });
  assert.ok(venue.platform !== undefined && venue.enclave !== undefined);
  trust = {
    roots: new Map([[venue.platform.rootKeyId, venue.platform.rootPublicKey]]),
    measurements: new Set([venue.enclave.measurement]),
  };
  otherCertificate = (await createBootIdentity()).tlsCredentials();
});
after(() => venue.stop());

const url = (port: number) => `https://127.0.0.1:${port}`;

function refusedWith(failure: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AttestationError, `expected an AttestationError, got ${String(error)}`);
    assert.equal(error.failure, failure, error.message);
    assert.match(error.message, /no credential was sent/);
    return true;
  };
}

describe('attested connect', () => {
  test('succeeds against the real venue and pins the attested key of this boot', async () => {
    const client = await connectVenue({ url: url(venue.port), trust });
    assert.equal(client.spkiSha256, venue.identity.spkiSha256);
    assert.equal(client.sessionId, venue.identity.sessionId);
    assert.equal(client.report.measurement, venue.enclave?.measurement);
    assert.equal((await client.time()).slot, venue.clock.slot());
    await client.close();
  });

  test('refuses a report signed by a root the bot does not trust', async () => {
    const stranger = generateTradingKey().publicKey;
    const keyId = createHash('sha256').update(Buffer.from(stranger, 'hex')).digest('hex');
    await assert.rejects(
      connectVenue({ url: url(venue.port), trust: { ...trust, roots: new Map([[keyId, stranger]]) } }),
      refusedWith('untrusted_root'),
    );
  });

  test('refuses a code measurement that is not on the allow-list', async () => {
    await assert.rejects(
      connectVenue({ url: url(venue.port), trust: { ...trust, measurements: new Set(['ee'.repeat(32)]) } }),
      refusedWith('unknown_measurement'),
    );
  });

  test('names a bad signature and another boot session precisely', async () => {
    const response = decodeJsonText(AttestationResponseSchema, (await venue.call('/attestation')).text);
    const spki = venue.identity.spkiSha256;
    const session = venue.identity.sessionId;
    const flipped = `${response.signature.slice(0, -2)}${response.signature.endsWith('00') ? '01' : '00'}`;
    assert.throws(
      () => checkReport({ ...response, signature: flipped }, trust, session, spki),
      refusedWith('bad_signature'),
    );
    assert.throws(() => checkReport(response, trust, 'cc'.repeat(32), spki), refusedWith('stale_session'));
    assert.throws(
      () => checkReport(response, trust, session, 'aa'.repeat(32)),
      refusedWith('certificate_mismatch'),
    );
    assert.equal(checkReport(response, trust, session, spki).session_id, session);
  });

  test('refuses configuration that can never be safe: plain http, empty or inconsistent anchors', async () => {
    await assert.rejects(connectVenue({ url: `http://127.0.0.1:${venue.port}`, trust }), TypeError);
    await assert.rejects(
      connectVenue({ url: url(venue.port), trust: { ...trust, roots: new Map() } }),
      TypeError,
    );
    const [keyId] = [...trust.roots.keys()];
    await assert.rejects(
      connectVenue({
        url: url(venue.port),
        trust: { ...trust, roots: new Map([[keyId ?? '', 'ab'.repeat(32)]]) },
      }),
      /not sha256 of its key/,
    );
  });
});

describe('man in the middle', () => {
  test('a TLS proxy with another certificate is refused, and it saw no credential', async () => {
    const proxy = await startProxy(venue.port, otherCertificate, () => 'intercept');
    try {
      await assert.rejects(
        connectVenue({ url: url(proxy.port), trust }),
        refusedWith('certificate_mismatch'),
      );
      const seen = proxy.intercepted();
      // The proxy did relay the public attestation fetches, and nothing else.
      assert.match(seen, /GET \/info HTTP\/1\.1/);
      assert.match(seen, /GET \/attestation HTTP\/1\.1/);
      assert.doesNotMatch(seen, /authorization/i);
      assert.doesNotMatch(seen, /\/auth\/token/);
    } finally {
      await proxy.close();
    }
  });

  test('after attestation every new connection must present the attested key: a later interception is refused before a byte is sent', async () => {
    // The first connection (the attested one) reaches the venue; every later one is intercepted.
    const proxy = await startProxy(venue.port, otherCertificate, (index) =>
      index === 0 ? 'pass' : 'intercept',
    );
    const account = await venue.server.provision('trader', 'pinned');
    const client = await connectVenue({ url: url(proxy.port), trust });
    try {
      await assert.rejects(
        client.login({
          apiKey: account.api_key,
          apiSecret: account.api_secret,
          passphrase: account.passphrase,
        }),
        refusedWith('certificate_mismatch'),
      );
      assert.ok(proxy.connections() >= 2);
      assert.equal(proxy.intercepted(), '', 'nothing at all was written to the intercepted connection');
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});
