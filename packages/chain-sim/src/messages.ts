import { WITHDRAW_DOMAIN, withdrawBytes } from '@venue/notes';
import { sha256, signDigest, type TradingKey } from '@venue/protocol';
import { ByteWriter } from './bytes.ts';
import type {
  GovernanceValues,
  LockRequest,
  MergeRequest,
  NoteSpend,
  UnsignedSettlementBatch,
  WithdrawRequest,
} from './types.ts';

/**
 * Canonical bytes of every signed chain message (docs/chain-sim.md section 4). Each is signed as
 * Ed25519 over sha256 of these bytes, like the protocol's own bodies.
 */

export const DOMAINS = {
  settlement: 'venue-chain-settlement-v1',
  lock: 'venue-chain-lock-v1',
  governance: 'venue-chain-governance-v1',
  withdraw: WITHDRAW_DOMAIN,
  merge: 'venue-chain-merge-v1',
} as const;

export function settlementBytes(batch: UnsignedSettlementBatch): Uint8Array {
  const w = new ByteWriter(DOMAINS.settlement)
    .ascii(batch.market_id)
    .u64(batch.batch_seq)
    .u64(batch.deadline_slot)
    .u32(batch.match_count)
    .u32(batch.legs.length);
  for (const { input, outputs } of batch.legs) {
    w.u8(input.tree_id).hex(input.note_commitment, 32).hex(input.note_use_tag, 32);
    w.hex(input.merkle_root, 32).u64(input.value).u8(outputs.length);
    for (const output of outputs) {
      w.u8(output.tree_id).hex(output.commitment, 32).hex(output.owner_commitment, 32);
      w.hex(output.asset_id, 32).hex(output.blinding, 32).u64(output.value);
    }
  }
  return w.hexVar(batch.proof).hex(batch.signer, 32).bytes();
}

export function lockBytes(request: Omit<LockRequest, 'signature'>): Uint8Array {
  const w = new ByteWriter(DOMAINS.lock).ascii(request.market_id).u32(request.locks.length);
  for (const lock of request.locks) w.hex(lock.note_use_tag, 32).u64(lock.expiry_slot);
  return w.hex(request.signer, 32).bytes();
}

export function governanceBytes(values: GovernanceValues & { sequence: bigint }): Uint8Array {
  return new ByteWriter(DOMAINS.governance)
    .u64(values.sequence)
    .hex(values.measurement, 32)
    .hex(values.settlement_signer, 32)
    .bytes();
}

function spend(w: ByteWriter, note: NoteSpend): ByteWriter {
  return w
    .u8(note.tree_id)
    .hex(note.commitment, 32)
    .hex(note.owner_commitment, 32)
    .hex(note.note_inner_hash, 32)
    .u64(note.value);
}

// The withdraw layout is what a note's spend authority signs, so it lives in @venue/notes beside
// spendAuthorityOf (the SDK signs it too); re-exported so chain-sim's users keep one import.
export { withdrawBytes };

export function mergeBytes(request: Omit<MergeRequest, 'signature'>): Uint8Array {
  const w = new ByteWriter(DOMAINS.merge).u32(request.inputs.length);
  for (const input of request.inputs) spend(w, input);
  return w.u8(request.output.tree_id).hex(request.output.blinding, 32).bytes();
}

/** sha256 of a message's canonical bytes: what is signed. */
export function digestOf(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}

/** Signs the canonical bytes of a message (the helpers below do it for each kind). */
export function signBytes(key: TradingKey, bytes: Uint8Array): string {
  return signDigest(key, digestOf(bytes));
}

/** The transaction id of a signed batch: sha256(digest || signature). Same batch, same id. */
export function settlementTxId(batch: UnsignedSettlementBatch & { signature: string }): string {
  const digest = digestOf(settlementBytes(batch));
  return Buffer.from(sha256(Buffer.concat([digest, Buffer.from(batch.signature, 'hex')]))).toString('hex');
}

export function signSettlementBatch(batch: UnsignedSettlementBatch, key: TradingKey) {
  return { ...batch, signature: signBytes(key, settlementBytes(batch)) };
}

export function signLockRequest(request: Omit<LockRequest, 'signature'>, key: TradingKey): LockRequest {
  return { ...request, signature: signBytes(key, lockBytes(request)) };
}

export function signWithdraw(request: Omit<WithdrawRequest, 'signature'>, key: TradingKey): WithdrawRequest {
  return { ...request, signature: signBytes(key, withdrawBytes(request)) };
}

export function signMerge(request: Omit<MergeRequest, 'signature'>, key: TradingKey): MergeRequest {
  return { ...request, signature: signBytes(key, mergeBytes(request)) };
}

export function signGovernance(values: GovernanceValues & { sequence: bigint }, key: TradingKey) {
  return { ...values, signature: signBytes(key, governanceBytes(values)) };
}
