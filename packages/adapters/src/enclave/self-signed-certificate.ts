// The Reflect polyfill must load before @peculiar/x509: its dependency injection (tsyringe) reads
// Reflect metadata when the module is evaluated.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * A fresh self-signed TLS certificate and its private key, built in memory. Nothing here touches
 * the disk: the key exists only in this process and dies with the boot (spec section 1 item 9: the
 * engine certificate is self-signed and scoped to one boot).
 *
 * Why @peculiar/x509: it builds X.509 with WebCrypto, which Node ships, so an ECDSA P-256 key never
 * leaves the process and no openssl binary is shelled out to.
 */

export interface SelfSignedCertificate {
  /** DER of the certificate: what fingerprints are computed over. */
  readonly certDer: Uint8Array;
  readonly certPem: string;
  /** PKCS#8 PEM of the private key. Secret: hand it to the TLS server and nowhere else. */
  readonly keyPem: string;
}

export interface SelfSignedCertificateRequest {
  /** DNS names and IP addresses the certificate is valid for (its subjectAltName). */
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

export async function createSelfSignedCertificate(
  request: SelfSignedCertificateRequest,
): Promise<SelfSignedCertificate> {
  // Extractable only so that the TLS stack, which takes PEM, can be given the key.
  const keys = await webcrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify']);
  const names: x509.JsonGeneralName[] = [
    ...request.dnsNames.map((value): x509.JsonGeneralName => ({ type: x509.DNS, value })),
    ...request.ipAddresses.map((value): x509.JsonGeneralName => ({ type: x509.IP, value })),
  ];
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: [{ CN: [request.dnsNames[0] ?? 'localhost'] }, { O: ['venue per-boot identity'] }],
      notBefore: request.notBefore,
      notAfter: request.notAfter,
      signingAlgorithm: ECDSA_SHA256,
      keys,
      extensions: [
        // An end-entity certificate: it can never sign another one.
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto),
      ],
    },
    webcrypto,
  );
  // Buffer.from(ArrayBuffer) shares the memory, so the fill below wipes the only plain DER copy.
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
  pkcs8.fill(0);
  return { certDer: new Uint8Array(cert.rawData), certPem: cert.toString('pem'), keyPem };
}
