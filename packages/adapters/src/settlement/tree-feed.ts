import { LEAVES_PAGE_MAX, type LeavesResponse, type TreeRootsResponse } from '@venue/protocol';
import { TREE_ANCHORS_KEPT_MAX, TREE_PAGES_PER_BEAT_MAX } from '../config/limits.ts';
import { type TreePublisher, treeFrame } from '../stream/stream-frames.ts';

/** The chain's tree reads, synchronous (chain-sim's `treeReads(chain)` is one). */
export interface TreeSource {
  roots(): TreeRootsResponse;
  leaves(treeId: number, from: bigint, limit: number): LeavesResponse;
  /** The shard's root when it held `size` leaves: the root after each page of a large backlog. */
  rootAt(treeId: number, size: bigint): string;
}

interface Anchor {
  readonly root: string;
  readonly count: bigint;
}

/**
 * The stream's tree channel (spec 6.2; protocol TreeMessage): after every chain slot or reorg, each
 * shard whose root changed gets its new leaves in pages of at most 1000, each page in its own message
 * with the root and size after it (as `RemoteTreeFeed` does for a chain reached over RPC). A backlog
 * of more than TREE_PAGES_PER_BEAT_MAX pages sends only the newest ones; a client that finds the
 * gap before them pages it from GET /tree/leaves. Trees are append-only, and a reorg only drops leaves from
 * the end, so when a shard shrank the next message restarts at the surviving size (an empty page
 * when nothing was appended since): a client holding more leaves than `leaf_count - leaves.length`
 * drops the extra ones and is on the surviving fork again.
 */
export class TreeFeed {
  readonly #source: TreeSource;
  readonly #publisher: TreePublisher;
  /** Per shard: the sizes and roots announced, oldest first (at most TREE_ANCHORS_KEPT_MAX). */
  readonly #sent = new Map<number, Anchor[]>();

  constructor(source: TreeSource, publisher: TreePublisher) {
    this.#source = source;
    this.#publisher = publisher;
    // Start from the chain as it is now: clients page history from GET /tree/leaves.
    for (const tree of source.roots().trees)
      this.#sent.set(tree.tree_id, [{ root: tree.root, count: tree.leaf_count }]);
  }

  refresh(): void {
    for (const tree of this.#source.roots().trees) {
      const anchors = this.#sent.get(tree.tree_id) ?? [];
      const newest = anchors.at(-1);
      if (newest !== undefined && newest.root === tree.root && newest.count === tree.leaf_count) continue;
      let from = this.#survivingSize(tree.tree_id, tree.leaf_count, anchors);
      // Announced sizes up to the restart point are prefixes of the surviving fork: still valid.
      const kept = anchors.filter((anchor) => anchor.count <= from);
      const pageMax = BigInt(LEAVES_PAGE_MAX);
      const backlogMax = pageMax * BigInt(TREE_PAGES_PER_BEAT_MAX);
      if (tree.leaf_count - from > backlogMax) from = tree.leaf_count - backlogMax;
      // A shrink with nothing appended since still tells clients the surviving size: an empty page.
      if (from === tree.leaf_count) {
        this.#announce(tree.tree_id, tree.slot, tree.root, tree.leaf_count, []);
        kept.push({ root: tree.root, count: tree.leaf_count });
      }
      while (from < tree.leaf_count) {
        const end = from + pageMax < tree.leaf_count ? from + pageMax : tree.leaf_count;
        const leaves = this.#source.leaves(tree.tree_id, from, Number(end - from)).leaves;
        const root = end === tree.leaf_count ? tree.root : this.#source.rootAt(tree.tree_id, end);
        this.#announce(tree.tree_id, tree.slot, root, end, leaves);
        kept.push({ root, count: end });
        from = end;
      }
      this.#sent.set(tree.tree_id, kept.slice(-TREE_ANCHORS_KEPT_MAX));
    }
  }

  /**
   * Where the shard's new messages start: the newest announced size whose root the chain still has
   * at that size. A reorg can drop announced leaves and grow back past the old size with others, so
   * the size alone cannot tell; the root at that size can. With no surviving anchor (a reorg deeper
   * than the anchors kept), the feed restarts at the current size and clients page from GET /tree/leaves.
   */
  #survivingSize(treeId: number, leafCount: bigint, anchors: readonly Anchor[]): bigint {
    for (let i = anchors.length - 1; i >= 0; i -= 1) {
      const anchor = anchors[i] as Anchor;
      if (anchor.count > leafCount) continue;
      if (this.#source.rootAt(treeId, anchor.count) === anchor.root) return anchor.count;
    }
    return leafCount;
  }

  #announce(
    treeId: number,
    slot: bigint,
    root: string,
    leafCount: bigint,
    leaves: readonly { index: bigint; commitment: string }[],
  ): void {
    this.#publisher.publishTree(treeFrame({ treeId, slot, root, leafCount, leaves }));
  }
}
