import { CHAIN_REJECTION_CODES, ChainError, type ChainRejection } from '@venue/protocol';

/**
 * The chain's rejections are part of its contract (packages/protocol/src/chain/errors.ts); the
 * simulator raises them through `reject`. Re-exported under the names the simulator always had.
 */
export { ChainError, type ChainRejection };
export const REJECTION_CODES = CHAIN_REJECTION_CODES;

export function reject(reason: ChainRejection, message: string): never {
  throw new ChainError(reason, message);
}
