// The Reflect polyfill must load before @peculiar/x509 (its dependency injection reads it at load).
import 'reflect-metadata';
import { createHash, KeyObject, randomBytes, sign, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * A complete DCAP public-key infrastructure built for tests, laid out like Intel's: a root CA, a
 * PCK platform CA under it, a PCK certificate for one platform (with Intel's SGX extension: FMSPC,
 * CPUSVN, PCESVN), a TCB signing certificate, both CRLs, and TCB info and TD QE identity signed as
 * a PCCS serves them. Real certificates, real ECDSA P-256 signatures: the SDK verifies quotes built
 * on it (tdx-test-quote.ts) with the same code as Intel-rooted ones, given this root instead of
 * Intel's. What Intel's public data cannot show (an expired or revoked PCK certificate, a refused
 * TCB status) is one option away here.
 */
export interface DcapTestPkiOptions {
  /** The verification time the collateral is built around (valid a day before to 29 days after). */
  readonly nowMs: number;
  /** TCB status of the platform's one TCB level; default UpToDate. */
  readonly tcbStatus?: string;
  /** The PCK certificate's validity; default the root's. */
  readonly pckNotAfter?: Date;
  /** List the PCK certificate on the PCK CRL. */
  readonly revokePck?: boolean;
}

export interface DcapTestPki {
  readonly rootCertificatePem: string;
  /** The collateral in the PCCS JSON shape (what `getCollateral` returns). */
  readonly collateral: DcapCollateral;
  /** PEM chain the quote carries: PCK certificate, PCK platform CA, root. */
  readonly pckChainPem: string;
  /** Signs a QE report (384 bytes) as the PCK key: r || s. */
  signQeReport(report: Uint8Array): Uint8Array;
  readonly qe: { readonly mrSigner: Uint8Array; readonly isvProdId: number; readonly isvSvn: number };
  readonly platform: { readonly cpuSvn: Uint8Array; readonly pceSvn: number; readonly teeTcbSvn: Uint8Array };
}

export interface DcapCollateral {
  readonly pck_crl_issuer_chain: string;
  readonly root_ca_crl: string;
  readonly pck_crl: string;
  readonly tcb_info_issuer_chain: string;
  readonly tcb_info: string;
  readonly tcb_info_signature: string;
  readonly qe_identity_issuer_chain: string;
  readonly qe_identity: string;
  readonly qe_identity_signature: string;
}

type KeyPair = webcrypto.CryptoKeyPair;

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const FMSPC = '00806f050000';
const SGX_EXTENSION_OID = '1.2.840.113741.1.13.1';

export async function createDcapTestPki(options: DcapTestPkiOptions): Promise<DcapTestPki> {
  const now = options.nowMs;
  const validity = { notBefore: new Date(now - 365 * DAY_MS), notAfter: new Date(now + 3650 * DAY_MS) };
  const rootKeys = await keyPair();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Venue Test SGX Root CA, O=Venue tests',
    keys: rootKeys,
    signingAlgorithm: ECDSA_SHA256,
    serialNumber: '01',
    ...validity,
    extensions: [new x509.BasicConstraintsExtension(true, 1, true)],
  });
  const platformCaKeys = await keyPair();
  const platformCa = await issue(
    root,
    rootKeys,
    platformCaKeys,
    'CN=Venue Test SGX PCK Platform CA',
    '02',
    validity,
    [new x509.BasicConstraintsExtension(true, 0, true)],
  );
  const tcbSignerKeys = await keyPair();
  const tcbSigner = await issue(
    root,
    rootKeys,
    tcbSignerKeys,
    'CN=Venue Test SGX TCB Signing',
    '03',
    validity,
    [],
  );
  const cpuSvn = Uint8Array.from([3, 3, 2, 2, 4, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
  const pceSvn = 13;
  const teeTcbSvn = Uint8Array.from([5, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const pckKeys = await keyPair();
  const pck = await issue(
    platformCa,
    platformCaKeys,
    pckKeys,
    'CN=Venue Test SGX PCK Certificate',
    '0a0b0c',
    { notBefore: validity.notBefore, notAfter: options.pckNotAfter ?? validity.notAfter },
    [new x509.Extension(SGX_EXTENSION_OID, false, sgxExtension(cpuSvn, pceSvn))],
  );
  const crlWindow = { thisUpdate: new Date(now - DAY_MS), nextUpdate: new Date(now + 29 * DAY_MS) };
  const rootCrl = await x509.X509CrlGenerator.create({
    issuer: root.subject,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: ECDSA_SHA256,
    ...crlWindow,
    entries: [],
  });
  const pckCrl = await x509.X509CrlGenerator.create({
    issuer: platformCa.subject,
    signingKey: platformCaKeys.privateKey,
    signingAlgorithm: ECDSA_SHA256,
    ...crlWindow,
    entries:
      options.revokePck === true
        ? [{ serialNumber: pck.serialNumber, revocationDate: new Date(now - DAY_MS) }]
        : [],
  });
  const qe = { mrSigner: new Uint8Array(randomBytes(32)), isvProdId: 2, isvSvn: 4 };
  const dates = { issueDate: iso(now - DAY_MS), nextUpdate: iso(now + 29 * DAY_MS) };
  const tcbInfo = JSON.stringify({
    id: 'TDX',
    version: 3,
    ...dates,
    fmspc: FMSPC,
    pceId: '0000',
    tcbType: 0,
    tcbEvaluationDataNumber: 17,
    tcbLevels: [
      {
        tcb: {
          sgxtcbcomponents: [...cpuSvn].map((svn) => ({ svn })),
          pcesvn: pceSvn,
          tdxtcbcomponents: [...teeTcbSvn].map((svn) => ({ svn })),
        },
        tcbDate: iso(now - 30 * DAY_MS),
        tcbStatus: options.tcbStatus ?? 'UpToDate',
        ...(options.tcbStatus === undefined || options.tcbStatus === 'UpToDate'
          ? {}
          : { advisoryIDs: ['INTEL-SA-00000'] }),
      },
    ],
  });
  const qeIdentity = JSON.stringify({
    id: 'TD_QE',
    version: 2,
    ...dates,
    tcbEvaluationDataNumber: 17,
    miscselect: '00000000',
    miscselectMask: 'FFFFFFFF',
    attributes: '11000000000000000000000000000000',
    attributesMask: 'FBFFFFFFFFFFFFFF0000000000000000',
    mrsigner: Buffer.from(qe.mrSigner).toString('hex').toUpperCase(),
    isvprodid: qe.isvProdId,
    tcbLevels: [{ tcb: { isvsvn: qe.isvSvn }, tcbDate: iso(now - 30 * DAY_MS), tcbStatus: 'UpToDate' }],
  });
  const tcbKey = KeyObject.from(tcbSignerKeys.privateKey);
  const pckKey = KeyObject.from(pckKeys.privateKey);
  const p1363 = (data: Uint8Array, key: KeyObject) =>
    new Uint8Array(sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }));
  const rootPem = root.toString('pem');
  const chainOf = (...certs: x509.X509Certificate[]) => `${certs.map((c) => c.toString('pem')).join('\n')}\n`;
  return {
    rootCertificatePem: rootPem,
    pckChainPem: chainOf(pck, platformCa, root),
    collateral: {
      pck_crl_issuer_chain: chainOf(platformCa, root),
      root_ca_crl: Buffer.from(rootCrl.rawData).toString('hex'),
      pck_crl: Buffer.from(pckCrl.rawData).toString('hex'),
      tcb_info_issuer_chain: chainOf(tcbSigner, root),
      tcb_info: tcbInfo,
      tcb_info_signature: Buffer.from(p1363(Buffer.from(tcbInfo), tcbKey)).toString('hex'),
      qe_identity_issuer_chain: chainOf(tcbSigner, root),
      qe_identity: qeIdentity,
      qe_identity_signature: Buffer.from(p1363(Buffer.from(qeIdentity), tcbKey)).toString('hex'),
    },
    signQeReport: (report) => p1363(report, pckKey),
    qe,
    platform: { cpuSvn, pceSvn, teeTcbSvn },
  };
}

async function keyPair(): Promise<KeyPair> {
  return (await webcrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify'])) as KeyPair;
}

async function issue(
  issuer: x509.X509Certificate,
  issuerKeys: KeyPair,
  keys: KeyPair,
  subject: string,
  serialNumber: string,
  validity: { notBefore: Date; notAfter: Date },
  extensions: x509.Extension[],
): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create({
    subject: `${subject}, O=Venue tests`,
    issuer: issuer.subject,
    publicKey: keys.publicKey,
    signingKey: issuerKeys.privateKey,
    signingAlgorithm: ECDSA_SHA256,
    serialNumber,
    ...validity,
    extensions,
  });
}

function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

// Intel's SGX extension of a PCK certificate, DER by hand: a SEQUENCE of (OID, value) pairs.
const oid = (dotted: string) => tlv(0x06, oidBody(dotted));
const pair = (dotted: string, value: Uint8Array) => tlv(0x30, concat(oid(dotted), value));
const int = (value: number) => tlv(0x02, value < 0x80 ? Uint8Array.of(value) : Uint8Array.of(0, value));

function sgxExtension(cpuSvn: Uint8Array, pceSvn: number): Uint8Array {
  const tcb = [...cpuSvn].map((svn, index) => pair(`${SGX_EXTENSION_OID}.2.${index + 1}`, int(svn)));
  tcb.push(pair(`${SGX_EXTENSION_OID}.2.17`, int(pceSvn)));
  tcb.push(pair(`${SGX_EXTENSION_OID}.2.18`, tlv(0x04, cpuSvn)));
  const ppid = createHash('sha256').update('venue test platform').digest().subarray(0, 16);
  return tlv(
    0x30,
    concat(
      pair(`${SGX_EXTENSION_OID}.1`, tlv(0x04, ppid)),
      pair(`${SGX_EXTENSION_OID}.2`, tlv(0x30, concat(...tcb))),
      pair(`${SGX_EXTENSION_OID}.3`, tlv(0x04, Uint8Array.of(0, 0))),
      pair(`${SGX_EXTENSION_OID}.4`, tlv(0x04, Buffer.from(FMSPC, 'hex'))),
      pair(`${SGX_EXTENSION_OID}.5`, tlv(0x0a, Uint8Array.of(0))),
    ),
  );
}

function tlv(tag: number, body: Uint8Array): Uint8Array {
  const length =
    body.length < 0x80
      ? Uint8Array.of(body.length)
      : body.length < 0x100
        ? Uint8Array.of(0x81, body.length)
        : Uint8Array.of(0x82, body.length >> 8, body.length & 0xff);
  return concat(Uint8Array.of(tag), length, body);
}

function oidBody(dotted: string): Uint8Array {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const groups = [arc & 0x7f];
    for (let value = arc >>> 7; value > 0; value >>>= 7) groups.unshift((value & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return Uint8Array.from(bytes);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
