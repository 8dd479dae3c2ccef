// The code measurement can be reproduced from what the venue publishes (spec 4.4 `/evidences/*`,
// docs/enclave.md): a verifier fetches the manifest and every listed file over HTTPS, recomputes the
// measurement with the documented recipe (written out again here, independently of the venue's code)
// and finds the value the platform-signed report attests. Any altered, missing or extra file is
// refused; the routes serve nothing outside the manifest and answer 503 on a venue without one.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import {
  assembleVenue,
  type CodeSnapshot,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  snapshotCode,
} from '@venue/adapters';
import {
  AttestationResponseSchema,
  type CodeEvidenceManifest,
  CodeEvidenceManifestSchema,
  decodeJsonText,
  verifyAttestation,
  verifyCodeEvidence,
} from '@venue/protocol';
import { fixedRoots, ManualClock, NON_SETTLING_TEST_PROOFS, TEST_CORE_CONFIG } from '@venue/testing';
import fc from 'fast-check';
import { EVIDENCE_FILES_PREFIX } from '../src/http/evidence-routes.ts';

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A venue like the dev one, with its boot snapshot served under /evidences. */
async function startVenue(withEvidence: boolean) {
  const identity = await createBootIdentity();
  const clock = new ManualClock();
  const platform = createSimulatedPlatform();
  const snapshot = snapshotCode();
  const enclave = await createEnclave({
    identity,
    platform,
    measurement: snapshot.measurement,
    nowMs: clock.nowMs(),
  });
  const { server } = await assembleVenue(
    {
      clock,
      proofs: { checks: NON_SETTLING_TEST_PROOFS },
      enclave,
      roots: fixedRoots(),
      front: { identity, log: { level: 'silent' }, ...(withEvidence ? { evidences: snapshot } : {}) },
    },
    { core: TEST_CORE_CONFIG, markets: [], settles: false, proofMode: 'stub' },
  );
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: identity.certPem });
  const get = (path: string): Promise<Fetched> =>
    new Promise((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port, path, agent }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
        })
        .on('error', reject);
    });
  return { server, platform, enclave, snapshot, get, agent };
}

/** The recipe of docs/enclave.md, as a verifier with no venue code would write it. */
function referenceMeasurement(files: ReadonlyMap<string, Buffer>): string {
  const hash = createHash('sha256');
  for (const path of [...files.keys()].sort()) {
    const bytes = files.get(path) as Buffer;
    hash.update(Buffer.from(`${path}\u0000${bytes.length}\u0000`, 'utf8')).update(bytes);
  }
  return hash.digest('hex');
}

describe('evidence of the code measurement', () => {
  let venue: Awaited<ReturnType<typeof startVenue>>;
  let manifest: CodeEvidenceManifest;
  const served = new Map<string, Buffer>();

  before(async () => {
    venue = await startVenue(true);
    const fetched = await venue.get('/evidences/manifest.json');
    assert.equal(fetched.status, 200);
    manifest = decodeJsonText(CodeEvidenceManifestSchema, fetched.body.toString('utf8'));
    for (const entry of manifest.files) {
      const file = await venue.get(`${EVIDENCE_FILES_PREFIX}${entry.path}`);
      assert.equal(file.status, 200, entry.path);
      served.set(entry.path, file.body);
    }
  });
  after(async () => {
    venue.agent.destroy();
    await venue.server.close();
  });

  test('the served files hash, by the documented recipe, to the measurement the platform signed', async () => {
    const attestation = decodeJsonText(
      AttestationResponseSchema,
      (await venue.get('/attestation')).body.toString(),
    );
    const report = verifyAttestation(
      attestation,
      {
        trustedRoots: new Map([[venue.platform.rootKeyId, venue.platform.rootPublicKey]]),
        allowedMeasurements: new Set([manifest.measurement]),
      },
      { sessionId: attestation.report.session_id, tlsSpkiSha256: attestation.report.tls_spki_sha256 },
    );
    assert.equal(referenceMeasurement(served), report.measurement);
    assert.equal(verifyCodeEvidence(manifest, served, report.measurement), report.measurement);
    // The measured set is the venue's code and its dependency pins, nothing else.
    const paths = manifest.files.map((f) => f.path);
    assert.ok(paths.includes('package-lock.json'));
    assert.ok(paths.includes('packages/adapters/src/http/evidence-routes.ts'));
    assert.ok(
      paths.every((p) => /^(package(-lock)?\.json|packages\/[^/]+\/(package\.json|src\/.+))$/.test(p)),
    );
    assert.deepEqual(paths, [...paths].sort(), 'listed in the order they are hashed');
  });

  test('a file is served as raw bytes with its manifest size and hash', async () => {
    const entry = manifest.files.find((f) => f.path.endsWith('code-measurement.ts'));
    assert.ok(entry !== undefined);
    const file = await venue.get(`${EVIDENCE_FILES_PREFIX}${entry.path}`);
    assert.equal(file.headers['content-type'], 'application/octet-stream');
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.ok(file.headers['x-request-id']);
    assert.equal(file.body.length, entry.bytes);
    assert.equal(createHash('sha256').update(file.body).digest('hex'), entry.sha256);
  });

  test('any altered, missing or extra file, or a manifest that lies, is refused', () => {
    const attested = manifest.measurement;
    const paths = [...served.keys()];
    fc.assert(
      fc.property(
        fc.nat({ max: paths.length - 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (fileIndex, offset, xor) => {
          const path = paths[fileIndex] as string;
          const original = served.get(path) as Buffer;
          // An empty file is altered by giving it a byte; any other by flipping bits of one byte.
          const altered = Buffer.from(original.length === 0 ? [xor] : original);
          const at = offset % altered.length;
          if (original.length > 0) altered.writeUInt8((altered.readUInt8(at) ^ xor) & 0xff, at);
          const files = new Map(served).set(path, altered);
          assert.throws(() => verifyCodeEvidence(manifest, files, attested), /code evidence refused/);
        },
      ),
      { numRuns: 50 },
    );
    const missing = new Map(served);
    missing.delete(paths[0] as string);
    assert.throws(() => verifyCodeEvidence(manifest, missing, attested), /not supplied/);
    const extra = new Map(served).set('packages/core/src/extra.ts', Buffer.from('x'));
    assert.throws(() => verifyCodeEvidence(manifest, extra, attested), /does not list/);
    assert.throws(() => verifyCodeEvidence(manifest, served, 'ab'.repeat(32)), /report attests/);
    const lying = { ...manifest, measurement: 'cd'.repeat(32) };
    assert.throws(() => verifyCodeEvidence(lying, served, attested), /not to the manifest's value/);
  });

  test('nothing outside the manifest is reachable; queries and unknown names are refused', async () => {
    for (const path of [
      `${EVIDENCE_FILES_PREFIX}packages/../package.json`,
      `${EVIDENCE_FILES_PREFIX}%2e%2e/%2e%2e/etc/passwd`,
      `${EVIDENCE_FILES_PREFIX}/etc/passwd`,
      `${EVIDENCE_FILES_PREFIX}packages/notes/artifacts/valid_input.zkey`,
      `${EVIDENCE_FILES_PREFIX}tsconfig.json`,
    ]) {
      const refused = await venue.get(path);
      assert.equal(refused.status, 404, path);
      const envelope = JSON.parse(refused.body.toString()) as { code: number; message: string };
      assert.equal(envelope.code, 1302, path);
      assert.match(envelope.message, /manifest\.json lists the files/);
    }
    const query = await venue.get('/evidences/manifest.json?all=1');
    assert.equal(query.status, 400);
    assert.equal((JSON.parse(query.body.toString()) as { code: number }).code, 1001);
  });
});

test('a venue without an attested measurement answers its evidence reads with 503 (5006)', async () => {
  const venue = await startVenue(false);
  try {
    for (const path of ['/evidences/manifest.json', `${EVIDENCE_FILES_PREFIX}package.json`]) {
      const refused = await venue.get(path);
      assert.equal(refused.status, 503, path);
      assert.equal((JSON.parse(refused.body.toString()) as { code: number }).code, 5006);
    }
  } finally {
    venue.agent.destroy();
    await venue.server.close();
  }
});

test('a snapshot keeps the bytes it measured (what is served is what was hashed)', () => {
  const snapshot: CodeSnapshot = snapshotCode();
  assert.equal(
    verifyCodeEvidence(snapshot.manifest, snapshot.files, snapshot.measurement),
    snapshot.measurement,
  );
});
