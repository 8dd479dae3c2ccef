import Type, { type Static } from 'typebox';
import { BYTES } from '../limits.ts';
import { Count, DecimalU64, Hex, OneOf, Strict, U64, UnixMs } from './primitives.ts';

/**
 * What a client checks before it sends a credential (spec 1 item 9, design decisions section 5):
 * the attestation report of GET /attestation, the boot certificate of GET /transport-attestation,
 * and the append-only transparency log of GET /transparency. All three are public (spec 4.4).
 */

/** Version of the report layout below; bumped when a field is added to the signed bytes. */
export const ATTESTATION_REPORT_VERSION = 1;

/**
 * The attestation provider that produced the report. `simulated` is the built-in platform (a
 * software root key); the others name real TEEs whose providers plug in behind the same report.
 */
export const ATTESTATION_PLATFORMS = ['simulated', 'aws-nitro', 'amd-sev-snp', 'intel-tdx'] as const;
export type AttestationPlatform = (typeof ATTESTATION_PLATFORMS)[number];

/**
 * The signed statement of one boot: which code runs (measurement), under which boot session, behind
 * which TLS key, with which settlement signer and sealing key. Every key a client will trust for
 * this boot is bound here, under the platform root key.
 */
export const AttestationReportSchema = Strict(
  {
    version: Count(65_535, {
      description: `Report layout version; currently ${ATTESTATION_REPORT_VERSION}.`,
    }),
    platform: OneOf(ATTESTATION_PLATFORMS),
    measurement: Hex(BYTES.hash, { description: 'Hash of the enclave code; check against an allow-list.' }),
    session_id: Hex(BYTES.sessionId, { description: 'Boot session id, as in GET /info.' }),
    tls_spki_sha256: Hex(BYTES.hash, {
      description: 'sha256 of the DER SubjectPublicKeyInfo of the TLS certificate of this boot: pin it.',
    }),
    settlement_signer: Hex(BYTES.publicKey, { description: 'Ed25519 key that signs settlement batches.' }),
    sealing_pubkey: Hex(BYTES.publicKey, {
      description: 'X25519 key of the sealing identity of the enclave.',
    }),
    issued_at_ms: UnixMs(),
    platform_key_id: Hex(BYTES.hash, {
      description: 'sha256 of the platform root public key that signed; selects the trusted root.',
    }),
  },
  { title: 'AttestationReport' },
);
export type AttestationReport = Static<typeof AttestationReportSchema>;

/**
 * Largest TDX quote accepted (docs/enclave.md section 9). A version 4 quote with its PCK chain is
 * about 5 KiB; the bound leaves room for version 5 and longer chains, and no more.
 */
export const TDX_QUOTE_BYTES_MAX = 16_384;

/**
 * GET /attestation: the report and the platform's signature over its canonical bytes. On the
 * simulated platform that is the root key's Ed25519 signature. On `intel-tdx` the report is bound
 * by the quote instead (its report data is tdxReportDataOf(report)); `tdx_quote` carries the quote
 * and `signature` is the quote's own ECDSA P-256 signature (r || s), so the transport attestation
 * names the same value either way.
 */
export const AttestationResponseSchema = Strict(
  {
    report: AttestationReportSchema,
    signature: Hex(BYTES.signature, {
      description:
        'simulated: Ed25519 by the platform root key over sha256 of the canonical report bytes; intel-tdx: the quote signature (r || s).',
    }),
    tdx_quote: Type.Optional(
      Type.String({
        minLength: 4,
        maxLength: Math.ceil(TDX_QUOTE_BYTES_MAX / 3) * 4,
        pattern: '^[A-Za-z0-9+/]+={0,2}$',
        'x-expected': `base64 of a TDX quote of at most ${TDX_QUOTE_BYTES_MAX} bytes`,
        description: 'intel-tdx only: the DCAP quote whose report data binds this report, base64.',
      }),
    ),
  },
  { title: 'AttestationResponse' },
);
export type AttestationResponse = Static<typeof AttestationResponseSchema>;

/** Longest PEM certificate accepted (an Ed25519 or P-256 self-signed certificate is under 1 KiB). */
export const CERTIFICATE_PEM_LENGTH_MAX = 8192;

/**
 * GET /transport-attestation: the self-signed certificate of this boot, and the signature of the
 * report that binds its key (tls_spki_sha256), so a client can pin the certificate and check the
 * binding in one fetch. Fetch /attestation for the full report.
 */
export const TransportAttestationResponseSchema = Strict(
  {
    certificate_pem: Type.String({
      minLength: 64,
      maxLength: CERTIFICATE_PEM_LENGTH_MAX,
      pattern: '^-----BEGIN CERTIFICATE-----\\n[A-Za-z0-9+/=\\n]+-----END CERTIFICATE-----\\n?$',
      'x-expected': `one PEM certificate of at most ${CERTIFICATE_PEM_LENGTH_MAX} characters`,
      description: 'Self-signed, valid for this boot only (spec 1 item 9).',
    }),
    tls_spki_sha256: Hex(BYTES.hash, { description: 'Must equal tls_spki_sha256 in the report.' }),
    session_id: Hex(BYTES.sessionId),
    report_signature: Hex(BYTES.signature, { description: 'The signature field of GET /attestation.' }),
  },
  { title: 'TransportAttestationResponse' },
);
export type TransportAttestationResponse = Static<typeof TransportAttestationResponseSchema>;

/**
 * Entry kinds of the transparency log: a boot's measurement, a boot's settlement signer, and a
 * finalized on-chain governance change (the measurement and signer the chain accepts).
 */
export const TRANSPARENCY_KINDS = ['measurement', 'signer', 'governance'] as const;
export type TransparencyKind = (typeof TRANSPARENCY_KINDS)[number];

/** Largest page of GET /transparency, and its default. */
export const TRANSPARENCY_PAGE_MAX = 100;

/**
 * One log entry. `payload_digest` is sha256 of the entry's canonical payload (the optional fields
 * present for its kind); `entry_hash` chains it to `prev_hash` (32 zero bytes for entry 0), so a
 * client that remembers one head can check that a later head extends it.
 */
export const TransparencyEntrySchema = Strict(
  {
    index: U64(),
    kind: OneOf(TRANSPARENCY_KINDS),
    time_ms: UnixMs({ description: 'When the venue appended the entry.' }),
    session_id: Type.Optional(
      Hex(BYTES.sessionId, { description: 'Boot of a measurement or signer entry.' }),
    ),
    measurement: Type.Optional(Hex(BYTES.hash, { description: 'measurement and governance entries.' })),
    settlement_signer: Type.Optional(Hex(BYTES.publicKey, { description: 'signer and governance entries.' })),
    governance_slot: Type.Optional(U64({ description: 'governance entries: slot the change became final.' })),
    payload_digest: Hex(BYTES.hash),
    prev_hash: Hex(BYTES.hash),
    entry_hash: Hex(BYTES.hash),
  },
  { title: 'TransparencyEntry' },
);
export type TransparencyEntry = Static<typeof TransparencyEntrySchema>;

/** GET /transparency?from=0&limit=100: both optional (from 0, limit 100), decimal strings. */
export const TransparencyQuerySchema = Strict(
  {
    from: Type.Optional(DecimalU64({ description: 'Index of the first entry wanted; default 0.' })),
    limit: Type.Optional(DecimalU64({ description: `1 to ${TRANSPARENCY_PAGE_MAX}; default the maximum.` })),
  },
  { title: 'TransparencyQuery' },
);
export type TransparencyQuery = Static<typeof TransparencyQuerySchema>;

/** GET /transparency: a page of entries and the current head of the whole log. */
export const TransparencyResponseSchema = Strict(
  {
    size: U64({ description: 'Entries in the log; the head is entry size - 1.' }),
    head_hash: Hex(BYTES.hash, { description: 'entry_hash of the newest entry (zeros when empty).' }),
    entries: Type.Array(TransparencyEntrySchema, { maxItems: TRANSPARENCY_PAGE_MAX }),
    next_from: Type.Optional(U64({ description: 'Present when entries remain after this page.' })),
  },
  { title: 'TransparencyResponse' },
);
export type TransparencyResponse = Static<typeof TransparencyResponseSchema>;
