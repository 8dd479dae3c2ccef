import { createHash, createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { assert } from '@venue/protocol';
import { CERT_BACKDATE_MS, CERT_VALIDITY_MS, SESSION_ID_BYTES } from '../config/limits.ts';
import { createSelfSignedCertificate } from './self-signed-certificate.ts';

/**
 * What one boot of the venue is: a random session id that clients sign into every order and cancel
 * (spec 2.1 `session_id`, 2.4), and a TLS certificate that exists for this boot only (spec section 1
 * item 9). Both are fresh on every start, so a restart invalidates signatures made for the previous
 * boot and a client pinned to the previous certificate refuses to talk to the new one until it has
 * checked the new attestation.
 *
 * The attestation report (decisions section 5) will bind `sessionId` and `spkiSha256`; clients pin
 * `certSha256` or `spkiSha256` after verifying it.
 */
export class BootIdentity {
  /** 64 lowercase hex characters (32 random bytes). */
  readonly sessionId: string;
  /** Unix milliseconds of the boot, as GET /info reports it. */
  readonly bootTimeMs: number;
  /** PEM of the public certificate: safe to publish, write to a file, or print. */
  readonly certPem: string;
  /** SHA-256 of the certificate's DER, lowercase hex: the fingerprint clients pin. */
  readonly certSha256: string;
  /** SHA-256 of the certificate's SubjectPublicKeyInfo DER, lowercase hex (survives re-issuance). */
  readonly spkiSha256: string;
  readonly notAfter: Date;
  /** Private: a class field with # is invisible to JSON.stringify, util.inspect and loggers. */
  readonly #keyPem: string;

  constructor(fields: {
    sessionId: string;
    bootTimeMs: number;
    certPem: string;
    certDer: Uint8Array;
    keyPem: string;
  }) {
    assert(/^[0-9a-f]{64}$/.test(fields.sessionId), 'sessionId must be 64 lowercase hex characters');
    const parsed = new X509Certificate(fields.certPem);
    assert(parsed.checkPrivateKey(createPrivateKey(fields.keyPem)), 'key does not match certificate');
    this.sessionId = fields.sessionId;
    this.bootTimeMs = fields.bootTimeMs;
    this.certPem = fields.certPem;
    this.certSha256 = sha256Hex(fields.certDer);
    this.spkiSha256 = sha256Hex(parsed.publicKey.export({ type: 'spki', format: 'der' }));
    this.notAfter = new Date(parsed.validTo);
    this.#keyPem = fields.keyPem;
  }

  /** Key and certificate for the HTTPS server. The only way the private key leaves this object. */
  tlsCredentials(): { key: string; cert: string } {
    return { key: this.#keyPem, cert: this.certPem };
  }
}

export interface BootIdentityOptions {
  /** Wall clock of the boot; injectable so tests can pin the validity window. */
  nowMs?: number;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

/** Loopback names only: the dev venue is reached as 127.0.0.1, ::1 or localhost. */
const DEFAULT_DNS_NAMES = ['localhost'] as const;
const DEFAULT_IP_ADDRESSES = ['127.0.0.1', '::1'] as const;

export async function createBootIdentity(options: BootIdentityOptions = {}): Promise<BootIdentity> {
  const bootTimeMs = options.nowMs ?? Date.now();
  const cert = await createSelfSignedCertificate({
    dnsNames: options.dnsNames ?? DEFAULT_DNS_NAMES,
    ipAddresses: options.ipAddresses ?? DEFAULT_IP_ADDRESSES,
    notBefore: new Date(bootTimeMs - CERT_BACKDATE_MS),
    notAfter: new Date(bootTimeMs + CERT_VALIDITY_MS),
  });
  return new BootIdentity({
    sessionId: randomBytes(SESSION_ID_BYTES).toString('hex'),
    bootTimeMs,
    ...cert,
  });
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
