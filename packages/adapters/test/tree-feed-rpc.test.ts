// The stream's tree channel of a venue whose chain answers over JSON-RPC (`venue serve`): the
// remote tree feed against chain-sim's real server behind a fault proxy. A subscriber receives
// exactly the leaves appended (deposits and settlement outputs), in order, each message's root true
// to its leaves, across outages (requests lost, replies lost) and reorgs, the same leaves the
// in-process feed announces.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChainRpcClient, RemoteTreeFeed } from '@venue/adapters';
import { fieldFromHex, fieldToHex, type NoteHasher, NoteTree, openFillMemo } from '@venue/notes';
import fc from 'fast-check';
import type { ProxyMode } from './settlement-rpc-proxy.ts';
import { MARKET, SettlementWorld } from './settlement-world.ts';

const FINALITY = 4;
const RPC_TIMEOUT_MS = 2_000;

interface TreeMessage {
  readonly tree_id: number;
  readonly slot: bigint;
  readonly root: string;
  readonly leaf_count: bigint;
  readonly leaves: readonly { index: bigint; commitment: string }[];
}

/**
 * A subscriber as the protocol describes one (TreeMessage): it holds the leaves of each shard,
 * takes a message whose start (`leaf_count - leaves.length`) is at most what it holds, drops the
 * leaves past that start (a reorg), and checks the message's root against its own Merkle tree.
 */
class Subscriber {
  readonly leaves = new Map<number, string[]>();
  restarts = 0;
  received = 0;

  constructor(
    private readonly hasher: NoteHasher,
    from: ReadonlyMap<number, readonly string[]>,
  ) {
    for (const [treeId, leaves] of from) this.leaves.set(treeId, [...leaves]);
  }

  take(message: TreeMessage): void {
    const held = this.leaves.get(message.tree_id) ?? [];
    const start = message.leaf_count - BigInt(message.leaves.length);
    assert.ok(start <= BigInt(held.length), `a gap before leaf ${start}: ${held.length} held`);
    if (start < BigInt(held.length)) this.restarts += 1;
    held.length = Number(start);
    message.leaves.forEach((leaf, k) => {
      assert.equal(leaf.index, start + BigInt(k), 'leaves in order');
      held.push(leaf.commitment);
    });
    this.leaves.set(message.tree_id, held);
    this.received += message.leaves.length;
    const tree = new NoteTree(this.hasher);
    for (const leaf of held) tree.append(fieldFromHex(leaf, 'leaf'));
    assert.equal(message.root, fieldToHex(tree.root()), `the root after leaf ${message.leaf_count}`);
  }
}

function chainLeaves(world: SettlementWorld): Map<number, string[]> {
  const shards = new Map<number, string[]>();
  for (let treeId = 0; treeId < world.chain.shardCount; treeId += 1)
    shards.set(
      treeId,
      Array.from({ length: world.chain.leafCount(treeId) }, (_, i) => world.chain.leafAt(treeId, i)),
    );
  return shards;
}

/** A remote feed reaching the world's chain through its fault proxy, and what it published. */
async function remoteFeed(world: SettlementWorld, pageLeaves?: number) {
  const remote = world.remote;
  assert.ok(remote !== null);
  const messages: TreeMessage[] = [];
  const problems: string[] = [];
  const feed = new RemoteTreeFeed(
    new ChainRpcClient(remote.proxy.url, RPC_TIMEOUT_MS),
    {
      publishTree: (frame) => {
        assert.equal(frame.channel, 'tree');
        messages.push(frame);
      },
    },
    { onProblem: (line) => problems.push(line), ...(pageLeaves === undefined ? {} : { pageLeaves }) },
  );
  await feed.open();
  return { feed, messages, problems, proxy: remote.proxy };
}

test('over RPC, a subscriber gets every deposit and settlement output in order, across an outage', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  try {
    const { feed, messages, problems, proxy } = await remoteFeed(world);
    const subscriber = new Subscriber(world.hasher, chainLeaves(world));
    const alice = world.wallet('alice');
    const bob = world.wallet('bob');
    const quoteNote = world.deposit(alice, 'quote', 20_000n);
    const baseNote = world.deposit(bob, 'base', 10n);
    world.advance(1);
    const bid = world.order(alice, quoteNote, 'bid', 10n);
    await world.place(alice, bid);
    await world.place(bob, world.order(bob, baseNote, 'ask', 10n));
    world.chain.faults.delayNextSettlement(2n); // the batch lands on chain while the venue is blind
    await world.beat(1);
    assert.equal(await feed.refresh(), true);
    assert.equal(messages.length, 1, 'both deposits in one message');

    proxy.mode = 'down';
    world.deposit(alice, 'quote', 7n);
    await world.beat(3);
    assert.equal(world.chain.settlementForBatch(MARKET.marketId, 0n)?.state, 'landed', 'outputs appended');
    assert.equal(await feed.refresh(), false);
    assert.equal(await feed.refresh(), false);
    assert.equal(messages.length, 1, 'nothing published while blind');
    assert.equal(problems.length, 1, 'the outage is told once');

    proxy.mode = 'pass';
    assert.equal(await feed.refresh(), true);
    await world.beat(FINALITY);
    assert.equal(await feed.refresh(), true);
    for (const message of messages) subscriber.take(message);
    assert.deepEqual(subscriber.leaves, chainLeaves(world), 'exactly the chain leaves');
    assert.equal(subscriber.restarts, 0);
    const outputs = world.chain.settlementForBatch(MARKET.marketId, 0n)?.appended?.length ?? 0;
    assert.ok(outputs >= 3, 'what each side bought, and a change');
    assert.equal(subscriber.received, 3 + outputs, 'three deposits and the outputs, each once');
    assert.match(problems[1] ?? '', /answers tree updates again/);

    // The fill memo's note is the leaf the channel announced at that index.
    const fill = world.fills().find((p) => p.message.order_id === bid.order_id);
    assert.ok(fill !== undefined);
    const memo = openFillMemo(
      alice.viewing.privateKey,
      { orderId: bid.order_id, matchId: fill.message.match_id },
      fill.message.memo,
    );
    const shard = subscriber.leaves.get(memo.received.tree_id) ?? [];
    assert.equal(shard[Number(memo.received.leaf_index)], memo.received.commitment);

    // The in-process feed (dev mode) announced the same leaves in the same order.
    const inProcess = world.trees();
    const leavesOf = (list: TreeMessage[]) =>
      list.flatMap((m) => m.leaves.map((leaf) => `${m.tree_id}:${leaf.index}:${leaf.commitment}`));
    assert.deepEqual(leavesOf(messages), leavesOf(inProcess));
  } finally {
    await world.close();
  }
});

type Step =
  | { readonly kind: 'deposit'; readonly count: number }
  | { readonly kind: 'advance' }
  /** A reorg onto a fork holding `regrow` other leaves. */
  | { readonly kind: 'reorg'; readonly depth: number; readonly regrow: number }
  | { readonly kind: 'proxy'; readonly mode: ProxyMode }
  | { readonly kind: 'refresh' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('deposit' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.constant({ kind: 'advance' as const }),
  fc.record({
    kind: fc.constant('reorg' as const),
    depth: fc.integer({ min: 1, max: FINALITY - 1 }),
    regrow: fc.integer({ min: 0, max: 4 }),
  }),
  fc.record({
    kind: fc.constantFrom('proxy' as const),
    mode: fc.constantFrom<ProxyMode>('pass', 'down', 'replies-lost'),
  }),
  fc.constant({ kind: 'refresh' as const }),
);

test('property: any schedule of appends, reorgs and RPC failures ends with the chain leaves, never a gap', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 4, maxLength: 24 }),
      fc.integer({ min: 1, max: 3 }),
      async (steps, pageLeaves) => {
        const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
        try {
          const { feed, messages, proxy } = await remoteFeed(world, pageLeaves);
          const subscriber = new Subscriber(world.hasher, chainLeaves(world));
          const wallet = world.wallet('carol');
          let reorgs = 0;
          let appended = 0;
          for (const s of steps) {
            if (s.kind === 'deposit') {
              for (let i = 0; i < s.count; i += 1) world.deposit(wallet, 'quote', 1n + BigInt(i));
              appended += s.count;
            } else if (s.kind === 'advance') world.advance(1);
            else if (s.kind === 'reorg') {
              if (world.chain.slot - BigInt(s.depth) < world.chain.finalizedSlot()) continue;
              const before = world.chain.leafCount(0);
              world.chain.reorg(BigInt(s.depth));
              if (world.chain.leafCount(0) < before) reorgs += 1;
              for (let i = 0; i < s.regrow; i += 1) world.deposit(wallet, 'base', 1n);
              appended += s.regrow;
            } else if (s.kind === 'proxy') proxy.mode = s.mode;
            else await feed.refresh();
            // Every message is taken as it comes: in step, or restarting after a reorg, root true.
            for (const message of messages.splice(0)) subscriber.take(message);
          }
          proxy.mode = 'pass';
          assert.equal(await feed.refresh(), true);
          for (const message of messages.splice(0)) subscriber.take(message);
          assert.deepEqual(subscriber.leaves, chainLeaves(world));
          if (reorgs === 0) {
            assert.equal(subscriber.restarts, 0, 'no reorg, no restart');
            assert.equal(subscriber.received, appended, 'each leaf exactly once');
          }
        } finally {
          await world.close();
        }
      },
    ),
    { numRuns: 10 },
  );
});

test('a root is admitted into the venue before the channel announces it; an admit that fails holds the message', async () => {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, rpc: true });
  try {
    const remote = world.remote;
    assert.ok(remote !== null);
    const messages: TreeMessage[] = [];
    const admitted: { treeId: number; root: string; published: number }[] = [];
    let refuse = false;
    const feed = new RemoteTreeFeed(
      new ChainRpcClient(remote.proxy.url, RPC_TIMEOUT_MS),
      { publishTree: (frame) => messages.push(frame) },
      {
        admit: async (treeId, root) => {
          if (refuse) throw new Error('the chain did not answer getRootWindow');
          admitted.push({ treeId, root, published: messages.length });
        },
      },
    );
    await feed.open();
    assert.deepEqual(admitted, [], 'the first read fixes where the channel starts: nothing to admit');
    world.deposit(world.wallet('alice'), 'quote', 5n);
    refuse = true;
    assert.equal(await feed.refresh(), false, 'a root the venue could not take in is not announced');
    assert.equal(messages.length, 0);
    refuse = false;
    assert.equal(await feed.refresh(), true);
    assert.equal(messages.length, 1);
    const announced = messages[0] as TreeMessage;
    assert.deepEqual(admitted, [{ treeId: announced.tree_id, root: announced.root, published: 0 }]);
    assert.equal(announced.root, world.chain.currentRoot(announced.tree_id).root);
  } finally {
    await world.close();
  }
});
