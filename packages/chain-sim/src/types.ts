import type { SettlementFailureReason } from '@venue/protocol';

/**
 * The simulator's accounts and requests. Wire conventions follow the protocol: 32-byte values are
 * 64 lowercase hex characters (field elements big-endian, below the BN254 modulus), addresses are
 * base58, amounts, slots and sequence numbers are bigint (u64), tree_id is a number (u8).
 */

export type Hex32 = string;
export type Hex64 = string;
export type Address = string;

export type ConfirmationLevel = 'processed' | 'confirmed' | 'finalized';

export interface SlotInfo {
  readonly slot: bigint;
  /** Newest slot whose effects are confirmed (slot - confirmation depth). */
  readonly confirmed_slot: bigint;
  /** Newest slot whose effects are final and can no longer be rolled back. */
  readonly finalized_slot: bigint;
}

/** One entry of a shard's recent-root window: the root after a transaction that touched the shard. */
export interface RootEntry {
  readonly root: Hex32;
  /** Leaves under this root (a note is under it when its leaf index is below). */
  readonly leaf_count: bigint;
  readonly slot: bigint;
}

/** The market configuration account (spec 1 item 1: mints, tick, scales, oracle). */
export interface MarketAccount {
  readonly market_id: Address;
  readonly symbol: string;
  readonly base_mint: Address;
  readonly quote_mint: Address;
  readonly tick_size: bigint;
  readonly min_size: bigint;
  readonly price_scale: bigint;
  readonly oracle: Address;
  /** batch_seq the next settlement of this market must carry (gapless over settled batches). */
  readonly next_batch_seq: bigint;
}

export type MarketParams = Omit<MarketAccount, 'market_id' | 'next_batch_seq'> & {
  /** Address of the account; derived from the symbol when absent. */
  readonly market_id?: Address;
};

export interface OracleAccount {
  readonly address: Address;
  /** Quote units per base unit times the market's price_scale. */
  readonly price: bigint;
  /** Half-width of the confidence interval, same unit as price. */
  readonly confidence: bigint;
  readonly publish_slot: bigint;
}

/** What governance lets the chain accept: the enclave measurement and its settlement signer. */
export interface GovernanceValues {
  readonly measurement: Hex32;
  /** Ed25519 public key; the all-zero key means "none": every settlement is refused. */
  readonly settlement_signer: Hex32;
}

export interface GovernanceAction extends GovernanceValues {
  readonly sequence: bigint;
  readonly slot: bigint;
}

export interface GovernanceView {
  /** The authority (Ed25519 public key) that signs governance actions. */
  readonly authority: Hex32;
  /** Values in force now: those of the newest final action. */
  readonly effective: GovernanceValues;
  /** Included actions not final yet, oldest first. */
  readonly pending: readonly GovernanceAction[];
  /** Sequence the next action must carry. */
  readonly next_sequence: bigint;
}

export interface GovernanceRequest extends GovernanceValues {
  readonly sequence: bigint;
  readonly signature: Hex64;
}

/** A deposit: the depositor discloses the note's opening (a shielded pool's deposits are public). */
export interface DepositRequest {
  readonly tree_id: number;
  readonly mint: Address;
  readonly value: bigint;
  readonly owner_commitment: Hex32;
  readonly blinding: Hex32;
  /** Ed25519 key allowed to withdraw or merge this note and the notes derived from it. */
  readonly spend_authority: Hex32;
}

export interface NoteReceipt {
  readonly tree_id: number;
  readonly leaf_index: bigint;
  readonly commitment: Hex32;
  readonly note_use_tag: Hex32;
  readonly root: Hex32;
  readonly slot: bigint;
}

/** Proof of ownership of a note: its opening (minus the asset) and the spend authority's signature. */
export interface NoteSpend {
  readonly tree_id: number;
  readonly commitment: Hex32;
  readonly owner_commitment: Hex32;
  readonly note_inner_hash: Hex32;
  readonly value: bigint;
}

export interface WithdrawRequest extends NoteSpend {
  /** Public account that receives the tokens. */
  readonly recipient: Address;
  readonly signature: Hex64;
}

export interface WithdrawReceipt {
  readonly note_use_tag: Hex32;
  readonly mint: Address;
  readonly value: bigint;
  readonly recipient: Address;
  readonly slot: bigint;
}

export interface MergeRequest {
  readonly inputs: readonly NoteSpend[];
  /** The merged note: same owner and asset, the summed value, this blinding. */
  readonly output: { readonly tree_id: number; readonly blinding: Hex32 };
  readonly signature: Hex64;
}

export interface LockRequest {
  readonly market_id: Address;
  readonly locks: readonly { readonly note_use_tag: Hex32; readonly expiry_slot: bigint }[];
  readonly signer: Hex32;
  readonly signature: Hex64;
}

export interface LockAccount {
  readonly note_use_tag: Hex32;
  readonly market_id: Address;
  /** Last slot the lock blocks; from the next slot on it blocks nothing. */
  readonly expiry_slot: bigint;
  readonly slot: bigint;
  /** Set by the lock-revert fault: the lock no longer blocks and cannot back a settlement. */
  readonly reverted: boolean;
}

export interface ConsumedEntry {
  readonly note_use_tag: Hex32;
  readonly slot: bigint;
  readonly by: 'withdraw' | 'merge' | 'settlement';
}

/** The note a settlement leg spends, and what it claims about it. */
export interface SettlementInput {
  readonly tree_id: number;
  readonly note_commitment: Hex32;
  readonly note_use_tag: Hex32;
  /** The root the order's VALID_INPUT proof was made against: must be in the shard's window. */
  readonly merkle_root: Hex32;
  readonly value: bigint;
}

/** A note a leg creates, with its opening (see docs/chain-sim.md section 5 on disclosure). */
export interface SettlementOutput {
  readonly tree_id: number;
  readonly commitment: Hex32;
  readonly owner_commitment: Hex32;
  readonly asset_id: Hex32;
  readonly blinding: Hex32;
  readonly value: bigint;
}

/** One input note of the batch and the notes it turns into (its fill and its change). */
export interface SettlementLeg {
  readonly input: SettlementInput;
  readonly outputs: readonly SettlementOutput[];
}

export interface UnsignedSettlementBatch {
  readonly market_id: Address;
  /** Must equal the market's next_batch_seq when the batch lands. */
  readonly batch_seq: bigint;
  /** Last slot the batch may land in; later it fails with confirmation_timeout. */
  readonly deadline_slot: bigint;
  /** Matches the batch settles (public in the settlement status). */
  readonly match_count: number;
  readonly legs: readonly SettlementLeg[];
  /** Reserved for the VALID_MATCH_BATCH proof: empty hex until that circuit exists. */
  readonly proof: string;
  readonly signer: Hex32;
}

export interface SettlementBatch extends UnsignedSettlementBatch {
  readonly signature: Hex64;
}

export type SettlementOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: SettlementFailureReason; readonly message: string };

/** What the chain remembers of one settlement transaction (outside the rolled-back ledger). */
export interface SettlementRecord {
  readonly tx_id: Hex32;
  readonly market_id: Address;
  readonly batch_seq: bigint;
  readonly match_count: number;
  readonly submitted_slot: bigint;
  /** pending: waiting (delayed); landed: applied at included_slot; failed: definitive. */
  readonly state: 'pending' | 'landed' | 'failed';
  readonly included_slot?: bigint;
  readonly failed_slot?: bigint;
  readonly reason?: SettlementFailureReason;
  readonly message?: string;
  /** Leaves appended by a landed batch, in order. */
  readonly appended?: readonly {
    readonly tree_id: number;
    readonly leaf_index: bigint;
    readonly commitment: Hex32;
  }[];
}

export type ChainEvent =
  | { readonly kind: 'slot'; readonly slot: bigint }
  | { readonly kind: 'settlement'; readonly record: SettlementRecord }
  | { readonly kind: 'reorg'; readonly to_slot: bigint; readonly dropped: readonly Hex32[] };
