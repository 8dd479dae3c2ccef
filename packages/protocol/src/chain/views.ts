import Type from 'typebox';
import { BYTES } from '../limits.ts';
import { Base58Address, Hex, Nullable, Strict, U8, U64 } from '../schema/primitives.ts';
import { LEAVES_PAGE_MAX } from '../schema/tree.ts';
import { GovernanceValuesSchema, LockAccountSchema, SlotInfoSchema } from './accounts.ts';
import type { ChainStatic } from './frozen.ts';
import { SETTLEMENT_VIEW_KEYS_MAX, TREE_ANCHORS_MAX, TREE_PAGES_PER_SHARD_MAX } from './limits.ts';
import { SettlementRecordSchema } from './settlement.ts';

/**
 * The two reads a venue whose chain runs elsewhere makes on every beat (docs/settlement.md
 * section 9): `getSettlementView`, what the settlement pipeline reads, and `getTreeUpdates`, what
 * the stream's tree channel publishes. Each is answered from one state of the chain.
 */

const Hash = () => Hex(BYTES.hash);
const keys = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Optional(Type.Array(item, { maxItems: SETTLEMENT_VIEW_KEYS_MAX }));

/**
 * The notes, transactions and markets the pipeline asks about; at most SETTLEMENT_VIEW_KEYS_MAX
 * together. `held_tx_ids` are transactions whose landed record, leaves included, the caller already
 * holds: each is answered in `settlements` like a `tx_ids` entry, but without `appended`, so a batch
 * watched until it is final does not bring its thousands of leaves back on every read.
 */
export const SettlementViewRequestSchema = Strict(
  {
    tags: keys(Hash()),
    tx_ids: keys(Hash()),
    held_tx_ids: keys(Hash()),
    market_ids: keys(Base58Address()),
  },
  { title: 'SettlementViewRequest' },
);
export type SettlementViewRequest = ChainStatic<typeof SettlementViewRequestSchema>;

/**
 * Slots, governance in force, every shard's current root, and each entry asked about: a note's
 * consumed slot and lock, a transaction's record, a market's next batch number; null when unknown.
 */
export const SettlementViewSchema = Strict(
  {
    ...SlotInfoSchema.properties,
    governance: GovernanceValuesSchema,
    roots: Type.Array(Hash(), { description: 'Current root of each shard, by tree_id.' }),
    notes: Type.Array(
      Strict({ note_use_tag: Hash(), consumed_slot: Nullable(U64()), lock: Nullable(LockAccountSchema) }),
    ),
    settlements: Type.Array(Strict({ tx_id: Hash(), record: Nullable(SettlementRecordSchema) })),
    markets: Type.Array(Strict({ market_id: Base58Address(), next_batch_seq: Nullable(U64()) })),
  },
  { title: 'SettlementView' },
);
export type SettlementView = ChainStatic<typeof SettlementViewSchema>;

/** One root a tree feed already announced. */
export const TreeAnchorSchema = Strict({ leaf_count: U64(), root: Hash() }, { title: 'TreeAnchor' });
export type TreeAnchor = ChainStatic<typeof TreeAnchorSchema>;

/** Per shard, the roots already announced (oldest first); `page_leaves` 1 to 1000 (default 1000). */
export const TreeUpdatesRequestSchema = Strict(
  {
    trees: Type.Optional(
      Type.Array(
        Strict({
          tree_id: U8(),
          anchors: Type.Array(TreeAnchorSchema, { maxItems: TREE_ANCHORS_MAX }),
        }),
        { maxItems: 256 },
      ),
    ),
    page_leaves: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LEAVES_PAGE_MAX,
        'x-expected': `an integer from 1 to ${LEAVES_PAGE_MAX}`,
      }),
    ),
    pages_max: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TREE_PAGES_PER_SHARD_MAX,
        'x-expected': `an integer from 1 to ${TREE_PAGES_PER_SHARD_MAX}`,
      }),
    ),
  },
  { title: 'TreeUpdatesRequest' },
);
export type TreeUpdatesRequest = ChainStatic<typeof TreeUpdatesRequestSchema>;

export const TreePageSchema = Strict(
  {
    root: Hash(),
    leaf_count: U64(),
    slot: U64(),
    leaves: Type.Array(Strict({ index: U64(), commitment: Hash() })),
  },
  { title: 'TreePage' },
);
export type TreePageReply = ChainStatic<typeof TreePageSchema>;

export const TreeUpdateSchema = Strict(
  {
    tree_id: U8(),
    root: Hex(BYTES.hash, { description: "The shard's current root (its root window's newest entry)." }),
    leaf_count: U64(),
    slot: U64(),
    from: U64({
      description:
        'Where the pages start: the newest anchor the chain continues, 0 when none, the current size without anchors.',
    }),
    pages: Type.Array(TreePageSchema),
  },
  { title: 'TreeUpdate' },
);
export type TreeUpdateReply = ChainStatic<typeof TreeUpdateSchema>;

export const TreeUpdatesSchema = Strict(
  { slot: U64(), finalized_slot: U64(), trees: Type.Array(TreeUpdateSchema) },
  { title: 'TreeUpdates' },
);
export type TreeUpdatesReply = ChainStatic<typeof TreeUpdatesSchema>;
