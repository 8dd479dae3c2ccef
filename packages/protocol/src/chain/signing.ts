import { sha256 } from '../canonical/bodies.ts';
import { signDigest, type TradingKey } from '../crypto/ed25519.ts';
import { BYTES } from '../limits.ts';
import type { GovernanceValues } from './accounts.ts';
import { ByteWriter } from './byte-writer.ts';
import type { GovernanceRequest, LockRequest, MergeRequest } from './requests.ts';

/**
 * Canonical bytes of the chain's lock, governance and merge messages (docs/chain-sim.md section
 * 4); the settlement batch's are in settlement.ts, the withdraw's in @venue/notes beside the spend
 * authority that signs it. Each is signed as Ed25519 over sha256 of these bytes, like the
 * protocol's own bodies.
 */

export const LOCK_DOMAIN = 'venue-chain-lock-v1';
export const GOVERNANCE_DOMAIN = 'venue-chain-governance-v1';
export const MERGE_DOMAIN = 'venue-chain-merge-v2';

export function lockBytes(request: Omit<LockRequest, 'signature'>): Uint8Array {
  const w = new ByteWriter(LOCK_DOMAIN).ascii(request.market_id).u32(request.locks.length);
  for (const lock of request.locks) w.hex(lock.note_use_tag, 32).u64(lock.expiry_slot);
  return w.hex(request.signer, 32).bytes();
}

export function governanceBytes(values: GovernanceValues & { readonly sequence: bigint }): Uint8Array {
  return new ByteWriter(GOVERNANCE_DOMAIN)
    .u64(values.sequence)
    .hex(values.measurement, 32)
    .hex(values.settlement_signer, 32)
    .bytes();
}

/**
 * Merge v2 (no openings): input count u32, each input's tree_id u8, commitment and note_use_tag;
 * the output's tree_id u8 and commitment; the 256-byte proof.
 */
export function mergeBytes(request: Omit<MergeRequest, 'signature'>): Uint8Array {
  const w = new ByteWriter(MERGE_DOMAIN).u32(request.inputs.length);
  for (const input of request.inputs)
    w.u8(input.tree_id).hex(input.commitment, 32).hex(input.note_use_tag, 32);
  return w
    .u8(request.output.tree_id)
    .hex(request.output.commitment, 32)
    .hex(request.proof, BYTES.proof)
    .bytes();
}

/** Signs canonical bytes: Ed25519 over their sha256. */
export function signChainBytes(key: TradingKey, bytes: Uint8Array): string {
  return signDigest(key, sha256(bytes));
}

export function signLockRequest(request: Omit<LockRequest, 'signature'>, key: TradingKey): LockRequest {
  return { ...request, signature: signChainBytes(key, lockBytes(request)) };
}

export function signMerge(request: Omit<MergeRequest, 'signature'>, key: TradingKey): MergeRequest {
  return { ...request, signature: signChainBytes(key, mergeBytes(request)) };
}

export function signGovernance(
  values: GovernanceValues & { readonly sequence: bigint },
  key: TradingKey,
): GovernanceRequest {
  return { ...values, signature: signChainBytes(key, governanceBytes(values)) };
}
