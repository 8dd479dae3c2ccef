import { ERRORS, errorNameOf } from '@venue/protocol';

/**
 * The errors the SDK raises. Every failure a bot must branch on has its own class and a stable
 * machine-readable field; messages say what failed and what to do, and never carry a secret.
 */

/**
 * Why an attested connection was refused (spec 1 item 9, design decisions section 5). Each value
 * names one check of the connect sequence, in the order the checks run.
 */
export const ATTESTATION_FAILURES = [
  /** The TLS connection or one of the attestation fetches failed before anything could be checked. */
  'unreachable',
  /** /info or /attestation did not decode, or the report version is unknown. */
  'malformed_report',
  /** The report names a platform root key id that is not among the trust roots. */
  'untrusted_root',
  /** The root is trusted but its signature over the report does not verify. */
  'bad_signature',
  /** The report's code measurement is not on the allow-list. */
  'unknown_measurement',
  /** The report is for another boot session than the one /info names. */
  'stale_session',
  /** The TLS key of this connection is not the attested one (a man in the middle, or a new boot). */
  'certificate_mismatch',
  // Intel TDX reports (docs/enclave.md section 9): the DCAP chain, then the TD, then the binding.
  /** The collateral service could not be reached or answered something unusable. */
  'collateral_unavailable',
  /** The quote does not decode, or is not a version 4/5 TDX quote with an ECDSA P-256 key and PCK chain. */
  'malformed_quote',
  /** The collateral (TCB info, QE identity, CRLs) does not decode. */
  'malformed_collateral',
  /** The collateral is for another platform (FMSPC) or another TEE type than the quote. */
  'collateral_mismatch',
  /** TCB info, QE identity or a CRL is not valid at the verification time (issued later, or past its next update). */
  'collateral_expired',
  /** The signature over TCB info, QE identity or a CRL does not verify under its signing chain. */
  'collateral_signature',
  /** A certificate chain (PCK, or a collateral signer) does not lead to the pinned root. */
  'certificate_chain',
  /** A certificate of a chain is not valid at the verification time. */
  'certificate_expired',
  /** A certificate of a chain is on a CRL. */
  'certificate_revoked',
  /** The quote's signature, the QE report's signature or the QE's binding of the attestation key fails. */
  'quote_signature',
  /** The quoting enclave is not the one Intel's QE identity describes (signer, product, attributes, SVN). */
  'qe_identity_mismatch',
  /** The platform's TCB status is one this client's policy refuses (or Intel revoked it). */
  'tcb_status_refused',
  /** The TD runs with debug on or with attributes a production TD must not have. */
  'td_attributes',
  /** MRTD and RTMR0 to RTMR3 are not an entry of the client's allow-list. */
  'unknown_td_measurement',
  /** The quote's report data is not the digest of the served report: the quote vouches for another boot. */
  'report_data_mismatch',
] as const;
export type AttestationFailure = (typeof ATTESTATION_FAILURES)[number];

export class AttestationError extends Error {
  readonly failure: AttestationFailure;

  constructor(failure: AttestationFailure, message: string, options?: { cause?: unknown }) {
    super(`attestation refused (${failure}): ${message}; no credential was sent`, options);
    this.name = 'AttestationError';
    this.failure = failure;
  }
}

/**
 * An error answer of the venue: the envelope of spec 7 (`code`, `message`), the HTTP status it came
 * with, and the `x-request-id` to quote to the operator. Stream error frames become the same class;
 * their `status` is the one the catalogue gives the code (0 when the code is not in it) and their
 * `requestId` is the frame's `request_id`.
 */
export class VenueApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly requestId: string | undefined;
  /**
   * How long the venue asked the client to wait before the same request may pass: the answer's
   * `Retry-After` header (every 429 and retryable 503 over REST carries one). A stream error frame
   * has no headers, so for its rate-limit codes (1400, 1401) the delay is read from the message
   * ("retry in 250 ms", "retry in about 6 s"). Undefined when the venue gave no wait.
   */
  readonly retryAfterMs: number | undefined;

  /** `message` is the venue's own text, unchanged, so a bot can log or match it. */
  constructor(fields: {
    status: number;
    code: number;
    message: string;
    requestId?: string | undefined;
    retryAfterMs?: number | undefined;
  }) {
    super(fields.message);
    this.name = 'VenueApiError';
    this.status = fields.status;
    this.code = fields.code;
    this.requestId = fields.requestId;
    this.retryAfterMs =
      fields.retryAfterMs ?? (RATE_LIMIT_CODES.has(fields.code) ? retryDelayMsOf(fields.message) : undefined);
  }

  override toString(): string {
    const where = this.requestId === undefined ? '' : ` (request ${this.requestId})`;
    return `VenueApiError ${this.code} (HTTP ${this.status}): ${this.message}${where}`;
  }
}

/** spec 7: 1400 (token allowance) and 1401 (trading allowance) name a delay; 1402 is a refusal. */
const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([1400, 1401]);

/**
 * The delay a rate-limit message names. The venue writes it into the message (spec 4.2: "message
 * includes an approximate retry delay") as `retry in N ms` or `retry in about N s`.
 */
export function retryDelayMsOf(message: string): number | undefined {
  const match = /retry in (?:about )?(\d{1,9}) ?(ms|s)\b/.exec(message);
  if (match === null) return undefined;
  const amount = Number(match[1]);
  return match[2] === 's' ? amount * 1000 : amount;
}

/** The HTTP status the catalogue gives a code; 0 for a code this SDK version does not know. */
export function statusOfCode(code: number): number {
  const name = errorNameOf(code);
  return name === undefined ? 0 : ERRORS[name].http;
}

/** The stream is not connected (or dropped) while a request was outstanding. */
export class StreamClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StreamClosedError';
  }
}
