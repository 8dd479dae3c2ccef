import { fieldToHex, zeroHashes } from '@venue/notes';
import {
  type TreeAnchor as Anchor,
  LEAVES_PAGE_MAX,
  TREE_PAGES_PER_SHARD_MAX,
  TREE_UPDATE_LEAVES_MAX,
  type TreePageReply,
  type TreeUpdatesReply,
  type TreeUpdatesRequest,
} from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { reject } from './errors.ts';
import type { RootEntry } from './types.ts';

/**
 * `getTreeUpdates` (docs/settlement.md section 9): what a tree feed that reaches the chain over
 * JSON-RPC (the venue's stream `tree` channel under `venue serve`) needs for one poll, read in one
 * call and so from one state of the chain.
 *
 * The feed names, per shard, the roots it already announced (its anchors, oldest first). The
 * answer says, per shard, where the chain continues them (`from`: the size of the newest anchor
 * whose root the chain still has at that size, so every leaf below it is the one announced) and
 * the pages of leaves from there to the current root. A page ends at a root the chain really had
 * (an entry of the shard's root window) when one lies within a page of its start; otherwise it
 * ends a full page later, with the root of the tree at that size computed here. So leaves are
 * never skipped, however long the feed was away, and a reorg shows as a `from` below the anchors.
 */

export {
  TREE_ANCHORS_MAX,
  TREE_PAGES_PER_SHARD_MAX,
  TREE_UPDATE_LEAVES_MAX,
  type TreePageReply,
  type TreeUpdateReply,
  type TreeUpdatesReply,
} from '@venue/protocol';

export function treeUpdates(chain: ChainSimulator, p: TreeUpdatesRequest): TreeUpdatesReply {
  const pageLeaves = p.page_leaves ?? LEAVES_PAGE_MAX;
  const pagesMax = p.pages_max ?? TREE_PAGES_PER_SHARD_MAX;
  const anchors = anchorsOf(chain, p.trees ?? []);
  const shards = Array.from({ length: chain.shardCount }, (_, treeId) => {
    const window = chain.rootWindow(treeId);
    const current = chain.currentRoot(treeId);
    const known = anchors.get(treeId);
    const from =
      known === undefined ? current.leaf_count : continuedFrom(chain, treeId, window, current, known);
    return { treeId, window, current, from, pages: [] as TreePageReply[], next: from };
  });
  // Page by page over the shards in turn, so one shard's backlog does not starve the others.
  let budget = TREE_UPDATE_LEAVES_MAX;
  for (let round = 0; round < pagesMax; round += 1) {
    for (const shard of shards) {
      if (shard.next >= shard.current.leaf_count || budget < pageLeaves) continue;
      const end = pageEnd(chain, shard.treeId, shard.window, shard.next, BigInt(pageLeaves));
      const leaves = [];
      for (let index = shard.next; index < end.leaf_count; index += 1n)
        leaves.push({ index, commitment: chain.leafAt(shard.treeId, Number(index)) });
      shard.pages.push({ root: end.root, leaf_count: end.leaf_count, slot: end.slot, leaves });
      budget -= leaves.length;
      shard.next = end.leaf_count;
    }
  }
  const slots = chain.slotInfo();
  return {
    slot: slots.slot,
    finalized_slot: slots.finalized_slot,
    trees: shards.map((shard) => ({
      tree_id: shard.treeId,
      root: shard.current.root,
      leaf_count: shard.current.leaf_count,
      slot: shard.current.slot,
      from: shard.from,
      pages: shard.pages,
    })),
  };
}

/** The anchors by shard; the contract bounds their shape, the chain its own shard count. */
function anchorsOf(
  chain: ChainSimulator,
  trees: NonNullable<TreeUpdatesRequest['trees']>,
): Map<number, readonly Anchor[]> {
  const anchors = new Map<number, readonly Anchor[]>();
  if (trees.length > chain.shardCount)
    reject('bad_request', `trees: expected 0 to ${chain.shardCount} items, received ${trees.length}`);
  for (const [i, { tree_id: treeId, anchors: list }] of trees.entries()) {
    if (treeId >= chain.shardCount)
      reject('bad_request', `trees[${i}].tree_id: expected an integer from 0 to ${chain.shardCount - 1}`);
    if (anchors.has(treeId)) reject('bad_request', `trees[${i}].tree_id: ${treeId} is named twice`);
    anchors.set(treeId, list);
  }
  return anchors;
}

/**
 * The newest anchor whose root the chain still has at the anchor's size: the tree's root binds
 * every leaf below it, so the feed's leaves up to there are the chain's. A reorg that dropped
 * announced leaves fails the newer anchors. 0 (the empty tree) when none holds.
 */
function continuedFrom(
  chain: ChainSimulator,
  treeId: number,
  window: readonly RootEntry[],
  current: RootEntry,
  anchors: readonly Anchor[],
): bigint {
  for (let i = anchors.length - 1; i >= 0; i -= 1) {
    const anchor = anchors[i] as Anchor;
    if (anchor.leaf_count > current.leaf_count) continue;
    const entry = window.find((candidate) => candidate.leaf_count === anchor.leaf_count);
    const root = entry?.root ?? rootAtSize(chain, treeId, anchor.leaf_count);
    if (root === anchor.root) return anchor.leaf_count;
  }
  return 0n;
}

/**
 * Where the page from `start` ends: the newest window entry within `pageLeaves` leaves, else a
 * full page, with the root computed at that size and the slot of the entry that first covered it.
 */
function pageEnd(
  chain: ChainSimulator,
  treeId: number,
  window: readonly RootEntry[],
  start: bigint,
  pageLeaves: bigint,
): RootEntry {
  const limit = start + pageLeaves;
  const within = window.findLast((entry) => entry.leaf_count > start && entry.leaf_count <= limit);
  if (within !== undefined) return within;
  // The current root is the window's newest entry and lies beyond `limit`, so `covering` exists.
  const covering = window.find((entry) => entry.leaf_count > limit) as RootEntry;
  return { root: rootAtSize(chain, treeId, limit), leaf_count: limit, slot: covering.slot };
}

/**
 * The shard's root when it held `size` leaves. Trees are append-only: on the path of leaf
 * size-1, a left sibling holds earlier leaves (unchanged since), a right sibling only later ones,
 * which were empty then. So the old root is that path with every right sibling an empty subtree.
 */
export function rootAtSize(chain: ChainSimulator, treeId: number, size: bigint): string {
  const zeros = zeroHashes(chain.hasher);
  if (size === 0n) return fieldToHex(zeros[zeros.length - 1] as bigint);
  const index = Number(size - 1n);
  const path = chain.path(treeId, index);
  let node = BigInt(`0x${chain.leafAt(treeId, index)}`);
  path.siblings.forEach((sibling, height) => {
    node = path.pathBits[height]
      ? chain.hasher.merkleNode(sibling, node)
      : chain.hasher.merkleNode(node, zeros[height] as bigint);
  });
  return fieldToHex(node);
}
