// Note trees: deposits become leaves whose inclusion paths lead to the shard's root, the window of
// recent roots slides, and the reads come out in the protocol's shapes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldToHex, pathFromInclusion, rootFromPath } from '@venue/notes';
import { VenueError } from '@venue/protocol';
import { treeReads } from '../src/index.ts';
import { world } from './fixtures.ts';

test('every deposit has an inclusion path that leads to the current root of its shard', async () => {
  const { chain, wallet, deposit } = await world({ shards: 2 });
  const alice = wallet(1);
  const notes = [deposit(alice, 'base', 10n), deposit(alice, 'quote', 20n, 1), deposit(alice, 'base', 30n)];
  const reads = treeReads(chain);
  for (const held of notes) {
    const response = reads.inclusion(held.treeId, held.note.hex.commitment);
    const { path, commitment, root } = pathFromInclusion(response);
    assert.equal(rootFromPath(chain.hasher, commitment, path), root);
    assert.equal(fieldToHex(root), chain.currentRoot(held.treeId).root);
  }
  assert.deepEqual(
    reads.roots().trees.map((tree) => tree.leaf_count),
    [2n, 1n],
  );
});

test('a path read before later deposits still verifies against the root it names', async () => {
  const { chain, wallet, deposit } = await world();
  const held = deposit(wallet(1), 'base', 5n);
  const early = treeReads(chain).inclusion(0, held.note.hex.commitment);
  deposit(wallet(2), 'base', 6n);
  const { path, commitment, root } = pathFromInclusion(early);
  assert.equal(rootFromPath(chain.hasher, commitment, path), root);
  assert.ok(
    chain.rootWindow(0).some((entry) => entry.root === early.root),
    'the old root is still in the window',
  );
});

test('the root window keeps only the newest roots of each shard', async () => {
  const { chain, wallet, deposit } = await world({ rootWindow: 3 });
  const first = chain.currentRoot(0).root;
  for (let i = 0; i < 3; i++) deposit(wallet(1), 'base', BigInt(i + 1));
  const window = chain.rootWindow(0);
  assert.equal(window.length, 3);
  assert.ok(!window.some((entry) => entry.root === first), 'the genesis root was evicted');
  assert.deepEqual(
    window.map((entry) => entry.leaf_count),
    [1n, 2n, 3n],
  );
});

test('leaves come in pages with next_from, and unknown notes and shards are protocol errors', async () => {
  const { chain, wallet, deposit } = await world();
  for (let i = 0; i < 5; i++) deposit(wallet(1), 'quote', BigInt(i + 1));
  const reads = treeReads(chain);
  const page = reads.leaves(0, 1n, 3);
  assert.deepEqual(
    page.leaves.map((leaf) => leaf.index),
    [1n, 2n, 3n],
  );
  assert.equal(page.next_from, 4n);
  assert.equal(reads.leaves(0, 4n, 3).next_from, undefined);
  assert.throws(
    () => reads.inclusion(0, '11'.repeat(32)),
    (e: unknown) => e instanceof VenueError && e.errorName === 'NOTE_NOT_FOUND',
  );
  assert.throws(
    () => reads.roots() && reads.leaves(9, 0n, 1),
    (e: unknown) => e instanceof VenueError && e.errorName === 'TREE_ID_OUT_OF_RANGE',
  );
});
