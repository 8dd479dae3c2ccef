// Note trees: roots against a naive full recomputation, inclusion paths, empty subtrees, capacity,
// and the reading of GET /tree/inclusion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isVenueError, TREE_DEPTH } from '@venue/protocol';
import fc from 'fast-check';
import {
  fieldToHex,
  loadNoteHasher,
  NOTE_TREE_DEPTH,
  type NoteHasher,
  NoteTree,
  pathFromInclusion,
  pathToHex,
  rootFromPath,
  zeroHashes,
} from '../src/index.ts';

const hasher = await loadNoteHasher();

/** The root of a full tree of 2^depth leaves (missing leaves are 0), hashed level by level. */
function naiveRoot(h: NoteHasher, leaves: readonly bigint[], depth: number): bigint {
  let level = Array.from({ length: 2 ** depth }, (_, i) => leaves[i] ?? 0n);
  while (level.length > 1) {
    level = Array.from({ length: level.length / 2 }, (_, i) =>
      h.merkleNode(level[2 * i] ?? 0n, level[2 * i + 1] ?? 0n),
    );
  }
  return level[0] ?? 0n;
}

test('the tree depth is the protocol depth, 20', () => {
  assert.equal(NOTE_TREE_DEPTH, TREE_DEPTH);
  assert.equal(NOTE_TREE_DEPTH, 20);
  assert.equal(new NoteTree(hasher).capacity, 2 ** 20);
});

test('an empty tree has root zeros[depth]; zeros[h+1] = Poseidon(zeros[h], zeros[h])', () => {
  const zeros = zeroHashes(hasher, 20);
  assert.equal(zeros[0], 0n);
  assert.equal(zeros[1], hasher.poseidon([0n, 0n]));
  assert.equal(zeros[3], hasher.merkleNode(zeros[2] ?? -1n, zeros[2] ?? -1n));
  assert.equal(new NoteTree(hasher).root(), zeros[20]);
  assert.equal(new NoteTree(hasher, 4).root(), naiveRoot(hasher, [], 4));
});

test('roots and paths agree with a naive recomputation (property, depth 4)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.bigInt({ min: 1n, max: 2n ** 200n }), { minLength: 1, maxLength: 16 }),
      (leaves) => {
        const tree = new NoteTree(hasher, 4);
        leaves.forEach((leaf, i) => {
          assert.equal(tree.append(leaf), i);
        });
        const root = naiveRoot(hasher, leaves, 4);
        assert.equal(tree.root(), root);
        leaves.forEach((leaf, i) => {
          const path = tree.path(i);
          assert.deepEqual(
            path.pathBits,
            [0, 1, 2, 3].map((bit) => ((i >> bit) & 1) === 1),
          );
          assert.equal(rootFromPath(hasher, leaf, path), root);
          assert.equal(tree.leaf(i), leaf);
        });
      },
    ),
    { numRuns: 30 },
  );
});

test('a path proves only its own leaf', () => {
  const tree = new NoteTree(hasher);
  for (const leaf of [11n, 22n, 33n]) tree.append(leaf);
  assert.equal(rootFromPath(hasher, 22n, tree.path(1)), tree.root());
  assert.notEqual(rootFromPath(hasher, 23n, tree.path(1)), tree.root());
  assert.notEqual(rootFromPath(hasher, 22n, tree.path(0)), tree.root());
});

test('a full tree refuses another leaf, and unknown leaf indexes are refused', () => {
  const tree = new NoteTree(hasher, 2);
  for (const leaf of [1n, 2n, 3n, 4n]) tree.append(leaf);
  assert.throws(
    () => tree.append(5n),
    (e) => isVenueError(e) && e.errorName === 'OUT_OF_RANGE',
  );
  assert.throws(
    () => tree.path(4),
    (e) => isVenueError(e) && e.errorName === 'OUT_OF_RANGE',
  );
  assert.throws(() => new NoteTree(hasher, 0), /depth/);
});

test('an inclusion response is read back as the same path, and inconsistent bits are refused', () => {
  const tree = new NoteTree(hasher);
  for (let i = 0n; i < 6n; i++) tree.append(100n + i);
  const path = tree.path(5);
  const response = {
    tree_id: 2,
    leaf_index: 5n,
    commitment: fieldToHex(105n),
    root: fieldToHex(tree.root()),
    slot: 9n,
    ...pathToHex(path),
  };
  const read = pathFromInclusion(response);
  assert.deepEqual(read.path, path);
  assert.equal(read.commitment, 105n);
  assert.equal(read.root, tree.root());
  const flipped = [...response.path_bits];
  flipped[0] = !flipped[0];
  assert.throws(
    () => pathFromInclusion({ ...response, path_bits: flipped }),
    (e) => isVenueError(e) && e.errorName === 'INVALID_FORMAT',
  );
});
