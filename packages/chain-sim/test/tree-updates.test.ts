// getTreeUpdates, the read behind the venue's tree channel under `venue serve`: from the roots a
// feed announced, pages of leaves that are contiguous, complete and each carry the true root at
// their size (against roots recorded as the chain grew), also where the root window has moved on;
// a reorg answers from the newest announced root the chain still continues; the wire keeps counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ChainError, startRpcServer } from '../src/index.ts';
import { rootAtSize, type TreeUpdatesReply, treeUpdates } from '../src/rpc-tree-updates.ts';
import { type World, world } from './fixtures.ts';
import { RpcCaller } from './rpc-caller.ts';

/** Deposits `sizes[i]` notes in slot i (each its own root), recording every size's root and slot. */
function grow(w: World, sizes: readonly number[], seen: Map<bigint, { root: string; slot: bigint }>): void {
  const alice = w.wallet(1);
  for (const size of sizes) {
    for (let i = 0; i < size; i += 1) {
      w.deposit(alice, 'base', 1n);
      const { root, leaf_count, slot } = w.chain.currentRoot(0);
      seen.set(leaf_count, { root, slot });
    }
    w.chain.advance(1);
  }
}

/** The pages of shard 0, checked contiguous from `from` and true to the recorded roots. */
function checkPages(
  w: World,
  reply: TreeUpdatesReply,
  seen: Map<bigint, { root: string; slot: bigint }>,
  pageLeaves: number,
): bigint {
  const tree = reply.trees[0];
  assert.ok(tree !== undefined);
  let next = tree.from;
  for (const page of tree.pages) {
    assert.ok(page.leaves.length >= 1 && page.leaves.length <= pageLeaves, 'page size');
    for (const leaf of page.leaves) {
      assert.equal(leaf.index, next, 'contiguous');
      assert.equal(leaf.commitment, w.chain.leafAt(0, Number(next)));
      next += 1n;
    }
    assert.equal(page.leaf_count, next);
    const truth = seen.get(page.leaf_count);
    assert.equal(page.root, truth?.root, `root at size ${page.leaf_count}`);
    assert.ok(truth !== undefined && page.slot >= truth.slot && page.slot <= w.chain.slot, 'slot');
    if (w.chain.rootWindow(0).some((entry) => entry.leaf_count === page.leaf_count))
      assert.equal(page.slot, truth.slot, 'a window root keeps its slot');
  }
  return next;
}

test('property: pages from any announced root are contiguous, complete and carry the true root', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 4 }),
      async (before, after, pageLeaves, rootWindow) => {
        const w = await world({ shards: 1, rootWindow, finalityDepth: 64 });
        const seen = new Map([[0n, { root: w.chain.currentRoot(0).root, slot: 0n }]]);
        grow(w, before, seen);
        const anchor = w.chain.currentRoot(0);
        grow(w, after, seen);
        const params = {
          trees: [{ tree_id: 0, anchors: [{ leaf_count: anchor.leaf_count, root: anchor.root }] }],
          page_leaves: pageLeaves,
        };
        let reply = treeUpdates(w.chain, params);
        assert.equal(reply.trees[0]?.from, anchor.leaf_count, 'continued from the anchor');
        let next = checkPages(w, reply, seen, pageLeaves);
        // Asking again from where the pages ended reaches the current root.
        while (next < w.chain.currentRoot(0).leaf_count) {
          const root = seen.get(next)?.root ?? '';
          reply = treeUpdates(w.chain, {
            ...params,
            trees: [{ tree_id: 0, anchors: [{ leaf_count: next, root }] }],
          });
          next = checkPages(w, reply, seen, pageLeaves);
        }
        assert.equal(next, BigInt(w.chain.leafCount(0)));
      },
    ),
    { numRuns: 15 },
  );
});

test('the root at any earlier size is the root the chain had then', async () => {
  const w = await world({ shards: 1 });
  const seen = new Map([[0n, { root: w.chain.currentRoot(0).root, slot: 0n }]]);
  grow(w, [3, 0, 5, 1], seen);
  for (const [size, { root }] of seen) assert.equal(rootAtSize(w.chain, 0, size), root, `size ${size}`);
});

test('after a reorg the answer starts at the newest announced root the chain still continues', async () => {
  const w = await world({ shards: 1, finalityDepth: 16 });
  const seen = new Map([[0n, { root: w.chain.currentRoot(0).root, slot: 0n }]]);
  grow(w, [2], seen);
  const kept = w.chain.currentRoot(0); // 2 leaves
  grow(w, [0, 3], seen);
  const dropped = w.chain.currentRoot(0); // 5 leaves, two slots later
  w.chain.rollbackTo(kept.slot + 1n); // the fork without the three
  const fork = new Map([...seen].filter(([size]) => size <= kept.leaf_count));
  grow(w, [4], fork); // other leaves: 6 in all, more than before
  const anchors = [kept, dropped].map((a) => ({ leaf_count: a.leaf_count, root: a.root }));
  const reply = treeUpdates(w.chain, { trees: [{ tree_id: 0, anchors }] });
  assert.equal(reply.trees[0]?.from, 2n);
  assert.equal(checkPages(w, reply, fork, 1000), 6n);
  // With no anchor continued, from the empty tree.
  const none = treeUpdates(w.chain, { trees: [{ tree_id: 0, anchors: anchors.slice(1) }] });
  assert.equal(none.trees[0]?.from, 0n);
  // Without anchors, where the shard is now, with no pages.
  const fresh = treeUpdates(w.chain, {});
  assert.equal(fresh.trees[0]?.from, 6n);
  assert.deepEqual(fresh.trees[0]?.pages, []);
});

test('over the wire: counts stay numbers, bad anchors are refused with what to fix', async () => {
  const w = await world({ shards: 2 });
  grow(w, [3], new Map());
  const server = await startRpcServer(w.chain);
  try {
    const client = new RpcCaller(server.url);
    const genesis = w.chain.rootWindow(1)[0];
    assert.ok(genesis !== undefined);
    const reply = await client.request('getTreeUpdates', {
      trees: [
        { tree_id: 0, anchors: [] },
        { tree_id: 1, anchors: [{ leaf_count: 0n, root: genesis.root }] },
      ],
      page_leaves: 2,
      pages_max: 1,
    });
    assert.equal(reply.trees[0]?.from, 0n);
    assert.deepEqual(
      reply.trees[0]?.pages.map((page) => page.leaves.map((leaf) => leaf.index)),
      [[0n, 1n]],
    );
    assert.equal(reply.trees[1]?.from, 0n);
    assert.deepEqual(reply.trees[1]?.pages, []);
    await assert.rejects(
      client.request('getTreeUpdates', {
        trees: [
          { tree_id: 0, anchors: [] },
          { tree_id: 0, anchors: [] },
        ],
      }),
      (error: unknown) => error instanceof ChainError && /named twice/.test(error.message),
    );
    await assert.rejects(
      client.request('getTreeUpdates', {
        trees: [{ tree_id: 0, anchors: [{ leaf_count: 1n, root: 'zz' }] }],
      }),
      (error: unknown) => error instanceof ChainError && /anchors\[0\]\.root/.test(error.message),
    );
  } finally {
    await server.close();
  }
});
