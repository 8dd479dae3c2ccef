// The Reflect polyfill must load before @peculiar/x509 (its dependency injection reads it at load).
import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import { X509Crl } from '@peculiar/x509';
import type { Collateral } from '@phala/dcap-qvl';
import { AttestationError } from '../errors.ts';

/**
 * Checks the DCAP library leaves out (docs/enclave.md section 9). It reads the serial numbers off the CRLs but neither checks
 * who signed them nor when they expire, and it skips a CRL it cannot parse. Without these checks a
 * stale or forged CRL, one that omits a revoked PCK certificate, would pass. So before the library
 * runs, each CRL must parse, be signed by its issuer (the root CA CRL by the pinned root, the PCK
 * CRL by the first certificate of `pck_crl_issuer_chain`, which itself must chain to the root), and
 * be current at the verification time.
 */
export async function checkCollateralCrls(
  collateral: Collateral,
  root: X509Certificate,
  now: Date,
): Promise<void> {
  const rootCrl = parseCrl(collateral.root_ca_crl, 'root_ca_crl');
  const pckCrl = parseCrl(collateral.pck_crl, 'pck_crl');
  const pckCrlIssuer = checkIssuerChain(collateral.pck_crl_issuer_chain, root, now);
  // The library checks each chain's signatures up to the pinned key but not that the root
  // certificate the chain carries is the pinned one; a changed copy must not go unnoticed.
  chainEndingAtRoot(collateral.tcb_info_issuer_chain, root, 'tcb_info_issuer_chain', 'malformed_collateral');
  chainEndingAtRoot(
    collateral.qe_identity_issuer_chain,
    root,
    'qe_identity_issuer_chain',
    'malformed_collateral',
  );
  await checkCrl(rootCrl, root, now, 'root_ca_crl');
  await checkCrl(pckCrl, pckCrlIssuer, now, 'pck_crl');
}

function parseCrl(value: Collateral['root_ca_crl'], name: string): X509Crl {
  const der = typeof value === 'string' ? Buffer.from(value, 'hex') : Buffer.from(value);
  try {
    return new X509Crl(der);
  } catch (error) {
    throw new AttestationError('malformed_collateral', `${name} is not a DER CRL`, { cause: error });
  }
}

async function checkCrl(crl: X509Crl, issuer: X509Certificate, now: Date, name: string): Promise<void> {
  const publicKey = await crypto.subtle.importKey(
    'spki',
    issuer.publicKey.export({ type: 'spki', format: 'der' }),
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['verify'],
  );
  if (!(await crl.verify({ publicKey }))) {
    throw new AttestationError('collateral_signature', `${name} is not signed by ${commonName(issuer)}`);
  }
  if (crl.thisUpdate > now || crl.nextUpdate === undefined || crl.nextUpdate < now) {
    throw new AttestationError(
      'collateral_expired',
      `${name} is valid from ${crl.thisUpdate.toISOString()} to ${crl.nextUpdate?.toISOString() ?? '(no next update)'}, not at ${now.toISOString()}`,
    );
  }
}

/**
 * The library matches serial numbers on every CRL it is given; only the CRL of the CA that issued
 * the quote's PCK certificate can say whether that certificate was revoked. Run after the library
 * has verified the quote's chain, so a damaged CA certificate in the quote is named as such.
 */
export function checkPckCrlIssuer(
  collateral: Collateral,
  root: X509Certificate,
  pckIssuer: X509Certificate,
): void {
  const [pckCrlIssuer] = chainEndingAtRoot(
    collateral.pck_crl_issuer_chain,
    root,
    'pck_crl_issuer_chain',
    'malformed_collateral',
  );
  if (pckCrlIssuer === undefined || !pckCrlIssuer.raw.equals(pckIssuer.raw)) {
    throw new AttestationError(
      'collateral_mismatch',
      `pck_crl is issued by ${pckCrlIssuer === undefined ? 'nobody' : commonName(pckCrlIssuer)}, but the quote's PCK certificate by ${commonName(pckIssuer)}`,
    );
  }
}

/**
 * The certificates of a PEM chain, which must parse, the last one being the pinned root byte for
 * byte. The block pattern is as strict as the library's, so a block it would skip is not counted
 * here either: a chain whose root copy was damaged ends at the wrong certificate and is refused.
 */
export function chainEndingAtRoot(
  pem: string | Uint8Array,
  root: X509Certificate,
  name: string,
  malformed: 'malformed_quote' | 'malformed_collateral',
): X509Certificate[] {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  let chain: X509Certificate[];
  try {
    chain = (text.match(PEM_BLOCK) ?? []).map((block) => new X509Certificate(block));
  } catch (error) {
    throw new AttestationError(malformed, `${name} holds a certificate that does not parse`, {
      cause: error,
    });
  }
  if (chain.length < 2 || !chain.at(-1)?.raw.equals(root.raw)) {
    throw new AttestationError('certificate_chain', `${name} does not end with the pinned root certificate`);
  }
  return chain;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n?[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/g;

/** The PCK CRL's signer: each certificate signed by the next, the last one the pinned root itself. */
function checkIssuerChain(pem: string, root: X509Certificate, now: Date): X509Certificate {
  const chain = chainEndingAtRoot(pem, root, 'pck_crl_issuer_chain', 'malformed_collateral');
  const signer = chain[0] as X509Certificate;
  for (const [index, certificate] of chain.entries()) {
    const issuer = chain[index + 1] ?? root;
    if (!certificate.checkIssued(issuer) || !certificate.verify(issuer.publicKey)) {
      throw new AttestationError(
        'certificate_chain',
        `pck_crl_issuer_chain: ${commonName(certificate)} is not signed by the next certificate`,
      );
    }
    if (new Date(certificate.validFrom) > now || new Date(certificate.validTo) < now) {
      throw new AttestationError(
        'certificate_expired',
        `pck_crl_issuer_chain: a certificate is not valid at ${now.toISOString()}`,
      );
    }
  }
  return signer;
}

function commonName(certificate: X509Certificate): string {
  return /CN=([^\n]+)/.exec(certificate.subject)?.[1] ?? certificate.subject;
}
