import { assert, type InclusionProofResponse, TREE_DEPTH, VenueError } from '@venue/protocol';
import { fieldFromHex, fieldToHex, isFieldElement } from './field.ts';
import type { NoteHasher } from './hash.ts';

/**
 * Note trees (docs/notes.md section 3): append-only binary Merkle trees of fixed depth over
 * Poseidon(left, right). Leaves are note commitments; an empty leaf is 0, and an empty subtree of
 * height h hashes to zeros[h] (zeros[0] = 0, zeros[h+1] = Poseidon(zeros[h], zeros[h])).
 *
 * Depth 20 (protocol TREE_DEPTH): 2^20 leaves per shard, 20 hashes per path, small enough for a
 * proof in well under a second. The circuit is compiled for exactly this depth.
 */
export const NOTE_TREE_DEPTH = TREE_DEPTH;

/**
 * An inclusion path from a leaf up to a root. `siblings[i]` is the sibling at level i (leaf level
 * first); `pathBits[i]` is true when the path's node at level i is a right child. The bits are the
 * binary digits of `leafIndex`, least significant first.
 */
export interface InclusionPath {
  readonly leafIndex: number;
  readonly siblings: readonly bigint[];
  readonly pathBits: readonly boolean[];
}

const zerosByDepth = new WeakMap<NoteHasher, bigint[]>();

/** zeros[h] for h = 0..depth (cached per hasher). */
export function zeroHashes(hasher: NoteHasher, depth: number = NOTE_TREE_DEPTH): readonly bigint[] {
  let zeros = zerosByDepth.get(hasher);
  if (zeros === undefined) {
    zeros = [0n];
    zerosByDepth.set(hasher, zeros);
  }
  while (zeros.length <= depth) {
    const below = zeros[zeros.length - 1] ?? 0n;
    zeros.push(hasher.merkleNode(below, below));
  }
  return zeros.slice(0, depth + 1);
}

/**
 * An append-only note tree, the shape the chain simulator keeps per shard. Appending costs `depth`
 * hashes; paths and roots are reads. Nodes are stored level by level, so memory is about twice the
 * number of leaves.
 */
export class NoteTree {
  readonly depth: number;
  private readonly hasher: NoteHasher;
  private readonly zeros: readonly bigint[];
  /** levels[0] are the leaves; levels[h][i] is the node at height h, index i. */
  private readonly levels: bigint[][];

  constructor(hasher: NoteHasher, depth: number = NOTE_TREE_DEPTH) {
    assert(Number.isInteger(depth) && depth >= 1 && depth <= 32, 'tree depth must be 1 to 32');
    this.depth = depth;
    this.hasher = hasher;
    this.zeros = zeroHashes(hasher, depth);
    this.levels = Array.from({ length: depth + 1 }, () => []);
  }

  get leafCount(): number {
    return this.levels[0]?.length ?? 0;
  }

  get capacity(): number {
    return 2 ** this.depth;
  }

  /** Appends a commitment and returns its leaf index. A full tree refuses with OUT_OF_RANGE. */
  append(commitment: bigint): number {
    assert(isFieldElement(commitment), 'a leaf must be a field element');
    const index = this.leafCount;
    if (index >= this.capacity) {
      throw new VenueError('OUT_OF_RANGE', `the note tree is full (${this.capacity} leaves)`);
    }
    let node = commitment;
    let position = index;
    for (let height = 0; height < this.depth; height++) {
      this.level(height)[position] = node;
      const sibling = this.nodeAt(height, position ^ 1);
      node =
        position % 2 === 0 ? this.hasher.merkleNode(node, sibling) : this.hasher.merkleNode(sibling, node);
      position >>= 1;
    }
    this.level(this.depth)[0] = node;
    return index;
  }

  root(): bigint {
    return this.nodeAt(this.depth, 0);
  }

  leaf(index: number): bigint {
    this.checkIndex(index);
    return this.nodeAt(0, index);
  }

  /** The inclusion path of leaf `index` against the current root. */
  path(index: number): InclusionPath {
    this.checkIndex(index);
    const siblings: bigint[] = [];
    const pathBits: boolean[] = [];
    let position = index;
    for (let height = 0; height < this.depth; height++) {
      siblings.push(this.nodeAt(height, position ^ 1));
      pathBits.push(position % 2 === 1);
      position >>= 1;
    }
    return { leafIndex: index, siblings, pathBits };
  }

  private level(height: number): bigint[] {
    const level = this.levels[height];
    assert(level !== undefined, `no level ${height}`);
    return level;
  }

  private nodeAt(height: number, index: number): bigint {
    return this.levels[height]?.[index] ?? this.zeros[height] ?? 0n;
  }

  private checkIndex(index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.leafCount) {
      throw new VenueError(
        'OUT_OF_RANGE',
        `leaf index must be 0 to ${this.leafCount - 1}, received ${index}`,
      );
    }
  }
}

/** The root a leaf and its path lead to (what the circuit recomputes). */
export function rootFromPath(hasher: NoteHasher, leaf: bigint, path: InclusionPath): bigint {
  assert(path.siblings.length === path.pathBits.length, 'a path has one bit per sibling');
  let node = leaf;
  path.siblings.forEach((sibling, height) => {
    node = path.pathBits[height] ? hasher.merkleNode(sibling, node) : hasher.merkleNode(node, sibling);
  });
  return node;
}

/**
 * Reads GET /tree/inclusion (protocol InclusionProofResponse) as a path, checking that path_bits
 * spell leaf_index (least significant bit first), so a client never proves along a wrong path.
 */
export function pathFromInclusion(response: InclusionProofResponse): {
  path: InclusionPath;
  commitment: bigint;
  root: bigint;
} {
  const leafIndex = Number(response.leaf_index);
  const expected = Array.from(
    { length: NOTE_TREE_DEPTH },
    (_, i) => Math.floor(leafIndex / 2 ** i) % 2 === 1,
  );
  if (
    response.leaf_index >= 2n ** BigInt(NOTE_TREE_DEPTH) ||
    expected.some((b, i) => b !== response.path_bits[i])
  ) {
    throw new VenueError('INVALID_FORMAT', 'inclusion proof: path_bits do not spell leaf_index');
  }
  return {
    path: {
      leafIndex,
      siblings: response.siblings.map((s, i) => fieldFromHex(s, `siblings[${i}]`)),
      pathBits: [...response.path_bits],
    },
    commitment: fieldFromHex(response.commitment, 'commitment'),
    root: fieldFromHex(response.root, 'root'),
  };
}

/** A path as the hex arrays of protocol InclusionProofResponse (for a chain simulator serving it). */
export function pathToHex(path: InclusionPath): { siblings: string[]; path_bits: boolean[] } {
  return { siblings: path.siblings.map(fieldToHex), path_bits: [...path.pathBits] };
}
