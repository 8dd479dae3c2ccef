import Type from 'typebox';
import { BYTES } from '../limits.ts';
import { Base58Address, Hex, OneOf, Strict, U8, U64 } from '../schema/primitives.ts';
import type { ChainStatic } from './frozen.ts';
import { MERGE_INPUTS_MAX } from './limits.ts';
import { ChainSymbol, PositiveU64 } from './primitives.ts';

/**
 * The chain's accounts and receipts as they travel (docs/chain-sim.md sections 2 and 3). Wire
 * conventions are the protocol's: 32-byte values are 64 lowercase hex characters, addresses base58,
 * amounts, slots and sequence numbers bare JSON integers read as bigint, tree_id a u8.
 */

const Hash = () => Hex(BYTES.hash);
const Key = () => Hex(BYTES.publicKey);

export const SlotInfoSchema = Strict(
  {
    slot: U64(),
    confirmed_slot: U64({
      description: 'Newest slot whose effects are confirmed (slot - confirmation depth).',
    }),
    finalized_slot: U64({
      description: 'Newest slot whose effects are final and can no longer be rolled back.',
    }),
  },
  { title: 'SlotInfo' },
);
export type SlotInfo = ChainStatic<typeof SlotInfoSchema>;

/** The chain's fixed configuration, read once by a client (docs/chain-sim.md section 6). */
export const ChainInfoSchema = Strict(
  {
    match_proofs: OneOf(['groth16', 'stand-in'] as const, {
      description:
        "How settlement proofs are checked: 'groth16' with the pinned VALID_MATCH key, or 'stand-in' (tests only; proves nothing).",
    }),
    shards: Type.Integer({ minimum: 1, maximum: 256 }),
    root_window: Type.Integer({ minimum: 1 }),
    finality_depth: Type.Integer({ minimum: 1 }),
    confirmation_depth: Type.Integer({ minimum: 0 }),
    genesis_id: Hex(16, {
      description:
        'Drawn once when this chain starts from genesis: a wallet that recorded another one knew a chain that is gone.',
    }),
  },
  { title: 'ChainInfo' },
);
export type ChainInfo = ChainStatic<typeof ChainInfoSchema>;

/** Most decimals a mint may declare (u64 amounts hold at most 19 full digits). */
export const MINT_DECIMALS_MAX = 18;

/**
 * A token mint's metadata: the short name wallets show and how many decimals its base unit has
 * (an amount of 1 token is 10^decimals base units). Amounts on the wire stay in base units.
 */
export const MintAccountSchema = Strict(
  {
    mint: Base58Address(),
    symbol: Type.String({
      minLength: 1,
      maxLength: 10,
      pattern: '^[A-Za-z0-9]+$',
      'x-expected': '1 to 10 letters or digits',
    }),
    decimals: Type.Integer({
      minimum: 0,
      maximum: MINT_DECIMALS_MAX,
      'x-expected': `an integer from 0 to ${MINT_DECIMALS_MAX}`,
    }),
  },
  { title: 'MintAccount' },
);
export type MintAccount = ChainStatic<typeof MintAccountSchema>;

/** One entry of a shard's recent-root window: the root after a transaction that touched the shard. */
export const RootEntrySchema = Strict(
  {
    root: Hash(),
    leaf_count: U64({
      description: 'Leaves under this root (a note is under it when its leaf index is below).',
    }),
    slot: U64(),
  },
  { title: 'RootEntry' },
);
export type RootEntry = ChainStatic<typeof RootEntrySchema>;

/** What a market account is created with (spec 1 item 1: mints, tick, scales, oracle). */
const marketFields = {
  symbol: ChainSymbol(),
  base_mint: Base58Address(),
  quote_mint: Base58Address(),
  tick_size: PositiveU64(),
  min_size: PositiveU64(),
  price_scale: PositiveU64(),
  oracle: Base58Address(),
};

export const MarketParamsSchema = Strict(
  {
    ...marketFields,
    market_id: Type.Optional(Base58Address({ description: 'Derived from the symbol when absent.' })),
  },
  { title: 'MarketParams' },
);
export type MarketParams = ChainStatic<typeof MarketParamsSchema>;

export const MarketAccountSchema = Strict(
  {
    market_id: Base58Address(),
    ...marketFields,
    next_batch_seq: U64({
      description: 'batch_seq the next settlement of this market must carry (gapless over settled batches).',
    }),
  },
  { title: 'MarketAccount' },
);
export type MarketAccount = ChainStatic<typeof MarketAccountSchema>;

export const OracleUpdateRequestSchema = Strict(
  {
    address: Base58Address(),
    price: U64({ description: "Quote units per base unit times the market's price_scale." }),
    confidence: U64({ description: 'Half-width of the confidence interval, same unit as price.' }),
  },
  { title: 'OracleUpdateRequest' },
);
export type OracleUpdateRequest = ChainStatic<typeof OracleUpdateRequestSchema>;

export const OracleAccountSchema = Strict(
  { ...OracleUpdateRequestSchema.properties, publish_slot: U64() },
  { title: 'OracleAccount' },
);
export type OracleAccount = ChainStatic<typeof OracleAccountSchema>;

/** What governance lets the chain accept: the enclave measurement and its settlement signer. */
const governanceFields = {
  measurement: Hash(),
  settlement_signer: Key(),
};

export const GovernanceValuesSchema = Strict(governanceFields, { title: 'GovernanceValues' });
export type GovernanceValues = ChainStatic<typeof GovernanceValuesSchema>;

export const GovernanceActionSchema = Strict(
  { sequence: U64(), ...governanceFields, slot: U64() },
  { title: 'GovernanceAction' },
);
export type GovernanceAction = ChainStatic<typeof GovernanceActionSchema>;

export const GovernanceViewSchema = Strict(
  {
    authority: Key(),
    effective: GovernanceValuesSchema,
    pending: Type.Array(GovernanceActionSchema, {
      description: 'Included actions not final yet, oldest first.',
    }),
    next_sequence: U64(),
  },
  { title: 'GovernanceView' },
);
export type GovernanceView = ChainStatic<typeof GovernanceViewSchema>;

export const LockAccountSchema = Strict(
  {
    note_use_tag: Hash(),
    market_id: Base58Address(),
    expiry_slot: U64({ description: 'Last slot the lock blocks; from the next slot on it blocks nothing.' }),
    slot: U64(),
    reverted: Type.Boolean({ description: 'Set by the lock-revert fault: the lock no longer blocks.' }),
  },
  { title: 'LockAccount' },
);
export type LockAccount = ChainStatic<typeof LockAccountSchema>;

export const ConsumedEntrySchema = Strict(
  { note_use_tag: Hash(), slot: U64(), by: OneOf(['withdraw', 'merge', 'settlement'] as const) },
  { title: 'ConsumedEntry' },
);
export type ConsumedEntry = ChainStatic<typeof ConsumedEntrySchema>;

/** Where a deposited note's commitment became a leaf, and its tag (the deposit disclosed its opening). */
export const NoteReceiptSchema = Strict(
  {
    tree_id: U8(),
    leaf_index: U64(),
    commitment: Hash(),
    note_use_tag: Hash(),
    root: Hash(),
    slot: U64(),
  },
  { title: 'NoteReceipt' },
);
export type NoteReceipt = ChainStatic<typeof NoteReceiptSchema>;

/** Where a withdraw's change or a merge's output became a leaf: an opaque note, so no tag. */
export const NoteLeafSchema = Strict(
  { tree_id: U8(), leaf_index: U64(), commitment: Hash(), root: Hash() },
  { title: 'NoteLeaf' },
);
export type NoteLeaf = ChainStatic<typeof NoteLeafSchema>;

/** What a merge did: the notes it consumed (their tags) and where the merged note went. */
export const MergeReceiptSchema = Strict(
  {
    consumed: Type.Array(Hash(), { minItems: 2, maxItems: MERGE_INPUTS_MAX }),
    output: NoteLeafSchema,
    slot: U64(),
  },
  { title: 'MergeReceipt' },
);
export type MergeReceipt = ChainStatic<typeof MergeReceiptSchema>;

/** What a withdraw did: the consumed note's tag, what went where, and the change note if any. */
export const WithdrawReceiptSchema = Strict(
  {
    note_use_tag: Hash(),
    mint: Base58Address(),
    value: U64(),
    recipient: Base58Address(),
    change: Type.Optional(NoteLeafSchema),
    slot: U64(),
  },
  { title: 'WithdrawReceipt' },
);
export type WithdrawReceipt = ChainStatic<typeof WithdrawReceiptSchema>;
