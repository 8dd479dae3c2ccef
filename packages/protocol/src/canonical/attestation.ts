import { createHash } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { assert } from '../assert.ts';
import { verifyDigest } from '../crypto/ed25519.ts';
import { VenueError } from '../errors/venue-error.ts';
import { BYTES } from '../limits.ts';
import {
  ATTESTATION_PLATFORMS,
  ATTESTATION_REPORT_VERSION,
  type AttestationReport,
  type AttestationResponse,
  type TransparencyEntry,
  type TransportAttestationResponse,
} from '../schema/attestation.ts';
import { Count, Hex, Strict } from '../schema/primitives.ts';
import { sha256 } from './bodies.ts';
import { encodeLayout, place } from './layout.ts';

/**
 * The signed bytes of an attestation report (design decisions section 5) and the checks a client
 * makes before it sends any credential: the report is signed by a platform root it trusts, names
 * an allowed code measurement and this boot's session, and binds the TLS key it is talking to.
 * Shared by the venue (which produces the bytes) and the SDK (which verifies them).
 */
export const ATTESTATION_DOMAIN = 'venue-attestation-v1';

const hex = (bytes: number) => ({ kind: 'hex', bytes }) as const;

export const ATTESTATION_REPORT_LAYOUT = place([
  {
    name: 'domain',
    type: { kind: 'domain', tag: ATTESTATION_DOMAIN },
    note: 'ASCII tag, then one zero byte',
  },
  { name: 'version', type: { kind: 'u64' }, note: 'report layout version' },
  {
    name: 'platform',
    type: { kind: 'enum', values: ATTESTATION_PLATFORMS },
    note: 'index in the platform list',
  },
  { name: 'measurement', type: hex(32), note: 'code measurement' },
  { name: 'session_id', type: hex(32), note: 'boot session id' },
  { name: 'tls_spki_sha256', type: hex(32), note: 'sha256 of the TLS certificate public key (DER SPKI)' },
  { name: 'settlement_signer', type: hex(32), note: 'Ed25519 settlement signer' },
  { name: 'sealing_pubkey', type: hex(32), note: 'X25519 sealing key' },
  { name: 'issued_at_ms', type: { kind: 'u64' }, note: 'Unix milliseconds' },
  { name: 'platform_key_id', type: hex(32), note: 'sha256 of the platform root public key' },
]);

export function encodeAttestationReport(report: AttestationReport): Uint8Array {
  return encodeLayout(ATTESTATION_REPORT_LAYOUT.fields, ATTESTATION_REPORT_LAYOUT.size, {
    ...report,
    version: BigInt(report.version),
    issued_at_ms: BigInt(report.issued_at_ms),
  });
}

/**
 * The 64-byte REPORTDATA of a TDX quote for this report: sha256 of its canonical bytes (the digest
 * the simulated root signs), then 32 zero bytes kept for a later use. The hardware signs REPORTDATA
 * on the enclave's behalf, so through it the quote vouches for every key and fact the report binds.
 */
export const TDX_REPORT_DATA_BYTES = 64;

export function tdxReportDataOf(report: AttestationReport): Uint8Array {
  const data = new Uint8Array(TDX_REPORT_DATA_BYTES);
  data.set(sha256(encodeAttestationReport(report)), 0);
  return data;
}

/** What the client trusts: platform roots by key id (sha256 of the raw key) and code measurements. */
export interface AttestationPolicy {
  readonly trustedRoots: ReadonlyMap<string, string>;
  readonly allowedMeasurements: ReadonlySet<string>;
}

/**
 * Checks a report as a client must before sending credentials (spec 1 item 9). Returns the report
 * when every check passes; throws naming the first failed check otherwise. `tlsSpkiSha256` is what
 * the client computed from the certificate its TLS connection actually presented.
 */
export function verifyAttestation(
  response: AttestationResponse,
  policy: AttestationPolicy,
  expected: { readonly sessionId: string; readonly tlsSpkiSha256: string },
): AttestationReport {
  const { report, signature } = response;
  const refuse = (why: string): never => {
    throw new VenueError('ATTESTATION_UNAVAILABLE', `attestation refused: ${why}; do not send credentials`);
  };
  if (report.version !== ATTESTATION_REPORT_VERSION) refuse(`report version ${report.version} is unknown`);
  const root = policy.trustedRoots.get(report.platform_key_id);
  if (root === undefined) refuse('the report is signed by a platform root this client does not trust');
  if (!verifyDigest(root as string, sha256(encodeAttestationReport(report)), signature)) {
    refuse('the platform signature does not verify');
  }
  if (!policy.allowedMeasurements.has(report.measurement))
    refuse('the code measurement is not on the allow-list');
  if (report.session_id !== expected.sessionId) refuse('the report is for another boot session');
  if (report.tls_spki_sha256 !== expected.tlsSpkiSha256) {
    refuse('the TLS key of this connection is not the attested one');
  }
  return report;
}

/** The transport attestation must point at the same key and session as the full report. */
export function checkTransportAttestation(
  transport: TransportAttestationResponse,
  response: AttestationResponse,
): void {
  if (
    transport.tls_spki_sha256 !== response.report.tls_spki_sha256 ||
    transport.session_id !== response.report.session_id ||
    transport.report_signature !== response.signature
  ) {
    throw new VenueError('ATTESTATION_UNAVAILABLE', 'the transport attestation does not match the report');
  }
}

/**
 * Transparency log hashing. `payload_digest` = sha256 over the entry's canonical payload: the kind
 * and each optional field as `name=value` lines in a fixed order. `entry_hash` = sha256 over
 * `prev_hash || payload_digest || index (u64 big-endian)`; the first entry's prev_hash is zeros.
 */
export const TRANSPARENCY_ZERO_HASH = '00'.repeat(32);

export function transparencyPayloadDigest(
  entry: Pick<
    TransparencyEntry,
    'kind' | 'time_ms' | 'session_id' | 'measurement' | 'settlement_signer' | 'governance_slot'
  >,
): string {
  const lines = [
    `kind=${entry.kind}`,
    `time_ms=${entry.time_ms}`,
    `session_id=${entry.session_id ?? ''}`,
    `measurement=${entry.measurement ?? ''}`,
    `settlement_signer=${entry.settlement_signer ?? ''}`,
    `governance_slot=${entry.governance_slot ?? ''}`,
  ];
  return Buffer.from(sha256(Buffer.from(lines.join('\n'), 'utf8'))).toString('hex');
}

export function transparencyEntryHash(prevHash: string, payloadDigest: string, index: bigint): string {
  const bytes = Buffer.alloc(72);
  Buffer.from(prevHash, 'hex').copy(bytes, 0);
  Buffer.from(payloadDigest, 'hex').copy(bytes, 32);
  bytes.writeBigUInt64BE(index, 64);
  return Buffer.from(sha256(bytes)).toString('hex');
}

/** Checks a page of entries chains correctly from `prevHash` (the head a client remembered). */
export function verifyTransparencyChain(entries: readonly TransparencyEntry[], prevHash: string): string {
  let previous = prevHash;
  for (const entry of entries) {
    const digest = transparencyPayloadDigest(entry);
    if (entry.payload_digest !== digest || entry.prev_hash !== previous) {
      throw new VenueError('ATTESTATION_UNAVAILABLE', `transparency entry ${entry.index} does not chain`);
    }
    const hash = transparencyEntryHash(previous, digest, entry.index);
    if (entry.entry_hash !== hash) {
      throw new VenueError('ATTESTATION_UNAVAILABLE', `transparency entry ${entry.index} has a wrong hash`);
    }
    previous = hash;
  }
  return previous;
}

/**
 * The code measurement and the evidence that reproduces it (docs/enclave.md). The measurement is
 * sha256 over the measured files in ascending path order (plain code-unit order; paths are ASCII),
 * each contributing `path`, a zero byte, its length in decimal ASCII, a zero byte, then its bytes.
 * The length prefix keeps two different file sets from ever producing the same byte stream.
 * GET /evidences/manifest.json lists the files with their sizes and hashes; GET
 * /evidences/files/{path} serves each one, so anyone can recompute the value the report attests.
 */
export const CODE_MEASUREMENT_FORMAT = 'venue-code-measurement-v1';

/** One sentence a human reading the manifest needs to recompute the measurement by hand. */
export const CODE_MEASUREMENT_RECIPE =
  'sha256 over the files in ascending path order, each as: path, 0x00, decimal byte length, 0x00, bytes';

/** Most files one measurement covers, and the largest one (the lockfile is the biggest today). */
export const MEASURED_FILES_MAX = 4_096;
export const MEASURED_FILE_BYTES_MAX = 4 * 1024 * 1024;
export const MEASURED_PATH_LENGTH_MAX = 256;

/** Workspace-relative, `/`-separated, no empty, `.` or `..` segment: safe to serve and to join. */
const MEASURED_PATH_PATTERN = '^(?!.*(^|/)\\.{1,2}(/|$))[A-Za-z0-9._@+-]+(/[A-Za-z0-9._@+-]+)*$';
const MEASURED_PATH = new RegExp(MEASURED_PATH_PATTERN);

export interface MeasuredFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

export function isMeasuredPath(path: string): boolean {
  return path.length <= MEASURED_PATH_LENGTH_MAX && MEASURED_PATH.test(path);
}

export function codeMeasurementOf(files: readonly MeasuredFile[]): string {
  assert(files.length <= MEASURED_FILES_MAX, `at most ${MEASURED_FILES_MAX} measured files`);
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256');
  let previous: string | null = null;
  for (const file of sorted) {
    assert(
      isMeasuredPath(file.path),
      `measured path ${JSON.stringify(file.path)} is not a plain relative path`,
    );
    assert(file.path !== previous, `measured path ${file.path} appears twice`);
    assert(
      file.bytes.length <= MEASURED_FILE_BYTES_MAX,
      `${file.path} exceeds ${MEASURED_FILE_BYTES_MAX} bytes`,
    );
    hash.update(`${file.path}\u0000${file.bytes.length}\u0000`, 'utf8').update(file.bytes);
    previous = file.path;
  }
  return hash.digest('hex');
}

/** GET /evidences/manifest.json: what was measured, and how, for a verifier to fetch and recompute. */
export const CodeEvidenceManifestSchema = Strict(
  {
    format: Type.Literal(CODE_MEASUREMENT_FORMAT),
    recipe: Type.Literal(CODE_MEASUREMENT_RECIPE),
    measurement: Hex(BYTES.hash, { description: 'Equals `measurement` of the attestation report.' }),
    files: Type.Array(
      Strict({
        path: Type.String({
          maxLength: MEASURED_PATH_LENGTH_MAX,
          pattern: MEASURED_PATH_PATTERN,
          'x-expected': 'a workspace-relative path with / separators',
          description: 'Served at /evidences/files/{path}.',
        }),
        bytes: Count(MEASURED_FILE_BYTES_MAX),
        sha256: Hex(BYTES.hash),
      }),
      { maxItems: MEASURED_FILES_MAX, description: 'In ascending path order, the order they are hashed.' },
    ),
  },
  { title: 'CodeEvidenceManifest' },
);
export type CodeEvidenceManifest = Static<typeof CodeEvidenceManifestSchema>;

export function codeEvidenceManifestOf(files: readonly MeasuredFile[]): CodeEvidenceManifest {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    format: CODE_MEASUREMENT_FORMAT,
    recipe: CODE_MEASUREMENT_RECIPE,
    measurement: codeMeasurementOf(sorted),
    files: sorted.map((file) => ({
      path: file.path,
      bytes: file.bytes.length,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
    })),
  };
}

/**
 * What a verifier runs on evidence it fetched: every listed file must be present with the listed
 * size and hash, and the files must hash to the attested measurement. Returns the measurement.
 */
export function verifyCodeEvidence(
  manifest: CodeEvidenceManifest,
  files: ReadonlyMap<string, Uint8Array>,
  attestedMeasurement: string,
): string {
  const refuse = (why: string): never => {
    throw new VenueError('ATTESTATION_UNAVAILABLE', `code evidence refused: ${why}`);
  };
  for (const entry of manifest.files) {
    const bytes = files.get(entry.path) ?? refuse(`${entry.path} is listed but was not supplied`);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length !== entry.bytes || digest !== entry.sha256) {
      refuse(`${entry.path} does not match its manifest entry (${bytes.length} bytes, sha256 ${digest})`);
    }
  }
  if (files.size !== manifest.files.length) refuse('files were supplied that the manifest does not list');
  const measurement = codeMeasurementOf(
    manifest.files.map((e) => ({ path: e.path, bytes: files.get(e.path) as Uint8Array })),
  );
  if (measurement !== manifest.measurement)
    refuse(`the files hash to ${measurement}, not to the manifest's value`);
  if (measurement !== attestedMeasurement) {
    refuse(`the files hash to ${measurement}, but the report attests ${attestedMeasurement}`);
  }
  return measurement;
}
