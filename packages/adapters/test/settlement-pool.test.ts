// The settlement worker (workers/settlement-pool.ts) computes what the sequencer's thread would:
// the same leg hashes, the same signed batch and tx_id, the same JSON-RPC text and decoded reply.
// Moving the work changes when it happens, never what the pipeline applies.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { hashLeg, RemoteSettlementChain, SETTLEMENT_WORKER_NICE, SettlementPool } from '@venue/adapters';
import { fieldToHex, generateViewingKey, loadNoteHasher, type NoteHasher, openFillMemo } from '@venue/notes';
import { chainRequestText, generateTradingKey, readChainReply } from '@venue/protocol';
import fc from 'fast-check';
import type { ChainRpcClient } from '../src/chain/chain-rpc-client.ts';

const FIELD_BELOW = (1n << 250n) - 1n;
let pool: SettlementPool;
let hasher: NoteHasher;

before(async () => {
  pool = new SettlementPool();
  hasher = await loadNoteHasher();
  await pool.ready();
});
after(() => pool.close());

test('leg hashes made on the worker equal those made on this thread', async () => {
  const field = fc.bigInt({ min: 0n, max: FIELD_BELOW }).map(fieldToHex);
  const amount = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
  const input = fc.record({
    ownerCommitment: field,
    innerHash: field,
    receivedAssetId: fc.bigInt({ min: 0n, max: FIELD_BELOW }),
    receivedValue: amount,
    changeAssetId: fc.bigInt({ min: 0n, max: FIELD_BELOW }),
    changeValue: amount,
  });
  await fc.assert(
    fc.asyncProperty(fc.array(input, { minLength: 1, maxLength: 40 }), async (inputs) => {
      const onWorker = await pool.hashLegs(inputs);
      assert.deepEqual(
        onWorker,
        inputs.map((i) => hashLeg(hasher, i)),
      );
    }),
    { numRuns: 20 },
  );
});

test('a batch signed on the worker has the bytes and the tx_id of one signed on this thread', async () => {
  const signer = generateTradingKey();
  const rpc = {} as ChainRpcClient; // never called: signing reads nothing from the chain
  const here = new RemoteSettlementChain(rpc, signer);
  const there = new RemoteSettlementChain(rpc, signer, { work: pool });
  const unsigned = {
    market_id: 'ab'.repeat(32),
    batch_seq: 7n,
    deadline_slot: 99n,
    match_count: 0,
    legs: [],
  };
  assert.ok(there.signLater !== undefined);
  assert.deepEqual(await there.signLater(unsigned), here.sign(unsigned));
});

test('JSON-RPC text written and replies read on the worker are those of this thread', async () => {
  const params = { tags: ['cd'.repeat(32)], tx_ids: [], market_ids: [] };
  const written = await pool.encode({ id: 3n, method: 'getSettlementView', params });
  assert.equal(new TextDecoder().decode(written), chainRequestText(3n, 'getSettlementView', params));
  const text = '{"jsonrpc":"2.0","id":"4","result":{"slot":"12"}}';
  assert.deepEqual(
    await pool.decode({
      id: 4n,
      method: 'getSlot',
      bytes: new TextEncoder().encode(text),
      bytesMax: 1 << 20,
    }),
    readChainReply('getSlot', 4n, text, 1 << 20),
  );
});

test('any bytes a chain replies with read on the worker as Buffer#toString read them here', async () => {
  const reply = '{"jsonrpc":"2.0","id":"6","result":{"slot":"14"}}';
  // A valid reply, or one spoiled by a byte-order mark, a stray invalid byte, or a cut.
  const bytes = fc
    .tuple(
      fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff]),
      fc.nat({ max: reply.length }),
      fc.uint8Array({ maxLength: 4 }),
    )
    .map(([head, cut, tail]) => Uint8Array.from([...head, ...Buffer.from(reply.slice(0, cut)), ...tail]));
  await fc.assert(
    fc.asyncProperty(bytes, async (raw) => {
      const text = Buffer.from(raw).toString('utf8');
      assert.deepEqual(
        await pool.decode({ id: 6n, method: 'getSlot', bytes: raw.slice(), bytesMax: 1 << 20 }),
        readChainReply('getSlot', 6n, text, 1 << 20),
      );
    }),
    { numRuns: 60 },
  );
});

test("a reply's bytes move to the worker when they own their buffer, and are copied when they share one", async () => {
  const text = '{"jsonrpc":"2.0","id":"5","result":{"slot":"13"}}';
  const expected = readChainReply('getSlot', 5n, text, 1 << 20);
  // Owned (what the RPC client reads a reply into): handed over without a copy, so emptied here.
  const owned = new TextEncoder().encode(text);
  const fromOwned = pool.decode({ id: 5n, method: 'getSlot', bytes: owned, bytesMax: 1 << 20 });
  assert.deepEqual(await fromOwned, expected);
  assert.equal(owned.byteLength, 0, 'the owned bytes were transferred, not cloned');
  // A small Buffer is a slice of Node's shared pool: moving that pool would empty its neighbours.
  const neighbour = Buffer.from('still here');
  const pooled = Buffer.from(text);
  assert.equal(pooled.buffer, neighbour.buffer, 'both slices come from the same pool');
  assert.deepEqual(
    await pool.decode({ id: 5n, method: 'getSlot', bytes: pooled, bytesMax: 1 << 20 }),
    expected,
  );
  assert.equal(pooled.toString(), text);
  assert.equal(neighbour.toString(), 'still here');
});

test("a memo sealed on the worker opens with its owner's viewing key", async () => {
  const viewing = generateViewingKey();
  const context = { orderId: '0f'.repeat(16), matchId: 5n };
  const note = {
    commitment: '01'.repeat(32),
    inner_hash: '02'.repeat(32),
    tree_id: 0,
    amount: 10n,
    mint: 'So11111111111111111111111111111111111111112',
  };
  const plaintext = { fill_quantity: 10n, quote_amount: 15n, clearing_price: 3n, received: note };
  const memo = await pool.sealMemo({ viewingPubkey: viewing.publicKey, context, plaintext });
  assert.deepEqual(openFillMemo(viewing.privateKey, context, memo), plaintext);
});

test('the settlement worker runs below the sequencer: its thread is niced, this one is not (D124)', async (t) => {
  if (process.platform !== 'linux') {
    t.diagnostic('thread priorities are per thread only on Linux');
    return;
  }
  const nice = (tid: string) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: nice is the 19th field of the line.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  };
  const own = nice(String(process.pid));
  const before = new Set(readdirSync('/proc/self/task'));
  const fresh = new SettlementPool();
  try {
    await fresh.ready();
    const started = readdirSync('/proc/self/task').filter((tid) => !before.has(tid));
    const lowered = started.filter((tid) => nice(tid) === Math.min(19, own + SETTLEMENT_WORKER_NICE));
    // The worker's thread, and not the threads Node started for it at its own priority.
    assert.equal(
      lowered.length,
      1,
      `threads started: ${started.map((tid) => `${tid}:${nice(tid)}`).join(' ')}`,
    );
    assert.equal(nice(String(process.pid)), own, 'the calling thread keeps its priority');
    // Its work is unchanged: the same hashes as this thread's.
    const input = {
      ownerCommitment: fieldToHex(1n),
      innerHash: fieldToHex(2n),
      receivedAssetId: 3n,
      receivedValue: 4n,
      changeAssetId: 5n,
      changeValue: 6n,
    };
    assert.deepEqual(await fresh.hashLegs([input]), [hashLeg(hasher, input)]);
  } finally {
    await fresh.close();
  }
});
