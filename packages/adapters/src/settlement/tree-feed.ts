import { LEAVES_PAGE_MAX, type LeavesResponse, type TreeRootsResponse } from '@venue/protocol';
import type { SettlementPublisher } from './settlement-pipeline.ts';

/** The chain's tree reads, synchronous (chain-sim's `treeReads(chain)` is one). */
export interface TreeSource {
  roots(): TreeRootsResponse;
  leaves(treeId: number, from: bigint, limit: number): LeavesResponse;
}

/**
 * The stream's tree channel (spec 6.2; protocol TreeMessage): after every chain slot or reorg, each
 * shard whose root changed gets one message with its new leaves (the newest page of them), and the
 * root and size after them. Trees are append-only, and a reorg only drops leaves from
 * the end, so when a shard shrank the next message restarts at the surviving size (an empty page
 * when nothing was appended since): a client holding more leaves than `leaf_count - leaves.length`
 * drops the extra ones and is on the surviving fork again.
 */
export class TreeFeed {
  readonly #source: TreeSource;
  readonly #publisher: SettlementPublisher;
  /** Per shard: the root and leaf count last announced. */
  readonly #sent = new Map<number, { root: string; count: bigint }>();

  constructor(source: TreeSource, publisher: SettlementPublisher) {
    this.#source = source;
    this.#publisher = publisher;
    // Start from the chain as it is now: clients page history from GET /tree/leaves.
    for (const tree of source.roots().trees)
      this.#sent.set(tree.tree_id, { root: tree.root, count: tree.leaf_count });
  }

  refresh(): void {
    for (const tree of this.#source.roots().trees) {
      const sent = this.#sent.get(tree.tree_id);
      if (sent !== undefined && sent.root === tree.root && sent.count === tree.leaf_count) continue;
      let from = sent === undefined || sent.count > tree.leaf_count ? tree.leaf_count : sent.count;
      // One message per shard and beat, with at most a page of the newest leaves: a client that
      // finds a gap before them pages it from GET /tree/leaves (protocol TreeMessage).
      const pageMax = BigInt(LEAVES_PAGE_MAX);
      if (tree.leaf_count - from > pageMax) from = tree.leaf_count - pageMax;
      const leaves =
        from < tree.leaf_count ? this.#source.leaves(tree.tree_id, from, LEAVES_PAGE_MAX).leaves : [];
      this.#announce(tree.tree_id, tree.slot, tree.root, tree.leaf_count, leaves);
      this.#sent.set(tree.tree_id, { root: tree.root, count: tree.leaf_count });
    }
  }

  #announce(
    treeId: number,
    slot: bigint,
    root: string,
    leafCount: bigint,
    leaves: readonly { index: bigint; commitment: string }[],
  ): void {
    this.#publisher.publish('tree', {
      channel: 'tree',
      tree_id: treeId,
      slot,
      root,
      leaf_count: leafCount,
      leaves,
    });
  }
}
