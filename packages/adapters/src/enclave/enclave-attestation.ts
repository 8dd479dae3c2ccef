import { createPrivateKey, createPublicKey, hkdfSync } from 'node:crypto';
import {
  ATTESTATION_REPORT_VERSION,
  type AttestationReport,
  type AttestationResponse,
  assert,
  checkTransportAttestation,
  encodeAttestationReport,
  generateTradingKey,
  sha256,
  TRANSPARENCY_ZERO_HASH,
  type TradingKey,
  type TransparencyEntry,
  type TransparencyResponse,
  type TransportAttestationResponse,
  tdxReportDataOf,
  tradingKeyFromSeed,
  transparencyEntryHash,
  transparencyPayloadDigest,
  verifyAttestation,
} from '@venue/protocol';
import { TDX_RECHECK_INTERVAL_MS } from '../config/limits.ts';
import type { AttestationSource } from '../venue/ports.ts';
import type { BootIdentity } from './boot-identity.ts';
import type { GovernanceRecorder } from './governance-watch.ts';
import type { AttestationPlatform, PlatformEvidence } from './simulated-platform.ts';
import { parseQuote } from './tdx-platform.ts';

/**
 * The enclave's statement about one boot: its code measurement, boot session, TLS key, settlement
 * signer and sealing key, signed once at boot by the platform root. The settlement signer and the
 * sealing key are drawn here and never leave memory. The transparency log records each boot's
 * measurement and signer, hash-chained, so a client can tell whether the history it saw before
 * was extended or rewritten.
 */
export interface Enclave extends AttestationSource, GovernanceRecorder {
  readonly measurement: string;
  /** Signs settlement batches (the chain checks it against governance). */
  readonly settlementSigner: TradingKey;
  readonly report: AttestationReport;
  /** The sealing key (stable for this measurement on this platform); the state directory's key. */
  sealingKey(): Uint8Array;
  /**
   * The client's checks, run by the venue on what it serves (GovernanceWatch re-runs it), and the
   * verdict of the last hardware re-check; on a platform that re-checks (Intel TDX) a call also
   * starts the next one when TDX_RECHECK_INTERVAL_MS has passed.
   */
  attestationHolds(): boolean;
  /** Asks the platform again now and records its verdict (true on the simulated platform). */
  recheckPlatform(): Promise<boolean>;
}

export interface EnclaveOptions {
  readonly identity: BootIdentity;
  readonly platform: AttestationPlatform;
  readonly measurement: string;
  readonly nowMs: number;
  /** Earlier entries of the transparency log (a restart continues it); none on first boot. */
  readonly transparencyHistory?: readonly TransparencyEntry[];
  /**
   * Derive the settlement signer from the sealing key instead of drawing it: the same build on the
   * same platform then signs with the same key after a restart, so the chain's governance, which
   * names the signer, need not change (`venue serve`, docs/settlement.md section 9). Like the
   * sealing key, it is reachable only by this measurement on this platform.
   */
  readonly sealedSettlementSigner?: boolean;
  /** Wall clock that paces the platform re-checks; default Date.now. */
  readonly clockMs?: () => number;
}

/** HKDF info of the sealed settlement signer's seed: one key per sealing key, for this use only. */
const SEALED_SIGNER_INFO = 'venue enclave settlement signer v1';

export async function createEnclave(options: EnclaveOptions): Promise<Enclave> {
  const { identity, platform, measurement, nowMs } = options;
  const sealingKey = platform.sealingKey(measurement);
  const settlementSigner =
    options.sealedSettlementSigner === true
      ? tradingKeyFromSeed(
          new Uint8Array(hkdfSync('sha256', sealingKey, new Uint8Array(0), SEALED_SIGNER_INFO, 32)),
        )
      : generateTradingKey();
  const sealingPubkey = sealingPublicKeyOf(sealingKey);
  const report: AttestationReport = {
    version: ATTESTATION_REPORT_VERSION,
    platform: platform.platform,
    measurement,
    session_id: identity.sessionId,
    tls_spki_sha256: identity.spkiSha256,
    settlement_signer: settlementSigner.publicKey,
    sealing_pubkey: sealingPubkey,
    issued_at_ms: nowMs,
    platform_key_id: platform.rootKeyId,
  };
  const digest = sha256(encodeAttestationReport(report));
  const evidence = await platform.attest(digest);
  const signature = evidence.signature;
  const log = new TransparencyLog(options.transparencyHistory ?? []);
  log.append({ kind: 'measurement', time_ms: nowMs, session_id: identity.sessionId, measurement });
  log.append({
    kind: 'signer',
    time_ms: nowMs,
    session_id: identity.sessionId,
    settlement_signer: settlementSigner.publicKey,
  });
  const attestation: AttestationResponse = {
    report,
    signature,
    ...(evidence.tdxQuote === undefined
      ? {}
      : { tdx_quote: Buffer.from(evidence.tdxQuote).toString('base64') }),
  };
  const transport: TransportAttestationResponse = {
    certificate_pem: identity.certPem,
    tls_spki_sha256: identity.spkiSha256,
    session_id: identity.sessionId,
    report_signature: signature,
  };
  const expected = { measurement, sessionId: identity.sessionId, tlsSpkiSha256: identity.spkiSha256 };
  const recheck = platformRecheck(platform, digest, evidence, options.clockMs ?? Date.now);
  return {
    measurement,
    settlementSigner,
    report,
    sealingKey: () => sealingKey,
    attestation: () => attestation,
    transportAttestation: () => transport,
    transparency: (from, limit) => log.page(from, limit),
    attestationHolds: () => recheck.verdict() && attestationHolds(attestation, transport, platform, expected),
    recheckPlatform: () => recheck.now(),
    recordGovernance: (entry) => {
      const last = log.lastOfKind('governance');
      // A restart sees the same governance again: the log records changes, not observations.
      if (last?.measurement === entry.measurement && last.settlement_signer === entry.settlement_signer) {
        return;
      }
      log.append({ kind: 'governance', ...entry });
    },
  };
}

/**
 * The hardware half of the self-check. A platform with `recheck` (Intel TDX) is asked for fresh
 * evidence at most once per TDX_RECHECK_INTERVAL_MS; the answer arrives later, so the watch sees it
 * on its next check. A re-check that fails or throws (the TD changed, the interface went away)
 * closes trading until one succeeds.
 */
function platformRecheck(
  platform: AttestationPlatform,
  digest: Uint8Array,
  served: PlatformEvidence,
  clockMs: () => number,
): { verdict(): boolean; now(): Promise<boolean> } {
  let holds = true;
  let lastMs = clockMs();
  let running: Promise<boolean> | null = null;
  const now = (): Promise<boolean> => {
    if (platform.recheck === undefined) return Promise.resolve(true);
    lastMs = clockMs();
    running ??= platform
      .recheck(digest, served)
      .catch(() => false)
      .then((verdict) => {
        holds = verdict;
        running = null;
        return verdict;
      });
    return running;
  };
  return {
    verdict: () => {
      if (
        platform.recheck !== undefined &&
        running === null &&
        clockMs() - lastMs >= TDX_RECHECK_INTERVAL_MS
      ) {
        void now();
      }
      return holds;
    },
    now,
  };
}

/**
 * Whether a served attestation would pass a client's checks (spec 1 item 9): the platform's
 * evidence, the attested measurement, this boot's session and TLS key, and a transport attestation
 * that points at the same report. Simulated: the root's signature over the report. Intel TDX: the
 * served quote's report data is the report's digest and its signature is the one served (the DCAP
 * chain is the client's to verify, with collateral the venue does not fetch). Whether the hardware
 * still vouches is the re-check's part (platformRecheck).
 */
export function attestationHolds(
  response: AttestationResponse,
  transport: TransportAttestationResponse,
  platform: Pick<AttestationPlatform, 'rootKeyId' | 'rootPublicKey'>,
  expected: { readonly measurement: string; readonly sessionId: string; readonly tlsSpkiSha256: string },
): boolean {
  try {
    if (response.report.platform === 'intel-tdx') {
      tdxBindingHolds(response, platform.rootKeyId, expected);
      checkTransportAttestation(transport, response);
      return true;
    }
    verifyAttestation(
      response,
      {
        trustedRoots: new Map([[platform.rootKeyId, platform.rootPublicKey]]),
        allowedMeasurements: new Set([expected.measurement]),
      },
      expected,
    );
    checkTransportAttestation(transport, response);
    return true;
  } catch {
    return false;
  }
}

/** Throws unless the served quote binds the served report and the report this boot. */
function tdxBindingHolds(
  response: AttestationResponse,
  rootKeyId: string,
  expected: { readonly measurement: string; readonly sessionId: string; readonly tlsSpkiSha256: string },
): void {
  const { report } = response;
  assert(response.tdx_quote !== undefined, 'an intel-tdx report carries its quote');
  const quote = parseQuote(Buffer.from(response.tdx_quote, 'base64'));
  assert(report.platform_key_id === rootKeyId, 'the report names the platform root');
  assert(quote.signature === response.signature, 'the served signature is the quote signature');
  assert(
    Buffer.from(quote.reportData).equals(Buffer.from(tdxReportDataOf(report))),
    'the quote binds the report',
  );
  assert(report.measurement === expected.measurement, 'the report attests this build');
  assert(report.session_id === expected.sessionId, 'the report is for this boot');
  assert(report.tls_spki_sha256 === expected.tlsSpkiSha256, 'the report binds this TLS key');
}

type EntryFields = Pick<
  TransparencyEntry,
  'kind' | 'time_ms' | 'session_id' | 'measurement' | 'settlement_signer' | 'governance_slot'
>;

/** Append-only, hash-chained (protocol's transparency hashing), paged for GET /transparency. */
export class TransparencyLog {
  readonly #entries: TransparencyEntry[];

  constructor(history: readonly TransparencyEntry[]) {
    this.#entries = [...history];
  }

  append(fields: EntryFields): TransparencyEntry {
    const index = BigInt(this.#entries.length);
    const prevHash = this.#entries.at(-1)?.entry_hash ?? TRANSPARENCY_ZERO_HASH;
    const payloadDigest = transparencyPayloadDigest(fields);
    const entry: TransparencyEntry = {
      index,
      ...fields,
      payload_digest: payloadDigest,
      prev_hash: prevHash,
      entry_hash: transparencyEntryHash(prevHash, payloadDigest, index),
    };
    this.#entries.push(entry);
    return entry;
  }

  lastOfKind(kind: TransparencyEntry['kind']): TransparencyEntry | undefined {
    return this.#entries.findLast((entry) => entry.kind === kind);
  }

  page(from: bigint, limit: number): TransparencyResponse {
    const start = Number(from > BigInt(this.#entries.length) ? BigInt(this.#entries.length) : from);
    const entries = this.#entries.slice(start, start + limit);
    const next = start + entries.length;
    return {
      size: BigInt(this.#entries.length),
      head_hash: this.#entries.at(-1)?.entry_hash ?? TRANSPARENCY_ZERO_HASH,
      entries,
      ...(next < this.#entries.length ? { next_from: BigInt(next) } : {}),
    };
  }
}

/** PKCS#8 DER prefix of a raw X25519 private key (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/**
 * The public part the report publishes for the sealing key: an X25519 key derived from it, so a
 * verifier can tell two boots sealed under the same key (same code, same platform) apart from a
 * rebuilt one, without the report revealing anything about the key itself.
 */
function sealingPublicKeyOf(sealingKey: Uint8Array): string {
  const scalar = Buffer.from(hkdfSync('sha256', sealingKey, Buffer.alloc(0), 'venue sealing x25519 v1', 32));
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, scalar]),
    format: 'der',
    type: 'pkcs8',
  });
  return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
}
