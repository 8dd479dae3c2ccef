// The served venue's link to a chain over JSON-RPC polls slots and root windows. A deposit mints a
// new root within the current slot, which the next poll would only see once the slot advances; a
// client that read that root (GET /tree/inclusion) and proved against it would be refused. `admit`
// closes that gap: a root the chain reports is read into the window at once, and the mirror hears it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createChainSimulator, type RpcServer, spendAuthorityOf, startRpcServer } from '@venue/chain-sim';
import { fieldToHex } from '@venue/notes';
import { type ChainLink, connectChain } from '../src/serve/chain-link.ts';

const POLL_MS = 60_000; // no timed poll happens during the test: only `admit` can bring the root in

let rpc: RpcServer;
let link: ChainLink;
let deposit: () => string;
let changes = 0;

before(async () => {
  const chain = await createChainSimulator({ shards: 1 });
  rpc = await startRpcServer(chain);
  let blinding = 7n;
  deposit = () => {
    blinding += 1n;
    chain.deposit({
      tree_id: 0,
      mint: 'So11111111111111111111111111111111111111112',
      value: 5n,
      owner_commitment: fieldToHex(3n),
      blinding: fieldToHex(blinding),
      spend_authority: spendAuthorityOf(0x5eedn).publicKey,
    });
    return chain.currentRoot(0).root;
  };
  link = await connectChain(rpc.url, {
    pollMs: POLL_MS,
    slotDurationMs: 400,
    treeCount: 1,
    onError: () => {},
  });
  link.start(() => {
    changes += 1;
  });
});
after(async () => {
  link.stop();
  await rpc.close();
});

const inWindow = (root: string) => link.roots.rootWindow(0).some((entry) => entry.root === root);

test('a root minted within the current slot is admitted at once, and the mirror hears of it', async () => {
  const root = deposit();
  assert.equal(inWindow(root), false, 'the polled window does not know the new root yet');
  const before = changes;
  await link.admit(0, root);
  assert.equal(inWindow(root), true);
  assert.equal(changes, before + 1, 'onChange ran, so the mirror hands the core the new window');
});

test('a root the window already holds costs no read and no change', async () => {
  const root = deposit();
  await link.admit(0, root);
  const before = changes;
  await link.admit(0, root);
  assert.equal(changes, before);
});

test('a root is in the window only once the mirror has heard of it, even while a read is half done', async () => {
  // Two shards, read one request each: a read of the windows is half done after the first answer.
  const chain = await createChainSimulator({ shards: 2 });
  const server = await startRpcServer(chain);
  const twoShards = await connectChain(server.url, {
    pollMs: POLL_MS,
    slotDurationMs: 400,
    treeCount: 2,
    onError: () => {},
  });
  // What the core would hold: the windows the mirror was handed at each change.
  let mirrored: readonly { root: string }[] = [];
  twoShards.start(() => {
    mirrored = twoShards.roots.rootWindow(0);
  });
  try {
    chain.deposit({
      tree_id: 0,
      mint: 'So11111111111111111111111111111111111111112',
      value: 5n,
      owner_commitment: fieldToHex(3n),
      blinding: fieldToHex(99n),
      spend_authority: spendAuthorityOf(0x5eedn).publicKey,
    });
    const root = chain.currentRoot(0).root;
    // A client's tree read for shard 1 starts a read of both windows (its root is not known)...
    const reading = twoShards.admit(1, 'ab'.repeat(32));
    // ...and a second client's read for shard 0 comes as soon as shard 0's window could hold the root.
    while (!twoShards.roots.rootWindow(0).some((entry) => entry.root === root)) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await twoShards.admit(0, root);
    assert.ok(
      mirrored.some((entry) => entry.root === root),
      'the core holds the root before a client is answered with it',
    );
    await reading;
  } finally {
    twoShards.stop();
    await server.close();
  }
});
