import type { SettlementFailureReason } from '@venue/protocol';

/**
 * Why the simulator refused an action. The settlement reasons are the protocol's own
 * (SETTLEMENT_FAILURE_REASONS), so a lock or withdraw refused because of a lock says `note_locked`
 * exactly as a settlement would; the rest cover requests that are malformed, unknown or unsigned.
 */
export type ChainRejection =
  | SettlementFailureReason
  | 'bad_request' // malformed or out of the simulator's limits
  | 'not_found' // no such note, shard, market, oracle or transaction
  | 'unauthorized' // signature or key does not authorise the action
  | 'conflict'; // the request contradicts the current state (duplicate leaf, governance sequence)

/** JSON-RPC error code of each rejection (application codes, -32000 and below). */
export const REJECTION_CODES: Readonly<Record<ChainRejection, number>> = {
  bad_request: -32001,
  not_found: -32002,
  unauthorized: -32003,
  conflict: -32004,
  root_expired: -32010,
  note_consumed: -32011,
  note_locked: -32012,
  lock_expired: -32013,
  lock_reverted: -32014,
  signer_rejected: -32015,
  confirmation_timeout: -32016,
  chain_rejected: -32017,
};

/** An operating error of a chain action: the caller did something the chain refuses. */
export class ChainError extends Error {
  constructor(
    readonly reason: ChainRejection,
    message: string,
  ) {
    super(message);
    this.name = 'ChainError';
  }
}

export function reject(reason: ChainRejection, message: string): never {
  throw new ChainError(reason, message);
}
