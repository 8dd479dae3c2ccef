// The SDK's own deposit path against the chain simulator's real JSON-RPC server: the wallet
// records the opening, sends the deposit bound to the notes package's spend authority, and the
// chain holds exactly that note under that authority. A refusal comes back as a ChainRpcError
// with the chain's reason, and an answer that is not a JSON-RPC reply to the call is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type ChainSimulator,
  createChainSimulator,
  type RpcServer,
  signWithdraw,
  startRpcServer,
} from '@venue/chain-sim';
import { spendAuthorityOf } from '@venue/notes';
import { testMarket } from '@venue/testing';
import { ChainRpcError, chainRpcCall, KeyFile, NoteWallet } from '../src/index.ts';

const MINT = testMarket('SOL-USDC').quoteMint;

let chain: ChainSimulator;
let rpc: RpcServer;
let dir: string;
let keyFile: KeyFile;

before(async () => {
  chain = await createChainSimulator({ shards: 2 });
  rpc = await startRpcServer(chain);
  dir = mkdtempSync(join(tmpdir(), 'chain-deposit-'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
});
after(async () => {
  await rpc.close();
  rmSync(dir, { recursive: true, force: true });
});

test('depositVia records the note, and the chain holds it under the key file’s spend authority', async () => {
  const wallet = await NoteWallet.open(keyFile, join(dir, 'state'));
  try {
    const { note, receipt } = await wallet.depositVia(rpc.url, { mint: MINT, value: 1234n, treeId: 1 });
    assert.equal(receipt.commitment, note.commitment);
    assert.equal(receipt.tree_id, 1);
    assert.equal(wallet.note(note.commitment)?.status, 'pending', 'spendable once a scan sees the leaf');
    assert.deepEqual(chain.locate(note.commitment), { tree_id: 1, leaf_index: receipt.leaf_index });
    // Bound to the authority the notes package derives: a withdraw it signs is accepted.
    const withdrawal = signWithdraw(
      {
        tree_id: 1,
        commitment: note.commitment,
        owner_commitment: keyFile.publicParts.owner_commitment,
        note_inner_hash: note.inner_hash,
        value: note.value,
        recipient: 'Recipient1111111111111111111111111111111111',
      },
      spendAuthorityOf(keyFile.spendingKey()),
    );
    assert.equal(chain.withdraw(withdrawal).value, 1234n);
  } finally {
    wallet.close();
  }
});

test('a chain refusal is a ChainRpcError with the chain’s reason', async () => {
  const wallet = await NoteWallet.open(keyFile, null);
  try {
    await assert.rejects(
      wallet.depositVia(rpc.url, { mint: MINT, value: 5n, treeId: 7 }), // the chain has 2 shards
      (error) =>
        error instanceof ChainRpcError &&
        error.reason === 'not_found' &&
        /deposit failed \(not_found\): tree_id 7/.test(error.message),
    );
  } finally {
    wallet.close();
  }
});

test('an answer that is not a JSON-RPC reply to this call is refused as a transport failure', async () => {
  const replies = [
    '{"jsonrpc":"2.0","id":"another","result":{}}',
    '{"jsonrpc":"2.0","result":{}}',
    '{"jsonrpc":"1.0","id":null,"result":{}}',
    'not json',
  ];
  let next = 0;
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(replies[next++]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    for (const _ of replies) {
      await assert.rejects(
        chainRpcCall(url, 'getSlot', {}),
        (error) => error instanceof ChainRpcError && error.reason === 'transport',
      );
    }
  } finally {
    server.close();
  }
});
