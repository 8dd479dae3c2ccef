import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import type { DcapTestPki } from './dcap-test-pki.ts';

/**
 * A version 4 TDX quote built for a test, byte for byte in the layout a TD's quoting enclave
 * produces: 48-byte header, 584-byte TD report (the registers and the 64-byte report data), then the
 * auth data: the attestation key's ECDSA signature over header and report, the key, and the QE
 * report certification data (type 6) holding the QE report signed by the PCK key, the QE auth data
 * and the PCK chain (type 5). Signed under a DcapTestPki, it verifies like a real quote.
 */
export interface TdRegisters {
  readonly mrtd: string;
  readonly rtmr0: string;
  readonly rtmr1: string;
  readonly rtmr2: string;
  readonly rtmr3: string;
}

/** Registers of "the test TD build": what a release would publish and a client allow-list. */
export const TEST_TD_REGISTERS: TdRegisters = {
  mrtd: '1d'.repeat(48),
  rtmr0: 'a0'.repeat(48),
  rtmr1: 'a1'.repeat(48),
  rtmr2: 'a2'.repeat(48),
  rtmr3: '00'.repeat(48),
};

const TEE_TYPE_TDX = 0x81;
/** TUD clear (no debug), SEPT_VE_DISABLE set: what a production TD runs with. */
const TD_ATTRIBUTES = Buffer.from('0000001000000000', 'hex');
const XFAM = Buffer.from('e702060000000000', 'hex');
const QE_ATTRIBUTES = Buffer.from('11000000000000000000000000000000', 'hex');

export function buildTdxQuote(
  pki: DcapTestPki,
  reportData: Uint8Array,
  registers: TdRegisters = TEST_TD_REGISTERS,
): Uint8Array {
  if (reportData.length !== 64) throw new Error('report data is 64 bytes');
  const header = Buffer.alloc(48);
  header.writeUInt16LE(4, 0);
  header.writeUInt16LE(2, 2); // ECDSA P-256 attestation key
  header.writeUInt32LE(TEE_TYPE_TDX, 4);
  Buffer.from('939a7233f79c4ca9940a0db3957f0607', 'hex').copy(header, 12); // Intel's QE vendor id
  const report = Buffer.concat([
    pki.platform.teeTcbSvn,
    Buffer.alloc(48, 0x5b), // MRSEAM
    Buffer.alloc(48), // MRSIGNERSEAM
    Buffer.alloc(8), // SEAMATTRIBUTES
    TD_ATTRIBUTES,
    XFAM,
    hex48(registers.mrtd),
    Buffer.alloc(48 * 3), // MRCONFIGID, MROWNER, MROWNERCONFIG
    hex48(registers.rtmr0),
    hex48(registers.rtmr1),
    hex48(registers.rtmr2),
    hex48(registers.rtmr3),
    reportData,
  ]);
  const attestationKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rawKey = attestationKey.publicKey.export({ format: 'der', type: 'spki' }).subarray(-64);
  const signature = sign('sha256', Buffer.concat([header, report]), {
    key: attestationKey.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  const qeAuthData = Buffer.alloc(32, 0x0f);
  const qeReport = enclaveReport(pki, createHash('sha256').update(rawKey).update(qeAuthData).digest());
  const chain = Buffer.from(pki.pckChainPem, 'latin1');
  const qeCertificationData = Buffer.concat([
    qeReport,
    pki.signQeReport(qeReport),
    u16(qeAuthData.length),
    qeAuthData,
    u16(5),
    u32(chain.length),
    chain,
  ]);
  const authData = Buffer.concat([
    signature,
    rawKey,
    u16(6),
    u32(qeCertificationData.length),
    qeCertificationData,
  ]);
  return new Uint8Array(Buffer.concat([header, report, u32(authData.length), authData]));
}

/** The QE's own SGX report: the identity the QE identity collateral describes, binding the key. */
function enclaveReport(pki: DcapTestPki, keyHash: Uint8Array): Buffer {
  const report = Buffer.alloc(384);
  Buffer.from(pki.platform.cpuSvn).copy(report, 0);
  QE_ATTRIBUTES.copy(report, 48);
  Buffer.from(pki.qe.mrSigner).copy(report, 128);
  report.writeUInt16LE(pki.qe.isvProdId, 256);
  report.writeUInt16LE(pki.qe.isvSvn, 258);
  Buffer.from(keyHash).copy(report, 320);
  return report;
}

function hex48(value: string): Buffer {
  const bytes = Buffer.from(value, 'hex');
  if (bytes.length !== 48) throw new Error('a TD register is 48 bytes (96 hex characters)');
  return bytes;
}

const u16 = (value: number) => {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16LE(value);
  return bytes;
};
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
};
