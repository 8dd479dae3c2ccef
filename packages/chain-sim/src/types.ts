import type { SettlementFailureReason, SettlementRecord } from '@venue/protocol';

/**
 * The simulator's in-process types. Every account, request and receipt that also travels over
 * JSON-RPC is the chain contract's (packages/protocol/src/chain), re-exported here so the
 * simulator and its callers keep one import; what only the simulator knows (confirmation levels,
 * a check's outcome, the events it emits) is declared below.
 */
export type {
  ChainInfo,
  ConsumedEntry,
  DepositRequest,
  GovernanceAction,
  GovernanceRequest,
  GovernanceValues,
  GovernanceView,
  LockAccount,
  LockRequest,
  MarketAccount,
  MarketParams,
  MergeReceipt,
  MergeRequest,
  MintAccount,
  NoteLeaf,
  NoteReceipt,
  NoteSpend,
  OracleAccount,
  OracleUpdateRequest,
  RootEntry,
  SettlementBatch,
  SettlementInput,
  SettlementLeg,
  SettlementOutput,
  SettlementRecord,
  SlotInfo,
  SpendOutput,
  UnsignedSettlementBatch,
  WithdrawReceipt,
  WithdrawRequest,
} from '@venue/protocol';

/** 32-byte values are 64 lowercase hex characters (field elements big-endian, below the BN254 modulus). */
export type Hex32 = string;
export type Hex64 = string;
/** Base58 account addresses. */
export type Address = string;

export type ConfirmationLevel = 'processed' | 'confirmed' | 'finalized';

export type SettlementOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: SettlementFailureReason; readonly message: string };

export type ChainEvent =
  | { readonly kind: 'slot'; readonly slot: bigint }
  | { readonly kind: 'settlement'; readonly record: SettlementRecord }
  | { readonly kind: 'reorg'; readonly to_slot: bigint; readonly dropped: readonly Hex32[] }
  /** Notes a withdraw or merge consumed, as it lands (a settlement's are in its record). */
  | { readonly kind: 'consumed'; readonly note_use_tags: readonly Hex32[]; readonly slot: bigint };
