import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { generateTradingKey, signDigest, type TradingKey } from '@venue/protocol';

/**
 * The built-in attestation platform (design decisions section 5): a software root key standing in
 * for a TEE vendor's hardware root. It signs attestation reports; clients trust its public key the
 * way they would trust AWS Nitro's or AMD's root certificate. A real provider plugs in behind the
 * same interface: its `attest` is the hardware's evidence over the report, its key id names its root
 * (tdx-platform.ts is one).
 */
export interface AttestationPlatform {
  readonly platform: 'simulated' | 'aws-nitro' | 'amd-sev-snp' | 'intel-tdx';
  /** Simulated: the raw Ed25519 public key of the root, hex. Intel TDX: the root certificate's SPKI DER, hex. */
  readonly rootPublicKey: string;
  /** sha256 of `rootPublicKey`'s bytes, hex: how a report names its root. */
  readonly rootKeyId: string;
  /**
   * The platform's evidence for a report digest (sha256 of the canonical report bytes). Simulated:
   * the root's Ed25519 signature. Intel TDX: a quote whose report data is tdxReportDataOf(report),
   * and its ECDSA signature as `signature` (docs/enclave.md section 9).
   */
  attest(digest: Uint8Array): Promise<PlatformEvidence>;
  /**
   * Asks the hardware again and says whether it still vouches for the evidence served (same TD
   * registers, same report data). Absent on the simulated platform, whose root cannot change.
   */
  recheck?(digest: Uint8Array, served: PlatformEvidence): Promise<boolean>;
  /**
   * The enclave's sealing key for code with this measurement: 32 bytes, the same on every boot of the
   * same code on the same platform, and unknown to any other code (a TEE derives it in hardware from a
   * fused secret and the measurement). The journal, its snapshots and the accounts are sealed under it,
   * so a restart can read them and a modified build cannot.
   */
  sealingKey(measurement: string): Uint8Array;
}

export interface PlatformEvidence {
  /** 64 bytes, hex: what GET /attestation serves as `signature` and the transport attestation names. */
  readonly signature: string;
  /** Intel TDX only: the raw DCAP quote. */
  readonly tdxQuote?: Uint8Array;
}

/**
 * `secret` stands in for the hardware's fused secret. Pass the same one across restarts (an operator
 * keeps it outside the state directory) or the sealed state cannot be opened again; the default is
 * fresh, for venues whose state lives only as long as the process.
 */
export function createSimulatedPlatform(
  root: TradingKey = generateTradingKey(),
  secret: Uint8Array = randomBytes(32),
): AttestationPlatform {
  const fused = Buffer.from(secret);
  return {
    sealingKey: (measurement) =>
      new Uint8Array(
        hkdfSync('sha256', fused, Buffer.from(measurement, 'utf8'), 'venue enclave sealing key v1', 32),
      ),
    platform: 'simulated',
    rootPublicKey: root.publicKey,
    rootKeyId: createHash('sha256').update(Buffer.from(root.publicKey, 'hex')).digest('hex'),
    attest: async (digest) => ({ signature: signDigest(root, digest) }),
  };
}
