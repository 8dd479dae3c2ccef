import { X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import {
  type Collateral,
  type getCollateralForFmspc as GetCollateralForFmspc,
  Quote,
  QuoteVerifier,
  type TcbStatus,
  utils,
} from '@phala/dcap-qvl';
import {
  type AttestationReport,
  type AttestationResponse,
  INTEL_SGX_ROOT_CA_PEM,
  TDX_QUOTE_BYTES_MAX,
  tdxReportDataOf,
  tdxRootKeyId,
} from '@venue/protocol';
import { AttestationError } from '../errors.ts';
import { chainEndingAtRoot, checkCollateralCrls, checkPckCrlIssuer } from './collateral-checks.ts';
import { dcapRefusalOf } from './dcap-refusals.ts';
import {
  sameMeasurement,
  TDX_TCB_STATUSES_DEFAULT,
  type TdxMeasurement,
  type TdxTrust,
} from './tdx-trust.ts';

/**
 * Verifying an Intel TDX attestation (docs/enclave.md section 9), in two steps that fail apart:
 * 1. verifyTdxQuote: the DCAP chain. @phala/dcap-qvl checks the quote signature, the QE report and
 *    its binding of the attestation key, the PCK chain to the pinned root, TCB info and QE identity
 *    with their signatures, chains and validity, and the serial numbers on the CRLs; collateral-checks.ts
 *    adds what it leaves out (who signed each CRL, and until when it holds). Then the TCB status
 *    against the policy and MRTD/RTMR0-3 against the allow-list.
 * 2. checkTdxBinding: plain field comparisons between the verified quote and the served report:
 *    report data = tdxReportDataOf(report), then code measurement, boot session and TLS key.
 */
export interface VerifiedTdxQuote {
  readonly measurement: TdxMeasurement;
  /** The 64 bytes the TD asked the hardware to sign. */
  readonly reportData: Uint8Array;
  /** The quote's ECDSA signature, r || s, hex: what GET /attestation serves as `signature`. */
  readonly signature: string;
  readonly tcbStatus: TcbStatus;
  readonly advisoryIds: readonly string[];
}

export async function verifyTdxQuote(quote: Uint8Array, trust: TdxTrust): Promise<VerifiedTdxQuote> {
  if (quote.length > TDX_QUOTE_BYTES_MAX) {
    throw new AttestationError(
      'malformed_quote',
      `the quote has ${quote.length} bytes, above ${TDX_QUOTE_BYTES_MAX}`,
    );
  }
  const root = new X509Certificate(trust.rootCertificatePem ?? INTEL_SGX_ROOT_CA_PEM);
  const nowMs = (trust.nowMs ?? Date.now)();
  const pckChain = checkQuoteShape(quote, root);
  const collateral = await collateralFor(pckChain, trust);
  await checkCollateralCrls(collateral, root, new Date(nowMs));
  let verified: ReturnType<QuoteVerifier['verify']>;
  try {
    verified = QuoteVerifier.newWithRootCa(root.raw).verify(quote, collateral, Math.floor(nowMs / 1000));
  } catch (error) {
    const message = (error as Error).message;
    throw new AttestationError(dcapRefusalOf(message), `DCAP verification failed: ${message}`, {
      cause: error,
    });
  }
  checkPckCrlIssuer(collateral, root, pckChain[1] as X509Certificate);
  const td = verified.report.type === 'td15' ? verified.report.asTd15()?.base : verified.report.asTd10();
  if (td === null || td === undefined) {
    throw new AttestationError(
      'malformed_quote',
      'the quote is not a TDX quote (it carries an SGX enclave report)',
    );
  }
  const accepted = trust.acceptedTcbStatuses ?? TDX_TCB_STATUSES_DEFAULT;
  if (!accepted.has(verified.status)) {
    throw new AttestationError(
      'tcb_status_refused',
      `the platform's TCB status is ${verified.status} (advisories ${verified.advisory_ids.join(', ') || 'none'}); accepted: ${[...accepted].join(', ')}`,
    );
  }
  const measurement: TdxMeasurement = {
    mrtd: hex(td.mrTd),
    rtmr0: hex(td.rtMr0),
    rtmr1: hex(td.rtMr1),
    rtmr2: hex(td.rtMr2),
    rtmr3: hex(td.rtMr3),
  };
  if (!trust.measurements.some((entry) => sameMeasurement(entry, measurement))) {
    throw new AttestationError(
      'unknown_td_measurement',
      `MRTD ${measurement.mrtd} with RTMR0-3 ${measurement.rtmr0.slice(0, 16)}…/${measurement.rtmr1.slice(0, 16)}…/${measurement.rtmr2.slice(0, 16)}…/${measurement.rtmr3.slice(0, 16)}… is not on the allow-list`,
    );
  }
  return {
    measurement,
    reportData: new Uint8Array(td.reportData),
    signature: quoteSignatureOf(quote),
    tcbStatus: verified.status,
    advisoryIds: verified.advisory_ids,
  };
}

/** Quote header TEE type of a TD, and the certification data types DCAP v4 quotes carry. */
const TEE_TYPE_TDX = 0x81;
const CERT_TYPE_QE_REPORT = 6;
const CERT_TYPE_PCK_CHAIN = 5;

/**
 * What a quote must be before the library sees it: a version 4 or 5 TDX quote whose certification
 * data is a QE report (type 6) carrying the PCK chain in PEM (type 5), ending at the pinned root.
 * The library accepts a wrong outer type and a chain whose root copy differs from the pinned one
 * (it checks signatures against the pinned key only); these bytes are not under any signature, so
 * without this check they could be changed unnoticed.
 */
function checkQuoteShape(quote: Uint8Array, root: X509Certificate): X509Certificate[] {
  let parsed: Quote;
  try {
    parsed = Quote.parse(quote);
  } catch (error) {
    throw new AttestationError('malformed_quote', 'the quote does not decode', { cause: error });
  }
  const { header, authData } = parsed;
  if (header.teeType !== TEE_TYPE_TDX || (header.version !== 4 && header.version !== 5)) {
    throw new AttestationError(
      'malformed_quote',
      `not a TDX quote of version 4 or 5 (TEE type ${header.teeType}, version ${header.version})`,
    );
  }
  const outer =
    authData.version === 4
      ? (authData.data as { certificationData: { certType: number } }).certificationData
      : null;
  const refuse = (cause?: unknown): never => {
    throw new AttestationError(
      'malformed_quote',
      `the quote must carry a QE report (certification data type ${CERT_TYPE_QE_REPORT}) with the PCK chain (type ${CERT_TYPE_PCK_CHAIN})`,
      { cause },
    );
  };
  if (outer?.certType !== CERT_TYPE_QE_REPORT) refuse();
  // Quote generators may hand back a fixed-size buffer: zero padding after the auth data is
  // tolerated, anything else there is bytes no signature covers.
  const signedBytes = parsed.signedLength();
  const end = signedBytes + 4 + Buffer.from(quote).readUInt32LE(signedBytes);
  if (quote.subarray(end).some((byte) => byte !== 0)) {
    throw new AttestationError(
      'malformed_quote',
      `the quote has non-zero bytes after its auth data (from byte ${end})`,
    );
  }
  let chain: Uint8Array = new Uint8Array(0);
  try {
    chain = parsed.rawCertChain(); // throws unless the inner type is the PCK chain
  } catch (error) {
    refuse(error);
  }
  return chainEndingAtRoot(chain, root, "the quote's PCK chain", 'malformed_quote');
}

/** The quote's ECDSA signature (r || s), hex. Throws `malformed_quote` when the quote does not parse. */
export function quoteSignatureOf(quote: Uint8Array): string {
  try {
    return hex(Quote.parse(quote).authData.intoV3().ecdsaSignature);
  } catch (error) {
    throw new AttestationError('malformed_quote', 'the quote does not decode', { cause: error });
  }
}

/**
 * The library declares getCollateralForFmspc in its types but its entry point does not export it
 * (0.3.9); the module that defines it does.
 */
const getCollateralForFmspc: typeof GetCollateralForFmspc = createRequire(import.meta.url)(
  '@phala/dcap-qvl/src/collateral.js',
).getCollateralForFmspc;

async function collateralFor(pckChain: readonly X509Certificate[], trust: TdxTrust): Promise<Collateral> {
  // The PCK chain is read from the quote, always: a copy in the collateral is dropped, so no
  // collateral can stand in another chain for the quote's.
  const withoutChain = ({
    pck_certificate_chain: _copy,
    ...rest
  }: Collateral & { pck_certificate_chain?: unknown }) => rest;
  if ('offline' in trust.collateral) return withoutChain(trust.collateral.offline);
  const { url } = trust.collateral;
  // The platform (FMSPC) and the CA that issued the PCK certificate select the collateral. The CA
  // is named here from the certificate's issuer: the library's own guess falls back to the
  // processor CA, whose CRL cannot revoke a certificate of the platform CA.
  const leaf = pckChain[0] as X509Certificate;
  const ca = /Platform CA/.test(leaf.issuer) ? 'platform' : 'processor';
  try {
    const fmspc = Buffer.from(utils.getFmspc(utils.getIntelExtension(leaf.raw)))
      .toString('hex')
      .toUpperCase();
    return withoutChain(await getCollateralForFmspc(url, fmspc, ca, false));
  } catch (error) {
    throw new AttestationError(
      'collateral_unavailable',
      `fetching collateral from ${url} failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Step 2: the quote verified, does it vouch for this report, this boot and this connection? Pure
 * comparisons, so they are tested on their own with reports built for the test (a public quote's
 * report data belongs to someone else's TD).
 */
export function checkTdxBinding(
  response: AttestationResponse,
  quote: Pick<VerifiedTdxQuote, 'reportData' | 'signature'>,
  expected: {
    readonly rootKeyId: string;
    readonly measurements: ReadonlySet<string>;
    readonly sessionId: string;
    readonly tlsSpkiSha256: string;
  },
): AttestationReport {
  const { report } = response;
  if (report.platform_key_id !== expected.rootKeyId) {
    throw new AttestationError(
      'untrusted_root',
      `the report names root ${report.platform_key_id}, not the pinned TDX root ${expected.rootKeyId}`,
    );
  }
  if (response.signature !== quote.signature) {
    throw new AttestationError('bad_signature', 'the served signature is not the quote signature');
  }
  const want = tdxReportDataOf(report);
  if (!Buffer.from(quote.reportData).equals(Buffer.from(want))) {
    throw new AttestationError(
      'report_data_mismatch',
      `the quote's report data ${hex(quote.reportData).slice(0, 16)}… is not the digest of the served report ${hex(want).slice(0, 16)}…: the quote vouches for another report`,
    );
  }
  if (!expected.measurements.has(report.measurement)) {
    throw new AttestationError(
      'unknown_measurement',
      `code measurement ${report.measurement} is not on the allow-list`,
    );
  }
  if (report.session_id !== expected.sessionId) {
    throw new AttestationError(
      'stale_session',
      `the report is for boot session ${report.session_id}, /info says ${expected.sessionId}`,
    );
  }
  if (report.tls_spki_sha256 !== expected.tlsSpkiSha256) {
    throw new AttestationError(
      'certificate_mismatch',
      `this connection presented TLS key ${expected.tlsSpkiSha256}, the venue attested ${report.tls_spki_sha256}`,
    );
  }
  return report;
}

/** Both steps on a GET /attestation response whose platform is `intel-tdx`. */
export async function checkTdxAttestation(
  response: AttestationResponse,
  trust: TdxTrust,
  expected: {
    readonly measurements: ReadonlySet<string>;
    readonly sessionId: string;
    readonly tlsSpkiSha256: string;
  },
): Promise<{ report: AttestationReport; quote: VerifiedTdxQuote }> {
  if (response.tdx_quote === undefined) {
    throw new AttestationError('malformed_report', 'an intel-tdx report came without its tdx_quote');
  }
  const rootKeyId = tdxRootKeyId(new X509Certificate(trust.rootCertificatePem ?? INTEL_SGX_ROOT_CA_PEM).raw);
  if (response.report.platform_key_id !== rootKeyId) {
    throw new AttestationError(
      'untrusted_root',
      `the report names root ${response.report.platform_key_id}, not the pinned TDX root ${rootKeyId}`,
    );
  }
  const quote = await verifyTdxQuote(new Uint8Array(Buffer.from(response.tdx_quote, 'base64')), trust);
  return { report: checkTdxBinding(response, quote, { rootKeyId, ...expected }), quote };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
