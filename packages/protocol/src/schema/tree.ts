import Type, { type Static } from 'typebox';
import { VenueError } from '../errors/venue-error.ts';
import { BYTES, U8_MAX } from '../limits.ts';
import { SETTLEMENT_FAILURE_REASONS } from './account.ts';
import { Base58Address, Count, DecimalU64, Hex, OneOf, Strict, U8, U64 } from './primitives.ts';

/**
 * Reads of the public note trees and of settlement (spec 4.4 `/tree/root`, spec 4.5 `/tree/inclusion`,
 * `/tree/leaves`, `/settlement/status`). The venue mirrors the chain here so that a client can prove
 * and track its notes without a chain connection of its own.
 *
 * Query schemas: a query string has no JSON types, so every numeric query parameter is a canonical
 * decimal string (DecimalU64) and decodes to bigint; the helpers below apply the tighter bounds the
 * decoder cannot express. Query parameters are the values of the parsed query string, one each;
 * a repeated parameter is refused by the route layer.
 */

/** Depth of every Merkle shard: 2^20 leaves per tree, 20 siblings per inclusion path. */
export const TREE_DEPTH = 20;

/** Largest page of GET /tree/leaves, and its default. */
export const LEAVES_PAGE_MAX = 1000;

/** Most shards a chain can have: tree_id is a u8 (spec 2.1). */
const TREES_MAX = U8_MAX + 1;

export const TreeRootSchema = Strict(
  {
    tree_id: U8(),
    root: Hex(BYTES.hash, { description: 'Current root of the shard as the venue mirrors it.' }),
    leaf_count: U64({ description: 'Leaves appended so far; the next leaf gets this index.' }),
    slot: U64({ description: 'Chain slot at which this root became current.' }),
  },
  { title: 'TreeRoot' },
);
export type TreeRoot = Static<typeof TreeRootSchema>;

/** GET /tree/root (public): the current root of every shard. */
export const TreeRootsResponseSchema = Strict(
  { trees: Type.Array(TreeRootSchema, { maxItems: TREES_MAX, description: 'One per shard, by tree_id.' }) },
  { title: 'TreeRootsResponse' },
);
export type TreeRootsResponse = Static<typeof TreeRootsResponseSchema>;

/** GET /tree/inclusion?tree_id=0&commitment=<hex>: both required. */
export const InclusionQuerySchema = Strict(
  {
    tree_id: DecimalU64({ description: 'Shard to look in, 0-255, as a decimal string.' }),
    commitment: Hex(BYTES.hash, { description: 'Note commitment whose path is wanted.' }),
  },
  { title: 'InclusionQuery' },
);
export type InclusionQuery = Static<typeof InclusionQuerySchema>;

/**
 * GET /tree/inclusion: the Merkle path of one leaf against one root. `siblings` and `path_bits` go
 * from the leaf level up. `path_bits[i]` is true when the path node at level i is a right child,
 * i.e. its sibling is on the left; it repeats the bits of `leaf_index` so that a client never has to
 * guess the bit order (the SDK checks that both agree).
 */
export const InclusionProofResponseSchema = Strict(
  {
    tree_id: U8(),
    leaf_index: U64(),
    commitment: Hex(BYTES.hash),
    root: Hex(BYTES.hash, { description: 'Root the path leads to; prove against this root.' }),
    slot: U64({ description: 'Slot at which that root became current.' }),
    siblings: Type.Array(Hex(BYTES.hash), { minItems: TREE_DEPTH, maxItems: TREE_DEPTH }),
    path_bits: Type.Array(Type.Boolean(), { minItems: TREE_DEPTH, maxItems: TREE_DEPTH }),
  },
  { title: 'InclusionProofResponse' },
);
export type InclusionProofResponse = Static<typeof InclusionProofResponseSchema>;

/** GET /tree/leaves?tree_id=0&from=0&limit=1000: limit is optional (default and maximum 1000). */
export const LeavesQuerySchema = Strict(
  {
    tree_id: DecimalU64({ description: 'Shard to read, 0-255.' }),
    from: DecimalU64({ description: 'Index of the first leaf wanted.' }),
    limit: Type.Optional(DecimalU64({ description: `1 to ${LEAVES_PAGE_MAX}; default ${LEAVES_PAGE_MAX}.` })),
  },
  { title: 'LeavesQuery' },
);
export type LeavesQuery = Static<typeof LeavesQuerySchema>;

export const LeafSchema = Strict({ index: U64(), commitment: Hex(BYTES.hash) }, { title: 'Leaf' });
export type Leaf = Static<typeof LeafSchema>;

/**
 * GET /tree/leaves: a contiguous page of leaves starting at `from`. `next_from` is present only when
 * the shard held more leaves than this page when it was read; pass it back as `from`.
 */
export const LeavesResponseSchema = Strict(
  {
    tree_id: U8(),
    from: U64(),
    leaves: Type.Array(LeafSchema, { maxItems: LEAVES_PAGE_MAX }),
    next_from: Type.Optional(U64()),
    root: Hex(BYTES.hash, { description: 'Shard root when the page was read.' }),
    leaf_count: U64({ description: 'Shard size when the page was read.' }),
  },
  { title: 'LeavesResponse' },
);
export type LeavesResponse = Static<typeof LeavesResponseSchema>;

/**
 * GET /settlement/status: one Strict schema with optional fields. Exactly one lookup is allowed:
 * either `tx_id` alone, or `market_id` with `batch_seq`. `settlementLookupOf` enforces that.
 */
export const SettlementStatusQuerySchema = Strict(
  {
    tx_id: Type.Optional(Hex(BYTES.hash, { description: 'Settlement transaction id.' })),
    market_id: Type.Optional(Base58Address()),
    batch_seq: Type.Optional(DecimalU64({ description: 'Per-market batch number, as a decimal string.' })),
  },
  { title: 'SettlementStatusQuery' },
);
export type SettlementStatusQuery = Static<typeof SettlementStatusQuerySchema>;

export type SettlementLookup =
  | { by: 'tx'; tx_id: string }
  | { by: 'batch'; market_id: string; batch_seq: bigint };

/** The one lookup a decoded settlement query names, or INVALID_QUERY when it names none or both. */
export function settlementLookupOf(query: SettlementStatusQuery): SettlementLookup {
  const { tx_id, market_id, batch_seq } = query;
  if (tx_id !== undefined && market_id === undefined && batch_seq === undefined) return { by: 'tx', tx_id };
  if (tx_id === undefined && market_id !== undefined && batch_seq !== undefined) {
    return { by: 'batch', market_id, batch_seq };
  }
  throw new VenueError(
    'INVALID_QUERY',
    'give either tx_id alone, or market_id together with batch_seq (but not both forms)',
  );
}

/** Settlement transaction lifecycle on the chain (design decisions section 3). */
export const SETTLEMENT_STATUSES = ['submitted', 'confirmed', 'finalized', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Most matches one settlement batch may carry. */
export const BATCH_MATCHES_MAX = 1_000_000;

/** GET /settlement/status: a batch, never its orders (only the match count is public here). */
export const SettlementStatusResponseSchema = Strict(
  {
    market_id: Base58Address(),
    batch_seq: U64({ description: 'Gapless per-market batch number.' }),
    tx_id: Hex(BYTES.hash),
    status: OneOf(SETTLEMENT_STATUSES),
    slot: U64({
      description: 'Slot of the latest status: submission, inclusion, finality, or failure detection.',
    }),
    reason: Type.Optional(
      OneOf(SETTLEMENT_FAILURE_REASONS, { description: 'Present when status is failed.' }),
    ),
    match_count: Count(BATCH_MATCHES_MAX),
  },
  { title: 'SettlementStatusResponse' },
);
export type SettlementStatusResponse = Static<typeof SettlementStatusResponseSchema>;

/** A decoded `tree_id` query value as a shard number; above 255 is OUT_OF_RANGE. */
export function treeIdOf(value: bigint): number {
  if (value > BigInt(U8_MAX)) {
    throw new VenueError('OUT_OF_RANGE', `field \`tree_id\`: expected 0 to ${U8_MAX}, received ${value}`);
  }
  return Number(value);
}

/** A decoded `limit` query value (absent means the maximum); must be 1 to LEAVES_PAGE_MAX. */
export function pageLimitOf(value: bigint | undefined, max: number = LEAVES_PAGE_MAX): number {
  if (value === undefined) return max;
  if (value < 1n || value > BigInt(max)) {
    throw new VenueError('OUT_OF_RANGE', `field \`limit\`: expected 1 to ${max}, received ${value}`);
  }
  return Number(value);
}
