/**
 * Bounds of the chain's messages (docs/chain-sim.md sections 9 and 11): part of the contract, so a
 * client knows what the chain accepts before it sends. The simulator's own operating limits (its
 * ledger, its logs) stay in packages/chain-sim/src/limits.ts, which re-exports these.
 */

/** Legs (input notes) one settlement batch may carry. */
export const BATCH_LEGS_MAX = 1024;
/**
 * Fill tags per settlement leg: the fill slots of the wide VALID_MATCH circuit (notes
 * MATCH_FILLS_MAX; a leg of up to 4 tags is proved by the narrow one, docs/notes.md section 10.2).
 */
export const FILL_TAGS_PER_LEG_MAX = 16;
/** Notes one merge may combine. */
export const MERGE_INPUTS_MAX = 8;
/** Notes one lock request may lock (a match locks two; a batch of the venue at most one per leg). */
export const LOCKS_PER_REQUEST_MAX = BATCH_LEGS_MAX;
/**
 * JSON-RPC request body: a full batch of BATCH_LEGS_MAX legs fits with room to spare (a leg of
 * FILL_TAGS_PER_LEG_MAX tags is about 2.1 kB of JSON, so 1024 of them about 2.2 MB).
 */
export const RPC_BODY_BYTES_MAX = 4 * 1024 * 1024;
/** Slots one `advance` call may move (a test that wants more loops). */
export const ADVANCE_SLOTS_MAX = 100_000;
/** Ticks one `faultStallSlots` call may stall. */
export const STALL_TICKS_MAX = 1_000_000;
/** Entries one getSettlementView call answers for (tags, tx ids and markets together). */
export const SETTLEMENT_VIEW_KEYS_MAX = 4096;
/** Anchors one shard may send to getTreeUpdates: enough to outlast any reorg the feed keeps anchors for. */
export const TREE_ANCHORS_MAX = 256;
/** Pages one shard may receive per getTreeUpdates call (the feed asks again for the rest). */
export const TREE_PAGES_PER_SHARD_MAX = 16;
/** Leaves one getTreeUpdates answer may carry over all shards (about 90 bytes each on the wire). */
export const TREE_UPDATE_LEAVES_MAX = 8_000;
/** Longest market symbol a market account holds (printable ASCII). */
export const CHAIN_SYMBOL_LENGTH_MAX = 25;
