import { createHash } from 'node:crypto';
import {
  ATTESTATION_REPORT_VERSION,
  type AttestationReport,
  type AttestationResponse,
  AttestationResponseSchema,
  encodeAttestationReport,
  type InfoResponse,
  InfoResponseSchema,
  sha256,
  verifyAttestation,
  verifyDigest,
} from '@venue/protocol';
import { AttestationError, type AttestationFailure } from './errors.ts';
import { decodeResponse, type HttpExchange, httpExchange } from './http.ts';
import { SpkiAgent } from './pinning.ts';
import { checkTdxTrust, type TdxTrust } from './tdx/tdx-trust.ts';
import { checkTdxAttestation } from './tdx/verify-tdx.ts';

/**
 * The attested connect (spec 1 item 9, design decisions section 5, docs/decisions.md D39): open a
 * TLS connection, note the SPKI hash of the certificate it presented, fetch the public /info and
 * /attestation over that same connection, and check the report. Only the SPKI hash that passes
 * becomes the pin of every later connection; until then nothing but these two public GETs is sent.
 */

/** What a client trusts, configured by the operator of the bot, never learned from the venue. */
export interface TrustAnchors {
  /** Platform root keys by key id: key id = sha256 of the raw 32-byte Ed25519 key, both hex. */
  readonly roots: ReadonlyMap<string, string>;
  /** Code measurements (hex) the bot accepts: the builds it has reviewed. */
  readonly measurements: ReadonlySet<string>;
  /** Accept Intel TDX venues: the pinned root, the TD builds and the collateral source (docs/enclave.md). */
  readonly tdx?: TdxTrust;
}

/** The outcome of a successful attestation: what was verified, and the pin derived from it. */
export interface AttestedVenue {
  readonly info: InfoResponse;
  readonly report: AttestationReport;
  /** sha256 of the venue certificate's SPKI, as attested and as this connection presented it. */
  readonly spkiSha256: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Refuses anchors that could never verify anything: a typo here must not look like an attack. */
export function checkTrustAnchors(trust: TrustAnchors): void {
  if (trust.roots.size === 0 && trust.tdx === undefined)
    throw new TypeError('trust.roots is empty and trust.tdx is not set: add the platform root(s) you trust');
  if (trust.tdx !== undefined) checkTdxTrust(trust.tdx);
  for (const [keyId, publicKey] of trust.roots) {
    if (!HEX64.test(keyId) || !HEX64.test(publicKey)) {
      throw new TypeError('trust.roots maps 64-hex key ids to 64-hex Ed25519 public keys (lowercase)');
    }
    const derived = createHash('sha256').update(Buffer.from(publicKey, 'hex')).digest('hex');
    if (derived !== keyId) {
      throw new TypeError(`trust.roots: key id ${keyId} is not sha256 of its key (expected ${derived})`);
    }
  }
  if (trust.measurements.size === 0) {
    throw new TypeError('trust.measurements is empty: add the code measurement(s) you accept');
  }
  for (const measurement of trust.measurements) {
    if (!HEX64.test(measurement)) throw new TypeError('trust.measurements holds 64-hex sha256 values');
  }
}

/** Runs the whole attested connect against `origin`. Throws AttestationError on any failure. */
export async function attestVenue(
  origin: URL,
  trust: TrustAnchors,
  timeoutMs: number,
): Promise<AttestedVenue> {
  checkTrustAnchors(trust);
  // One socket, kept alive: /info and /attestation travel on the connection whose key is checked.
  const agent = new SpkiAgent({ pin: null, keepAlive: true, socketsMax: 1 });
  try {
    const infoExchange = await fetchPublic(agent, origin, '/info', timeoutMs);
    const attestationExchange = await fetchPublic(agent, origin, '/attestation', timeoutMs);
    const spkiSha256 = attestationExchange.spkiSha256;
    if (spkiSha256 === null || infoExchange.spkiSha256 !== spkiSha256) {
      throw new AttestationError(
        'certificate_mismatch',
        '/info and /attestation arrived over connections with different TLS keys',
      );
    }
    const info = decodeOrRefuse(() => decodeResponse(InfoResponseSchema, infoExchange.text), '/info');
    const response = decodeOrRefuse(
      () => decodeResponse(AttestationResponseSchema, attestationExchange.text),
      '/attestation',
    );
    const report =
      response.report.platform === 'intel-tdx'
        ? await checkTdxReport(response, trust, info.session_id, spkiSha256)
        : checkReport(response, trust, info.session_id, spkiSha256);
    return { info, report, spkiSha256 };
  } finally {
    agent.destroy();
  }
}

async function fetchPublic(
  agent: SpkiAgent,
  origin: URL,
  path: string,
  timeoutMs: number,
): Promise<HttpExchange> {
  let exchange: HttpExchange;
  try {
    exchange = await httpExchange(agent, origin, { method: 'GET', path, timeoutMs });
  } catch (error) {
    throw new AttestationError('unreachable', `GET ${path} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (exchange.status !== 200) {
    throw new AttestationError(
      'unreachable',
      `GET ${path} answered HTTP ${exchange.status}: ${exchange.text.slice(0, 200)}`,
    );
  }
  return exchange;
}

function decodeOrRefuse<T>(decodeBody: () => T, path: string): T {
  try {
    return decodeBody();
  } catch (error) {
    throw new AttestationError('malformed_report', `${path} is not valid: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** An intel-tdx report: refused unless the client configured TDX trust (it never falls back). */
async function checkTdxReport(
  response: AttestationResponse,
  trust: TrustAnchors,
  sessionId: string,
  spkiSha256: string,
): Promise<AttestationReport> {
  if (trust.tdx === undefined) {
    throw new AttestationError(
      'untrusted_root',
      'the venue attests with Intel TDX and trust.tdx is not configured',
    );
  }
  const expected = { measurements: trust.measurements, sessionId, tlsSpkiSha256: spkiSha256 };
  return (await checkTdxAttestation(response, trust.tdx, expected)).report;
}

/**
 * The protocol's verifyAttestation is the authority: the report passes only if it passes there.
 * When it refuses, the same checks are run one by one, in its order, to name the failure exactly.
 */
export function checkReport(
  response: AttestationResponse,
  trust: TrustAnchors,
  sessionId: string,
  spkiSha256: string,
): AttestationReport {
  try {
    return verifyAttestation(
      response,
      { trustedRoots: trust.roots, allowedMeasurements: trust.measurements },
      { sessionId, tlsSpkiSha256: spkiSha256 },
    );
  } catch (error) {
    const [failure, why] = firstFailure(response, trust, sessionId, spkiSha256) ?? [
      'malformed_report',
      (error as Error).message,
    ];
    throw new AttestationError(failure, why, { cause: error });
  }
}

function firstFailure(
  { report, signature }: AttestationResponse,
  trust: TrustAnchors,
  sessionId: string,
  spkiSha256: string,
): [AttestationFailure, string] | null {
  if (report.version !== ATTESTATION_REPORT_VERSION) {
    return ['malformed_report', `report version ${report.version} is not ${ATTESTATION_REPORT_VERSION}`];
  }
  const root = trust.roots.get(report.platform_key_id);
  if (root === undefined) {
    return [
      'untrusted_root',
      `the report is signed by platform root ${report.platform_key_id}, which is not a trust root`,
    ];
  }
  if (!verifyDigest(root, sha256(encodeAttestationReport(report)), signature)) {
    return [
      'bad_signature',
      `the signature of platform root ${report.platform_key_id} over the report does not verify`,
    ];
  }
  if (!trust.measurements.has(report.measurement)) {
    return ['unknown_measurement', `code measurement ${report.measurement} is not on the allow-list`];
  }
  if (report.session_id !== sessionId) {
    return ['stale_session', `the report is for boot session ${report.session_id}, /info says ${sessionId}`];
  }
  if (report.tls_spki_sha256 !== spkiSha256) {
    return [
      'certificate_mismatch',
      `this connection presented TLS key ${spkiSha256}, the venue attested ${report.tls_spki_sha256}`,
    ];
  }
  return null;
}
