import { pathToHex } from '@venue/notes';
import {
  type InclusionProofResponse,
  LEAVES_PAGE_MAX,
  type LeavesResponse,
  type SettlementLookup,
  type SettlementStatus,
  type SettlementStatusResponse,
  type TreeRootsResponse,
  VenueError,
} from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { rootAtSize } from './rpc-tree-updates.ts';
import type { SettlementRecord } from './types.ts';

/**
 * The chain's public reads in the protocol's shapes (packages/protocol/src/schema/tree.ts), so the
 * venue's REST routes can serve them as they are. Errors are the protocol's VenueErrors
 * (NOTE_NOT_FOUND, SETTLEMENT_NOT_FOUND, TREE_ID_OUT_OF_RANGE, OUT_OF_RANGE).
 */
export interface ChainReadsSync {
  roots(): TreeRootsResponse;
  inclusion(treeId: number, commitment: string): InclusionProofResponse;
  leaves(treeId: number, from: bigint, limit: number): LeavesResponse;
  settlementStatus(lookup: SettlementLookup): SettlementStatusResponse;
  /** The shard's root when it held `size` leaves (at most its current size). */
  rootAt(treeId: number, size: bigint): string;
}

/**
 * The same reads with promises: structurally the adapters' `ChainReads` port
 * (packages/adapters/src/venue/ports.ts), so `chainReadsOf(chain)` can be handed to the routes.
 */
export interface ChainReadsAsync {
  roots(): Promise<TreeRootsResponse>;
  inclusion(treeId: number, commitment: string): Promise<InclusionProofResponse>;
  leaves(treeId: number, from: bigint, limit: number): Promise<LeavesResponse>;
  settlementStatus(lookup: SettlementLookup): Promise<SettlementStatusResponse>;
}

export function treeReads(chain: ChainSimulator): ChainReadsSync {
  const shard = (treeId: number): number => {
    if (!Number.isInteger(treeId) || treeId < 0 || treeId >= chain.shardCount) {
      throw new VenueError(
        'TREE_ID_OUT_OF_RANGE',
        `tree_id: expected 0 to ${chain.shardCount - 1}, received ${treeId}`,
      );
    }
    return treeId;
  };
  return {
    rootAt: (treeId, size) => rootAtSize(chain, shard(treeId), size),
    roots: () => ({
      trees: Array.from({ length: chain.shardCount }, (_, treeId) => {
        const { root, leaf_count, slot } = chain.currentRoot(treeId);
        return { tree_id: treeId, root, leaf_count, slot };
      }),
    }),
    inclusion: (treeId, commitment) => {
      const place = chain.locate(commitment);
      if (place === undefined || place.tree_id !== shard(treeId)) {
        throw new VenueError('NOTE_NOT_FOUND', `commitment ${commitment} is not a leaf of shard ${treeId}`);
      }
      const { root, slot } = chain.currentRoot(treeId);
      return {
        tree_id: treeId,
        leaf_index: place.leaf_index,
        commitment,
        root,
        slot,
        ...pathToHex(chain.path(treeId, Number(place.leaf_index))),
      };
    },
    leaves: (treeId, from, limit) => {
      if (!Number.isInteger(limit) || limit < 1 || limit > LEAVES_PAGE_MAX) {
        throw new VenueError('OUT_OF_RANGE', `limit: expected 1 to ${LEAVES_PAGE_MAX}, received ${limit}`);
      }
      const count = BigInt(chain.leafCount(shard(treeId)));
      const end = from + BigInt(limit) < count ? from + BigInt(limit) : count;
      const leaves = [];
      for (let index = from; index < end; index++) {
        leaves.push({ index, commitment: chain.leafAt(treeId, Number(index)) });
      }
      const { root } = chain.currentRoot(treeId);
      return {
        tree_id: treeId,
        from,
        leaves,
        ...(end < count ? { next_from: end } : {}),
        root,
        leaf_count: count,
      };
    },
    settlementStatus: (lookup) => {
      const record =
        lookup.by === 'tx'
          ? chain.settlement(lookup.tx_id)
          : chain.settlementForBatch(lookup.market_id, lookup.batch_seq);
      if (record === undefined)
        throw new VenueError('SETTLEMENT_NOT_FOUND', 'the chain knows no such settlement');
      return settlementStatusOf(chain, record);
    },
  };
}

export function chainReadsOf(chain: ChainSimulator): ChainReadsAsync {
  const reads = treeReads(chain);
  return {
    roots: async () => reads.roots(),
    inclusion: async (treeId, commitment) => reads.inclusion(treeId, commitment),
    leaves: async (treeId, from, limit) => reads.leaves(treeId, from, limit),
    settlementStatus: async (lookup) => reads.settlementStatus(lookup),
  };
}

/**
 * A record as the protocol's status: pending or not yet confirmed is `submitted`, then `confirmed`
 * and `finalized` by the inclusion slot's confirmation level; `slot` is when that status began.
 */
export function settlementStatusOf(
  chain: ChainSimulator,
  record: SettlementRecord,
): SettlementStatusResponse {
  const base = {
    market_id: record.market_id,
    batch_seq: record.batch_seq,
    tx_id: record.tx_id,
    match_count: record.match_count,
  };
  if (record.state === 'failed') {
    const failed: SettlementStatusResponse = {
      ...base,
      status: 'failed',
      slot: record.failed_slot ?? record.submitted_slot,
    };
    return record.reason === undefined ? failed : { ...failed, reason: record.reason };
  }
  if (record.state === 'pending' || record.included_slot === undefined) {
    return { ...base, status: 'submitted', slot: record.submitted_slot };
  }
  const level = chain.confirmationOf(record.included_slot);
  const status: SettlementStatus = level === 'processed' ? 'submitted' : level;
  const depth =
    level === 'finalized'
      ? chain.config.finalityDepth
      : level === 'confirmed'
        ? chain.config.confirmationDepth
        : 0;
  return { ...base, status, slot: record.included_slot + BigInt(depth) };
}
