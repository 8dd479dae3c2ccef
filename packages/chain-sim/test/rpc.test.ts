// The JSON-RPC server over real HTTP: exact u64 values both ways, chain rejections and protocol
// errors as coded JSON-RPC errors, a bounded body, and the standalone process's READY line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fieldToHex, pathFromInclusion, rootFromPath } from '@venue/notes';
import { U64_MAX, VenueError } from '@venue/protocol';
import {
  ChainError,
  REJECTION_CODES,
  RPC_BODY_BYTES_MAX,
  type RpcServer,
  startRpcServer,
} from '../src/index.ts';
import { BASE_MINT, RECIPIENT, type World, world } from './fixtures.ts';
import { RpcCaller } from './rpc-caller.ts';

let w: World;
let server: RpcServer;
let client: RpcCaller;

before(async () => {
  w = await world();
  server = await startRpcServer(w.chain);
  client = new RpcCaller(server.url);
});

after(async () => {
  await server.close();
});

test('a deposit over RPC keeps a u64 value exact and its inclusion path verifies', async () => {
  const alice = w.wallet(1);
  const receipt = await client.request('deposit', {
    tree_id: 0,
    mint: BASE_MINT,
    value: U64_MAX - 1000n,
    owner_commitment: fieldToHex(alice.owner),
    blinding: fieldToHex(4242n),
    spend_authority: alice.authority.publicKey,
  });
  assert.equal(typeof receipt.leaf_index, 'bigint');
  const inclusion = await client.request('getInclusion', { tree_id: 0, commitment: receipt.commitment });
  const { path, commitment, root } = pathFromInclusion(inclusion);
  assert.equal(rootFromPath(w.chain.hasher, commitment, path), root);
  const audit = await client.request('audit', {});
  assert.equal(audit.mints.find((m) => m.mint === BASE_MINT)?.vault, U64_MAX - 1000n);
  const roots = await client.request('getRoots', {});
  assert.equal(roots.trees[0]?.leaf_count, 1n);
  const page = await client.request('getLeaves', { tree_id: 0, from: 0n, limit: 10 });
  assert.equal(page.leaves[0]?.commitment, receipt.commitment);
});

test('slots advance over RPC, and settlement status reads follow', async () => {
  const before = (await client.request('getSlot', {})).slot;
  const after = await client.request('advance', { count: 2 });
  assert.equal(after.slot, before + 2n);
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 20n);
  const record = await client.request('submitSettlement', {
    batch: w.trade(bid, ask, 2n, 300n),
  });
  assert.equal(record.state, 'landed');
  const status = await client.request('getSettlementStatus', { tx_id: record.tx_id });
  assert.equal(status.batch_seq, 0n);
  assert.equal(status.status, 'submitted');
});

test('getSettlementView answers, at one slot, exactly the notes, batches and markets asked', async () => {
  const bid = w.deposit(w.wallet(3), 'quote', 500n);
  const ask = w.deposit(w.wallet(4), 'base', 5n);
  const idle = w.deposit(w.wallet(5), 'base', 7n);
  w.lock([bid, ask], w.chain.slot + 20n);
  const batch = w.trade(bid, ask, 2n, 300n);
  const record = await client.request('submitSettlement', { batch });
  const tag = (held: typeof bid) =>
    w.chain.hasher.noteUseTagHex(held.note.hex.ownerCommitment, held.note.hex.innerHash);
  w.lock([idle], w.chain.slot + 9n);
  const unknownTx = '56'.repeat(32);
  const view = await client.request('getSettlementView', {
    tags: [tag(bid), tag(idle)],
    tx_ids: [record.tx_id, unknownTx],
    market_ids: [w.market.market_id, RECIPIENT],
  });
  assert.equal(view.slot, w.chain.slot);
  assert.equal(view.governance.settlement_signer, w.signer.publicKey);
  assert.deepEqual(
    view.roots,
    Array.from({ length: w.chain.shardCount }, (_, i) => w.chain.currentRoot(i).root),
  );
  assert.deepEqual(
    view.notes.map((n) => [n.note_use_tag, n.consumed_slot, n.lock?.expiry_slot ?? null]),
    [
      [tag(bid), w.chain.slot, null], // consumed by the batch, its lock released
      [tag(idle), null, w.chain.slot + 9n],
    ],
  );
  assert.deepEqual(
    view.settlements.map((entry) => [entry.tx_id, entry.record?.state ?? null]),
    [
      [record.tx_id, 'landed'],
      [unknownTx, null],
    ],
  );
  assert.deepEqual(view.markets, [
    { market_id: w.market.market_id, next_batch_seq: w.chain.market(w.market.market_id).next_batch_seq },
    { market_id: RECIPIENT, next_batch_seq: null },
  ]);
  await assert.rejects(
    client.request('getSettlementView', { tags: Array.from({ length: 4097 }, () => tag(bid)) }),
    (e: unknown) => e instanceof ChainError && e.reason === 'bad_request',
  );
});

test('getSettlementView answers a held batch without the leaves its caller already has', async () => {
  const bid = w.deposit(w.wallet(6), 'quote', 500n);
  const ask = w.deposit(w.wallet(7), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 20n);
  const record = await client.request('submitSettlement', { batch: w.trade(bid, ask, 2n, 300n) });
  assert.equal(record.state, 'landed');
  assert.ok((record.appended?.length ?? 0) > 0, 'a landing appends leaves');
  const unknownTx = '57'.repeat(32);
  const view = await client.request('getSettlementView', {
    tx_ids: [record.tx_id],
    held_tx_ids: [record.tx_id, unknownTx],
  });
  const { appended, ...brief } = record;
  assert.ok(appended !== undefined);
  assert.deepEqual(view.settlements, [
    { tx_id: record.tx_id, record },
    { tx_id: record.tx_id, record: brief },
    { tx_id: unknownTx, record: null },
  ]);
  // Held ids count toward the same bound as the other keys.
  await assert.rejects(
    client.request('getSettlementView', {
      tx_ids: Array.from({ length: 2048 }, () => record.tx_id),
      held_tx_ids: Array.from({ length: 2049 }, () => record.tx_id),
    }),
    (e: unknown) => e instanceof ChainError && e.reason === 'bad_request',
  );
});

test('rejections come back as the errors they were, with codes', async () => {
  await assert.rejects(
    client.request('getInclusion', { tree_id: 0, commitment: '12'.repeat(32) }),
    (e: unknown) => e instanceof VenueError && e.errorName === 'NOTE_NOT_FOUND',
  );
  await assert.rejects(
    client.request('getSettlementStatus', { tx_id: '34'.repeat(32) }),
    (e: unknown) => e instanceof VenueError && e.errorName === 'SETTLEMENT_NOT_FOUND',
  );
  const raw = await post(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getMarket', params: { market_id: '1'.repeat(32) } }),
  );
  assert.equal(raw.error.code, REJECTION_CODES.not_found);
  assert.equal((await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'nope' }))).error.code, -32601);
  assert.equal((await post('{"jsonrpc":"2.0",')).error.code, -32700);
  assert.equal(
    (await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'advance', params: { count: 1.5 } }))).error
      .code,
    REJECTION_CODES.bad_request,
  );
});

test('a body over the limit is refused with 413 without being parsed', async () => {
  const response = await fetch(server.url, { method: 'POST', body: 'x'.repeat(RPC_BODY_BYTES_MAX + 1) });
  assert.equal(response.status, 413);
  assert.equal((await fetch(server.url)).status, 405);
});

test('the standalone process prints READY with its URL and serves requests', async () => {
  const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0', '--manual'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const match = /^READY (http:\/\/\S+)/.exec(line.toString());
    assert.ok(match?.[1], `unexpected first line ${line.toString()}`);
    const remote = new RpcCaller(match[1]);
    assert.equal((await remote.request('advance', { count: 3 })).slot, 3n);
    assert.equal((await remote.request('getRoots', {})).trees.length, 4);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

async function post(body: string): Promise<{ error: { code: number } }> {
  const reply = await client.post(body);
  assert.ok(reply.error !== undefined, 'an error reply');
  return { error: reply.error };
}
