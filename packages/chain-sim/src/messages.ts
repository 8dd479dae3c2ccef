import { WITHDRAW_DOMAIN, withdrawBytes } from '@venue/notes';
import {
  GOVERNANCE_DOMAIN,
  LOCK_DOMAIN,
  MERGE_DOMAIN,
  SETTLEMENT_DOMAIN,
  sha256,
  signChainBytes,
  type TradingKey,
} from '@venue/protocol';
import type { WithdrawRequest } from './types.ts';

/**
 * Canonical bytes of every signed chain message (docs/chain-sim.md section 4). The settlement,
 * lock, governance and merge layouts are the chain contract's (packages/protocol/src/chain); the
 * withdraw layout lives in @venue/notes beside spendAuthorityOf and the VALID_SPEND prover (the SDK
 * signs it too). All are re-exported so chain-sim's users keep one import.
 */
export {
  governanceBytes,
  lockBytes,
  mergeBytes,
  settlementBytes,
  settlementTxId,
  signGovernance,
  signLockRequest,
  signMerge,
  signSettlementBatch,
} from '@venue/protocol';
export { withdrawBytes };

export const DOMAINS = {
  settlement: SETTLEMENT_DOMAIN,
  lock: LOCK_DOMAIN,
  governance: GOVERNANCE_DOMAIN,
  withdraw: WITHDRAW_DOMAIN,
  merge: MERGE_DOMAIN,
} as const;

/** sha256 of a message's canonical bytes: what is signed. */
export function digestOf(bytes: Uint8Array): Uint8Array {
  return sha256(bytes);
}

/** Signs the canonical bytes of a message (the helpers above do it for each kind). */
export function signBytes(key: TradingKey, bytes: Uint8Array): string {
  return signChainBytes(key, bytes);
}

export function signWithdraw(request: Omit<WithdrawRequest, 'signature'>, key: TradingKey): WithdrawRequest {
  return { ...request, signature: signBytes(key, withdrawBytes(request)) };
}
