// Withdraw and merge without openings (docs/chain-sim.md section 10): only the note's owner, with a
// VALID_SPEND proof for exactly this request and the spend authority's signature, may spend it; a
// withdraw may keep change and a merge joins notes, both into opaque leaves; a consumed entry blocks
// any second spend, and a lock blocks both until its expiry slot has passed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSpendProver, fieldToHex, signWithdrawMessage } from '@venue/notes';
import { ChainError, type ChainEvent, type ChainRejection, signMerge } from '../src/index.ts';
import { BASE_MINT, QUOTE_MINT, type Wallet, world } from './fixtures.ts';

const rejected = (reason: ChainRejection) => (error: unknown) =>
  error instanceof ChainError && error.reason === reason;

const resigned = <R extends { signature: string }>(
  request: R,
  wallet: Wallet,
  sign: (r: R, w: Wallet) => string,
) => ({
  ...request,
  signature: sign(request, wallet),
});
const signWithdraw = (request: Parameters<typeof signWithdrawMessage>[0], wallet: Wallet) =>
  signWithdrawMessage(request, wallet.authority);

test('the owner withdraws a note once; the vault pays out, the consumed event fires, a second spend is refused', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const held = w.deposit(alice, 'base', 70n);
  const events: ChainEvent[] = [];
  w.chain.onEvent((event) => events.push(event));
  const { request } = await w.withdrawal(alice, held);
  // Nothing of the opening travels: no owner commitment, inner hash or blinding.
  assert.deepEqual(Object.keys(request).sort(), [
    'commitment',
    'mint',
    'note_use_tag',
    'proof',
    'recipient',
    'signature',
    'tree_id',
    'value',
  ]);
  const receipt = w.chain.withdraw(request);
  assert.equal(receipt.value, 70n);
  assert.equal(receipt.change, undefined);
  assert.equal(w.chain.audit().get(receipt.mint)?.vault, 0n);
  assert.equal(w.chain.consumedEntry(held.note.hex.noteUseTag)?.by, 'withdraw');
  assert.ok(events.some((e) => e.kind === 'consumed' && e.note_use_tags.includes(held.note.hex.noteUseTag)));
  assert.throws(() => w.chain.withdraw(request), rejected('note_consumed'));
});

test('another key, a tampered request or a proof for another request cannot withdraw', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const held = w.deposit(alice, 'base', 70n);
  const other = w.deposit(alice, 'base', 5n);
  const { request } = await w.withdrawal(alice, held);
  assert.throws(
    () => w.chain.withdraw(resigned(request, w.wallet(2), signWithdraw)),
    rejected('unauthorized'),
  );
  assert.throws(
    () => w.chain.withdraw({ ...request, value: 69n }),
    rejected('unauthorized'),
    'signature kept',
  );
  // Re-signed by the owner, the changed request still needs a proof for itself.
  const changed = (fields: Partial<typeof request>) =>
    resigned({ ...request, ...fields }, alice, signWithdraw);
  assert.throws(() => w.chain.withdraw(changed({ value: 69n })), rejected('proof_invalid'));
  assert.throws(() => w.chain.withdraw(changed({ value: 71n })), rejected('proof_invalid'));
  assert.throws(
    () => w.chain.withdraw(changed({ recipient: '11111111111111111111111111111111' })),
    rejected('proof_invalid'),
  );
  assert.throws(() => w.chain.withdraw(changed({ mint: QUOTE_MINT })), rejected('bad_request'));
  assert.throws(
    () => w.chain.withdraw(changed({ note_use_tag: other.note.hex.noteUseTag })),
    rejected('unauthorized'),
  );
  assert.throws(() => w.chain.withdraw(changed({ proof: '00'.repeat(256) })), rejected('proof_invalid'));
  // Another owner's proof names its own note, which is not a leaf.
  const mallory = await w.withdrawal(w.wallet(2), held);
  assert.throws(() => w.chain.withdraw(mallory.request), rejected('not_found'));
  assert.throws(() => w.chain.withdraw({ ...request, signature: 'zz' }), rejected('bad_request'));
  assert.equal(w.chain.consumedEntry(held.note.hex.noteUseTag), undefined);
  w.chain.withdraw(request);
});

test('a withdraw keeps change as an opaque note, which its owner withdraws in turn', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const held = w.deposit(alice, 'quote', 100n);
  const first = await w.withdrawal(alice, held, { value: 30n, changeTree: 1 });
  const receipt = w.chain.withdraw(first.request);
  assert.equal(receipt.value, 30n);
  const change = first.output;
  assert.ok(change && receipt.change);
  assert.equal(change.note.value, 70n);
  assert.equal(receipt.change.commitment, change.note.hex.commitment);
  assert.equal(receipt.change.tree_id, 1);
  // The chain holds the change as a bare commitment: the audit cannot value it until revealed.
  assert.equal(w.chain.audit().get(QUOTE_MINT)?.hidden, 1);
  const second = await w.withdrawal(alice, change);
  assert.equal(w.chain.withdraw(second.request).value, 70n);
  assert.equal(w.chain.audit().get(QUOTE_MINT)?.vault, 0n);
});

test('merge joins notes of one owner and asset into one opaque note of their sum', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const a = w.deposit(alice, 'quote', 40n);
  const b = w.deposit(alice, 'quote', 2n, 1);
  const events: ChainEvent[] = [];
  w.chain.onEvent((event) => events.push(event));
  const merged = await w.merging(alice, [a, b]);
  const receipt = w.chain.merge(merged.request);
  assert.deepEqual(receipt.consumed, [a.note.hex.noteUseTag, b.note.hex.noteUseTag]);
  assert.equal(receipt.output.commitment, merged.output?.note.hex.commitment);
  assert.equal(merged.output?.note.value, 42n);
  assert.ok(w.chain.consumedEntry(a.note.hex.noteUseTag) && w.chain.consumedEntry(b.note.hex.noteUseTag));
  assert.ok(events.some((e) => e.kind === 'consumed' && e.note_use_tags.length === 2));
  assert.ok(merged.output);
  assert.equal(w.chain.withdraw((await w.withdrawal(alice, merged.output)).request).value, 42n);
});

test('a merge across assets, of a note twice, or re-pointed at another note is refused', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const c = w.deposit(alice, 'quote', 1n);
  const d = w.deposit(alice, 'quote', 3n);
  const mixed = w.deposit(alice, 'base', 1n);
  const { request } = await w.merging(alice, [c, d]);
  const [first] = request.inputs;
  assert.ok(first);
  const sign = (r: typeof request) => signMerge(r, alice.authority);
  const across = {
    tree_id: 0,
    commitment: mixed.note.hex.commitment,
    note_use_tag: mixed.note.hex.noteUseTag,
  };
  assert.throws(() => w.chain.merge(sign({ ...request, inputs: [first, across] })), rejected('bad_request'));
  assert.throws(() => w.chain.merge(sign({ ...request, inputs: [first, first] })), rejected('bad_request'));
  const e = w.deposit(alice, 'quote', 3n);
  const repointed = { tree_id: 0, commitment: e.note.hex.commitment, note_use_tag: e.note.hex.noteUseTag };
  assert.throws(
    () => w.chain.merge(sign({ ...request, inputs: [first, repointed] })),
    rejected('proof_invalid'),
  );
  const output = { tree_id: 0, commitment: fieldToHex(12345n) };
  assert.throws(() => w.chain.merge(sign({ ...request, output })), rejected('proof_invalid'));
  w.chain.merge(request);
});

test('a live lock blocks withdraw and merge through its expiry slot, and nothing after it', async () => {
  const w = await world();
  const alice = w.wallet(1);
  const a = w.deposit(alice, 'quote', 40n);
  const b = w.deposit(alice, 'quote', 2n);
  w.lock([a], w.chain.slot + 2n);
  const withdrawn = (await w.withdrawal(alice, a)).request;
  const merged = (await w.merging(alice, [a, b])).request;
  for (let i = 0; i < 3; i++) {
    assert.throws(() => w.chain.withdraw(withdrawn), rejected('note_locked'), `slot ${w.chain.slot}`);
    assert.throws(() => w.chain.merge(merged), rejected('note_locked'));
    if (i < 2) w.chain.advance();
  }
  w.chain.advance();
  assert.equal(w.chain.isLocked(a.note.hex.noteUseTag), false);
  w.chain.merge(merged);
});

test('locks are placed by the settlement signer only, never on consumed notes, never across markets', async () => {
  const { chain, wallet, deposit, lock, authority, withdrawal } = await world();
  const alice = wallet(1);
  const held = deposit(alice, 'base', 5n);
  assert.throws(() => lock([held], chain.slot + 5n, undefined, authority), rejected('signer_rejected'));
  assert.throws(() => lock([held], chain.slot), rejected('bad_request'));
  lock([held], chain.slot + 5n);
  lock([held], chain.slot + 6n); // the same market may extend its own lock
  assert.equal(chain.lock(held.note.hex.noteUseTag)?.expiry_slot, chain.slot + 6n);
  const spent = deposit(alice, 'base', 6n);
  chain.withdraw((await withdrawal(alice, spent)).request);
  assert.throws(() => lock([spent], chain.slot + 5n), rejected('note_consumed'));
});

test('a groth16 chain takes real VALID_SPEND proofs (a withdraw with change, a merge) and refuses stand-in ones', async () => {
  const w = await world({ matchProofs: 'groth16' });
  const alice = w.wallet(1);
  const a = w.deposit(alice, 'base', 50n);
  const b = w.deposit(alice, 'base', 25n);
  const standIn = await w.withdrawal(alice, a, { value: 10n });
  assert.throws(() => w.chain.withdraw(standIn.request), rejected('proof_invalid'));
  const prover = await createSpendProver();
  try {
    w.spender = prover;
    const withdrawn = await w.withdrawal(alice, a, { value: 10n });
    assert.equal(w.chain.withdraw(withdrawn.request).value, 10n);
    assert.ok(withdrawn.output);
    const merged = await w.merging(alice, [withdrawn.output, b]);
    w.chain.merge(merged.request);
    assert.equal(merged.output?.note.value, 65n);
    assert.equal(w.chain.audit().get(BASE_MINT)?.vault, 65n);
  } finally {
    await prover.close();
  }
});
