// The settlement worker (workers/settlement-pool.ts) computes what the sequencer's thread would:
// the same leg hashes, the same signed batch and tx_id, the same JSON-RPC text and decoded reply.
// Moving the work changes when it happens, never what the pipeline applies.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hashLeg, RemoteSettlementChain, SettlementPool } from '@venue/adapters';
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
  assert.equal(
    await pool.encode({ id: 3n, method: 'getSettlementView', params }),
    chainRequestText(3n, 'getSettlementView', params),
  );
  const text = '{"jsonrpc":"2.0","id":"4","result":{"slot":"12"}}';
  assert.deepEqual(
    await pool.decode({ id: 4n, method: 'getSlot', text, bytesMax: 1 << 20 }),
    readChainReply('getSlot', 4n, text, 1 << 20),
  );
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
