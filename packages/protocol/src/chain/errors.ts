import { SETTLEMENT_FAILURE_REASONS } from '../schema/account.ts';

/**
 * Why the chain refused an action. The settlement reasons are the protocol's own
 * (SETTLEMENT_FAILURE_REASONS), so a lock or withdraw refused because of a lock says `note_locked`
 * exactly as a settlement would; the rest cover requests that are malformed, unknown or unsigned.
 */
export const CHAIN_REJECTIONS = [
  'bad_request', // malformed or out of the chain's limits
  'not_found', // no such note, shard, market, oracle or transaction
  'unauthorized', // signature or key does not authorise the action
  'conflict', // the request contradicts the current state (duplicate leaf, governance sequence)
  ...SETTLEMENT_FAILURE_REASONS,
] as const;
export type ChainRejection = (typeof CHAIN_REJECTIONS)[number];

/** JSON-RPC error code of each rejection (application codes, -32000 and below). */
export const CHAIN_REJECTION_CODES: Readonly<Record<ChainRejection, number>> = {
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
  proof_invalid: -32018,
};

/** JSON-RPC codes of failures that are not chain rejections. */
export const CHAIN_RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internal: -32603,
  /** A protocol error (VenueError) raised by a read in the protocol's shapes. */
  venue: -32020,
} as const;

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
