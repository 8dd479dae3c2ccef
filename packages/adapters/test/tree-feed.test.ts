// The tree channel of a venue whose chain runs in process (dev mode, TestVenue): a client that
// applies every message it receives holds exactly the chain's shard, with the chain's root after each
// message. A backlog larger than a page arrives in pages of 1000, each with the root after its own
// leaves; a reorg that replaces announced leaves, even with as many others, restarts the messages at
// the surviving size. A cheap permutation stands in for Poseidon (the feed's logic does not depend on
// it); notes' own NoteTree recomputes every root on the client side.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { ChainSimulator, spendAuthorityOf, treeReads } from '@venue/chain-sim';
import { fieldFromDigest, fieldFromHex, fieldToHex, NoteTree, noteHasherOver } from '@venue/notes';
import { TreeFeed } from '../src/settlement/tree-feed.ts';

const hasher = noteHasherOver((inputs) => {
  const hash = createHash('sha256');
  for (const input of inputs) hash.update(input.toString(16).padStart(64, '0'), 'hex');
  return fieldFromDigest(hash.digest());
});
const MINT = 'So11111111111111111111111111111111111111112';
const AUTHORITY = spendAuthorityOf(0x5eedn).publicKey;

interface TreeMessage {
  readonly leaf_count: bigint;
  readonly root: string;
  readonly leaves: readonly { index: bigint; commitment: string }[];
}

/** A subscriber keeping its own copy of shard 0 from the messages alone. */
class Client {
  readonly leaves: string[] = [];
  readonly messages: TreeMessage[] = [];

  apply(message: TreeMessage): void {
    this.messages.push(message);
    const start = Number(message.leaf_count) - message.leaves.length;
    assert.ok(start <= this.leaves.length, `a gap before leaf ${start}`);
    this.leaves.length = start; // leaves beyond the message's start were dropped by a reorg
    for (const [i, leaf] of message.leaves.entries()) {
      assert.equal(leaf.index, BigInt(start + i), 'contiguous indexes');
      this.leaves.push(leaf.commitment);
    }
    const tree = new NoteTree(hasher);
    for (const leaf of this.leaves) tree.append(fieldFromHex(leaf, 'leaf'));
    assert.equal(fieldToHex(tree.root()), message.root, `the root after ${message.leaf_count} leaves`);
  }
}

function world() {
  const chain = new ChainSimulator(hasher, { shards: 1, finalityDepth: 4 });
  const client = new Client();
  const feed = new TreeFeed(treeReads(chain), {
    publishTree: (frame) => client.apply(frame),
  });
  let next = 1n;
  const deposit = (count: number) => {
    for (let i = 0; i < count; i += 1) {
      next += 2n;
      chain.deposit({
        tree_id: 0,
        mint: MINT,
        value: 1n,
        owner_commitment: fieldToHex(next),
        blinding: fieldToHex(next + 1n),
        spend_authority: AUTHORITY,
      });
    }
  };
  return { chain, client, feed, deposit };
}

test('a backlog of 2,500 leaves arrives as pages of 1000, 1000 and 500, each with its own root', () => {
  const { chain, client, feed, deposit } = world();
  deposit(2500);
  chain.advance(1);
  feed.refresh();
  assert.deepEqual(
    client.messages.map((m) => [m.leaves.length, m.leaf_count]),
    [
      [1000, 1000n],
      [1000, 2000n],
      [500, 2500n],
    ],
  );
  assert.equal(client.leaves.length, 2500);
  assert.equal(client.messages.at(-1)?.root, chain.currentRoot(0).root);
});

test('a reorg that replaces announced leaves with as many others restarts at the surviving size', () => {
  const { chain, client, feed, deposit } = world();
  deposit(5);
  chain.advance(1);
  feed.refresh();
  deposit(3);
  chain.advance(1);
  feed.refresh();
  assert.equal(client.leaves.length, 8);
  chain.reorg(2n); // back to the end of the slot before the last three leaves
  deposit(3); // three other leaves: the size is 8 again, the root is not
  chain.advance(1);
  feed.refresh();
  const last = client.messages.at(-1);
  assert.equal(last?.leaf_count, 8n);
  assert.equal(last?.leaves.length, 3, 'the message restarts after the 5 surviving leaves');
  assert.equal(last?.root, chain.currentRoot(0).root);
});
