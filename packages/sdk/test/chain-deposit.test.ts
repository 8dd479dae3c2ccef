// The SDK's own deposit and withdraw paths against the chain simulator's real JSON-RPC server: the
// wallet records the opening, sends the deposit bound to the notes package's spend authority, and
// the chain holds exactly that note under that authority; a withdraw proved with VALID_SPEND (no
// opening sent) and signed over the notes package's bytes consumes it on chain and spends it in the
// wallet only on the receipt. A refusal
// comes back as a ChainRpcError with the chain's reason, and an answer that is not a JSON-RPC reply
// to the call is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type ChainSimulator,
  withdrawBytes as chainSimWithdrawBytes,
  createChainSimulator,
  type RpcServer,
  startRpcServer,
  treeReads,
} from '@venue/chain-sim';
import {
  createSpendProver,
  fieldFromHex,
  loadNoteHasher,
  proveWithdraw,
  type SpendProver,
  withdrawBytes,
} from '@venue/notes';
import { testMarket } from '@venue/testing';
import {
  ChainRpcError,
  chainRpcCall,
  KeyFile,
  NoteWallet,
  type TreeReader,
  type WalletNote,
} from '../src/index.ts';

const MINT = testMarket('SOL-USDC').quoteMint;

let chain: ChainSimulator;
let rpc: RpcServer;
let dir: string;
let keyFile: KeyFile;
let prover: SpendProver;

before(async () => {
  prover = await createSpendProver();
  chain = await createChainSimulator({ shards: 2 });
  rpc = await startRpcServer(chain);
  dir = mkdtempSync(join(tmpdir(), 'chain-deposit-'));
  keyFile = await KeyFile.create(join(dir, 'key.json'));
});
after(async () => {
  await prover.close();
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
    const { request: withdrawal } = await proveWithdraw(prover, {
      spendingKey: keyFile.spendingKey(),
      mint: MINT,
      note: { tree_id: 1, blinding: fieldFromHex(note.blinding, 'blinding'), value: note.value },
      value: note.value,
      recipient: 'Recipient1111111111111111111111111111111111',
    });
    assert.equal(chain.withdraw(withdrawal).value, 1234n);
  } finally {
    wallet.close();
  }
});

test('a chain refusal is a ChainRpcError with the chain’s reason, and the wallet forgets the note for good', async () => {
  const state = join(dir, 'refused');
  const wallet = await NoteWallet.open(keyFile, state);
  try {
    await assert.rejects(
      wallet.depositVia(rpc.url, { mint: MINT, value: 5n, treeId: 7 }), // the chain has 2 shards
      (error) =>
        error instanceof ChainRpcError &&
        error.reason === 'not_found' &&
        /deposit failed \(not_found\): tree_id 7/.test(error.message),
    );
    assert.deepEqual(wallet.notes(), [], 'no pending value is left behind by a deposit that never happened');
  } finally {
    wallet.close();
  }
  const reopened = await NoteWallet.open(keyFile, state);
  try {
    assert.deepEqual(reopened.notes(), [], 'the sealed log says the same after a restart');
  } finally {
    reopened.close();
  }
});

test('only a deposit still pending can be forgotten: a note the tree holds is refused', async () => {
  const wallet = await NoteWallet.open(keyFile, null);
  try {
    const note = await spendableNote(wallet, 9n);
    assert.throws(() => wallet.forgetRefusedDeposit(note.commitment), { name: 'NoteStateError' });
    assert.equal(wallet.note(note.commitment)?.status, 'spendable', 'nothing changed');
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

const RECIPIENT = 'Recipient1111111111111111111111111111111111';

/** The chain's tree reads in the venue's shapes: what a scan through the venue would see. */
function chainTrees(): TreeReader {
  const reads = treeReads(chain);
  return {
    treeRoots: async () => reads.roots().trees,
    treeLeaves: async (treeId, from, limit = 1000) => reads.leaves(treeId, from, limit),
    treeInclusion: async (treeId, commitment) => reads.inclusion(treeId, commitment),
  };
}

/** A deposited note the wallet has seen as a leaf: spendable. */
async function spendableNote(wallet: NoteWallet, value: bigint): Promise<WalletNote> {
  const { note } = await wallet.depositVia(rpc.url, { mint: MINT, value });
  await wallet.scan(chainTrees());
  assert.equal(wallet.note(note.commitment)?.status, 'spendable');
  return note;
}

const useTagOf = async (note: WalletNote) =>
  (await loadNoteHasher()).noteUseTagHex(keyFile.publicParts.owner_commitment, note.inner_hash);

test('the withdraw bytes have one implementation, in the notes package, and a fixed layout', () => {
  assert.equal(chainSimWithdrawBytes, withdrawBytes, 'chain-sim re-exports the notes package’s function');
  const bytes = withdrawBytes({
    tree_id: 3,
    commitment: '01'.repeat(32),
    note_use_tag: '02'.repeat(32),
    mint: MINT,
    value: 0x0102030405060708n,
    recipient: RECIPIENT,
    change: { tree_id: 4, commitment: '03'.repeat(32) },
    proof: '0f'.repeat(256),
  });
  const expected = Buffer.concat([
    Buffer.from('venue-chain-withdraw-v2\u0000', 'ascii'),
    Buffer.from([3]),
    Buffer.from('01'.repeat(32) + '02'.repeat(32), 'hex'),
    Buffer.from([MINT.length]),
    Buffer.from(MINT, 'ascii'),
    Buffer.from('0102030405060708', 'hex'),
    Buffer.from([RECIPIENT.length]),
    Buffer.from(RECIPIENT, 'ascii'),
    Buffer.from([1, 4]),
    Buffer.from('03'.repeat(32) + '0f'.repeat(256), 'hex'),
  ]);
  assert.equal(Buffer.from(bytes).toString('hex'), expected.toString('hex'));
});

test('withdrawVia consumes the note on chain and spends it in the wallet, durably', async () => {
  const stateDir = join(dir, 'withdraw-state');
  const wallet = await NoteWallet.open(keyFile, stateDir);
  let note: WalletNote;
  try {
    note = await spendableNote(wallet, 777n);
    const { note: spent, receipt } = await wallet.withdrawVia(rpc.url, {
      commitment: note.commitment,
      recipient: RECIPIENT,
    });
    assert.equal(spent.status, 'spent');
    assert.deepEqual([receipt.value, receipt.recipient, receipt.mint], [777n, RECIPIENT, MINT]);
    assert.equal(chain.consumedEntry(receipt.note_use_tag)?.by, 'withdraw');
    assert.equal(wallet.pick(MINT, 777n)?.commitment === note.commitment, false);
    wallet.validate();
  } finally {
    wallet.close();
  }
  const reopened = await NoteWallet.open(keyFile, stateDir);
  try {
    assert.equal(reopened.note(note.commitment)?.status, 'spent', 'the sealed log kept the spend');
  } finally {
    reopened.close();
  }
});

test('a note reserved by an open order is refused locally, and nothing reaches the chain', async () => {
  const wallet = await NoteWallet.open(keyFile, null);
  try {
    const note = await spendableNote(wallet, 50n);
    wallet.reserve(note.commitment, 'order-open-1');
    await assert.rejects(
      wallet.withdrawVia(rpc.url, { commitment: note.commitment, recipient: RECIPIENT }),
      /reserved by order order-open-1; it cannot be withdrawn/,
    );
    assert.equal(chain.consumedEntry(await useTagOf(note)), undefined);
    assert.equal(wallet.note(note.commitment)?.status, 'reserved');
  } finally {
    wallet.close();
  }
});

test('a chain refusal leaves the note spendable and usable, and a later withdraw succeeds', async () => {
  const wallet = await NoteWallet.open(keyFile, null);
  try {
    const note = await spendableNote(wallet, 60n);
    await assert.rejects(
      wallet.withdrawVia(rpc.url, { commitment: note.commitment, recipient: 'not a base58 address' }),
      (error) => error instanceof ChainRpcError && error.reason === 'bad_request',
    );
    const after = wallet.note(note.commitment);
    assert.equal(after?.status, 'spendable');
    assert.equal(after?.withdraw_to, undefined);
    assert.equal(wallet.pick(MINT, 60n)?.commitment, note.commitment, 'an order may use it again');
    const { receipt } = await wallet.withdrawVia(rpc.url, {
      commitment: note.commitment,
      recipient: RECIPIENT,
    });
    assert.equal(chain.consumedEntry(receipt.note_use_tag)?.by, 'withdraw');
  } finally {
    wallet.close();
  }
});

test('after a transport failure the note backs no order until resolveWithdrawals asks the chain', async () => {
  // A proxy that forwards each request to the chain and loses the first reply.
  let lose = true;
  const proxy = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const reply = await fetch(rpc.url, { method: 'POST', body: Buffer.concat(chunks) });
    const text = await reply.text();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(lose ? 'lost' : text);
    lose = false;
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
  const wallet = await NoteWallet.open(keyFile, null);
  try {
    const landed = await spendableNote(wallet, 70n);
    const unsent = await spendableNote(wallet, 71n);
    await assert.rejects(
      wallet.withdrawVia(proxyUrl, { commitment: landed.commitment, recipient: RECIPIENT }),
      (error) => error instanceof ChainRpcError && error.reason === 'transport',
    );
    // A port just closed: the second withdraw never reaches the chain.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(
      wallet.withdrawVia(closedUrl, { commitment: unsent.commitment, recipient: RECIPIENT }),
      (error) => error instanceof ChainRpcError && error.reason === 'transport',
    );
    for (const note of [landed, unsent]) {
      assert.equal(wallet.note(note.commitment)?.withdraw_to, RECIPIENT);
      assert.throws(() => wallet.reserve(note.commitment, 'order-x'), /being withdrawn/);
    }
    assert.equal(wallet.pick(MINT, 70n), undefined, 'no order takes a note whose withdraw may have landed');
    const { spent, freed } = await wallet.resolveWithdrawals(proxyUrl);
    assert.deepEqual(
      spent.map((n) => n.commitment),
      [landed.commitment],
    );
    assert.deepEqual(
      freed.map((n) => n.commitment),
      [unsent.commitment],
    );
    assert.equal(wallet.note(landed.commitment)?.status, 'spent');
    assert.equal(wallet.pick(MINT, 71n)?.commitment, unsent.commitment);
    wallet.validate();
  } finally {
    wallet.close();
    proxy.close();
  }
});
