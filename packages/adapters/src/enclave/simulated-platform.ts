import { createHash } from 'node:crypto';
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
}

export function createSimulatedPlatform(root: TradingKey = generateTradingKey()): AttestationPlatform {
  return {
    platform: 'simulated',
    rootPublicKey: root.publicKey,
    rootKeyId: createHash('sha256').update(Buffer.from(root.publicKey, 'hex')).digest('hex'),
    sign: (digest) => signDigest(root, digest),
  };
}
