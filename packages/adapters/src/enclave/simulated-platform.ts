import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { generateTradingKey, signDigest, type TradingKey } from '@venue/protocol';

/**
 * The built-in attestation platform (design decisions section 5): a software root key standing in
 * for a TEE vendor's hardware root. It signs attestation reports; clients trust its public key the
 * way they would trust AWS Nitro's or AMD's root certificate. A real provider plugs in behind the
 * same interface: its `sign` is the hardware's report signature, its key id names its root.
 */
export interface AttestationPlatform {
  readonly platform: 'simulated' | 'aws-nitro' | 'amd-sev-snp' | 'intel-tdx';
  /** Raw Ed25519 public key of the root, hex. */
  readonly rootPublicKey: string;
  /** sha256 of the raw root public key, hex: how a report names its root. */
  readonly rootKeyId: string;
  sign(digest: Uint8Array): string;
  /**
   * The enclave's sealing key for code with this measurement: 32 bytes, the same on every boot of the
   * same code on the same platform, and unknown to any other code (a TEE derives it in hardware from a
   * fused secret and the measurement). The journal, its snapshots and the accounts are sealed under it,
   * so a restart can read them and a modified build cannot.
   */
  sealingKey(measurement: string): Uint8Array;
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
    sign: (digest) => signDigest(root, digest),
  };
}
