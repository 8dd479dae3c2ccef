// Attestation before credentials (spec 1 item 9, design decisions section 5): the report served
// by the venue verifies under the simulated platform root, names the allowed measurement and this
// boot, and binds the TLS key the client's own connection presented; every tampering is refused;
// the transparency log chains; the code measurement follows the code.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { createSimulatedPlatform, measureCode } from '@venue/adapters';
import {
  type AttestationPolicy,
  type AttestationResponse,
  AttestationResponseSchema,
  checkTransportAttestation,
  decodeJsonText,
  TRANSPARENCY_ZERO_HASH,
  TransparencyResponseSchema,
  TransportAttestationResponseSchema,
  verifyAttestation,
  verifyTransparencyChain,
} from '@venue/protocol';
import { TestVenue } from '@venue/testing';

let venue: TestVenue;
let policy: AttestationPolicy;

/** GET over TLS that also reports the SPKI hash of the certificate this connection presented. */
function fetchWithPeer(path: string): Promise<{ text: string; spkiSha256: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        { host: '127.0.0.1', port: venue.port, path, ca: venue.identity.certPem, agent: false },
        (response) => {
          const peer = (response.socket as TLSSocket).getPeerX509Certificate();
          const spki = peer?.publicKey.export({ type: 'spki', format: 'der' }) ?? Buffer.alloc(0);
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          response.on('end', () =>
            resolve({ text, spkiSha256: createHash('sha256').update(spki).digest('hex') }),
          );
        },
      )
      .on('error', reject);
  });
}

before(async () => {
  venue = await TestVenue.start({ enclave: true });
  const platform = venue.platform;
  assert.ok(platform !== undefined && venue.enclave !== undefined);
  policy = {
    trustedRoots: new Map([[platform.rootKeyId, platform.rootPublicKey]]),
    allowedMeasurements: new Set([venue.enclave.measurement]),
  };
});
after(() => venue.stop());

async function attestation(): Promise<{ response: AttestationResponse; spkiSha256: string }> {
  const { text, spkiSha256 } = await fetchWithPeer('/attestation');
  return { response: decodeJsonText(AttestationResponseSchema, text), spkiSha256 };
}

test('the report verifies: trusted root, allowed measurement, this boot, the TLS key of this connection', async () => {
  const { response, spkiSha256 } = await attestation();
  const report = verifyAttestation(response, policy, {
    sessionId: venue.identity.sessionId,
    tlsSpkiSha256: spkiSha256,
  });
  assert.equal(report.platform, 'simulated');
  assert.equal(report.settlement_signer, venue.enclave?.settlementSigner.publicKey);
  const transport = decodeJsonText(
    TransportAttestationResponseSchema,
    (await fetchWithPeer('/transport-attestation')).text,
  );
  assert.equal(transport.certificate_pem, venue.identity.certPem);
  checkTransportAttestation(transport, response);
});

test('every tampering or mismatch is refused before any credential would be sent', async () => {
  const { response, spkiSha256 } = await attestation();
  const expected = { sessionId: venue.identity.sessionId, tlsSpkiSha256: spkiSha256 };
  const refusals: [string, () => unknown][] = [
    [
      'another measurement',
      () =>
        verifyAttestation(
          { ...response, report: { ...response.report, measurement: 'ee'.repeat(32) } },
          policy,
          expected,
        ),
    ],
    [
      'a swapped TLS key in the report',
      () =>
        verifyAttestation(
          { ...response, report: { ...response.report, tls_spki_sha256: 'aa'.repeat(32) } },
          policy,
          expected,
        ),
    ],
    [
      'a connection to another TLS key',
      () => verifyAttestation(response, policy, { ...expected, tlsSpkiSha256: 'bb'.repeat(32) }),
    ],
    ['another boot', () => verifyAttestation(response, policy, { ...expected, sessionId: 'cc'.repeat(32) })],
    [
      'an untrusted root',
      () => verifyAttestation(response, { ...policy, trustedRoots: new Map() }, expected),
    ],
    [
      'a root of another platform with the same key id',
      () => {
        const other = createSimulatedPlatform();
        return verifyAttestation(
          response,
          { ...policy, trustedRoots: new Map([[response.report.platform_key_id, other.rootPublicKey]]) },
          expected,
        );
      },
    ],
    [
      'a measurement off the allow-list',
      () => verifyAttestation(response, { ...policy, allowedMeasurements: new Set() }, expected),
    ],
  ];
  for (const [name, check] of refusals) {
    assert.throws(check, (error: Error) => /attestation refused/.test(error.message), name);
  }
});

test('the transparency log records this boot and chains from zero; pages continue where they stop', async () => {
  const full = decodeJsonText(TransparencyResponseSchema, (await fetchWithPeer('/transparency')).text);
  assert.equal(full.size, 2n);
  assert.deepEqual(
    full.entries.map((e) => e.kind),
    ['measurement', 'signer'],
  );
  assert.equal(verifyTransparencyChain(full.entries, TRANSPARENCY_ZERO_HASH), full.head_hash);
  const first = decodeJsonText(
    TransparencyResponseSchema,
    (await fetchWithPeer('/transparency?limit=1')).text,
  );
  assert.equal(first.next_from, 1n);
  const rest = decodeJsonText(TransparencyResponseSchema, (await fetchWithPeer('/transparency?from=1')).text);
  // A client that remembered the last entry of the first page checks that the next page extends it.
  assert.equal(verifyTransparencyChain(rest.entries, first.entries.at(-1)?.entry_hash ?? ''), full.head_hash);
  const forged = [
    { ...full.entries[0], measurement: 'ff'.repeat(32) },
    ...full.entries.slice(1),
  ] as typeof full.entries;
  assert.throws(() => verifyTransparencyChain(forged, TRANSPARENCY_ZERO_HASH));
});

test('the code measurement is stable and changes with any measured byte, name or file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-measure-'));
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  try {
    write('package-lock.json', '{"lockfileVersion":3}\n');
    write('packages/core/package.json', '{"name":"@venue/core"}\n');
    write('packages/core/src/a.ts', 'export const a = 1;\n');
    write('packages/core/README.md', 'not code: not measured\n');
    const before = measureCode(dir);
    assert.equal(measureCode(dir), before);
    write('packages/core/README.md', 'edited\n');
    assert.equal(measureCode(dir), before, 'files outside the measured set do not count');
    const changes: [string, () => void][] = [
      ['a source byte', () => write('packages/core/src/a.ts', 'export const a = 2;\n')],
      ['a new source file', () => write('packages/core/src/b.ts', '')],
      ['a dependency pin', () => write('package-lock.json', '{"lockfileVersion":3,"x":1}\n')],
      ['a package manifest', () => write('packages/core/package.json', '{"name":"@venue/kore"}\n')],
    ];
    const seen = new Set([before]);
    for (const [what, change] of changes) {
      change();
      const after = measureCode(dir);
      assert.ok(!seen.has(after), `${what} changes the measurement`);
      seen.add(after);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
