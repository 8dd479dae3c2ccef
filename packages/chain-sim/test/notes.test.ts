// Withdraw and merge: only the note's spend authority with the note's opening may spend it, a
// consumed entry blocks any second spend, and a lock blocks both until its expiry slot has passed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldToHex } from '@venue/notes';
import { ChainError, type ChainRejection, signMerge, signWithdraw } from '../src/index.ts';
import { type HeldNote, RECIPIENT, type Wallet, world } from './fixtures.ts';

const rejected = (reason: ChainRejection) => (error: unknown) =>
  error instanceof ChainError && error.reason === reason;

function spend(held: HeldNote) {
  return {
    tree_id: held.treeId,
    commitment: held.note.hex.commitment,
    owner_commitment: held.note.hex.ownerCommitment,
    note_inner_hash: held.note.hex.innerHash,
    value: held.note.value,
  };
}

const withdrawal = (held: HeldNote, wallet: Wallet) =>
  signWithdraw({ ...spend(held), recipient: RECIPIENT }, wallet.authority);

test('the owner withdraws a note once; the vault pays out and the consumed entry blocks a second spend', async () => {
  const { chain, wallet, deposit } = await world();
  const alice = wallet(1);
  const held = deposit(alice, 'base', 70n);
  const receipt = chain.withdraw(withdrawal(held, alice));
  assert.equal(receipt.value, 70n);
  assert.equal(chain.audit().get(receipt.mint)?.vault, 0n);
  assert.equal(chain.consumedEntry(held.note.hex.noteUseTag)?.by, 'withdraw');
  assert.throws(() => chain.withdraw(withdrawal(held, alice)), rejected('note_consumed'));
});

test('another key, a wrong opening or a tampered request cannot withdraw', async () => {
  const { chain, wallet, deposit } = await world();
  const alice = wallet(1);
  const held = deposit(alice, 'base', 70n);
  assert.throws(() => chain.withdraw(withdrawal(held, wallet(2))), rejected('unauthorized'));
  const request = withdrawal(held, alice);
  assert.throws(() => chain.withdraw({ ...request, value: 69n }), rejected('unauthorized'));
  assert.throws(
    () => chain.withdraw({ ...request, recipient: '11111111111111111111111111111111' }),
    rejected('unauthorized'),
  );
  assert.throws(() => chain.withdraw({ ...request, signature: 'zz' }), rejected('bad_request'));
  assert.equal(chain.consumedEntry(held.note.hex.noteUseTag), undefined);
});

test('merge combines notes of one owner and asset into one note of the summed value', async () => {
  const { chain, wallet, deposit } = await world();
  const alice = wallet(1);
  const a = deposit(alice, 'quote', 40n);
  const b = deposit(alice, 'quote', 2n, 1);
  const receipt = chain.merge(
    signMerge(
      { inputs: [spend(a), spend(b)], output: { tree_id: 0, blinding: fieldToHex(77n) } },
      alice.authority,
    ),
  );
  assert.equal(
    chain.hasher.commitment(alice.owner, chain.hasher.innerHash(a.note.assetId, 77n), 42n),
    BigInt(`0x${receipt.commitment}`),
  );
  assert.ok(chain.consumedEntry(a.note.hex.noteUseTag) && chain.consumedEntry(b.note.hex.noteUseTag));
  const mixed = deposit(alice, 'base', 1n);
  const c = deposit(alice, 'quote', 1n);
  assert.throws(
    () =>
      chain.merge(
        signMerge(
          { inputs: [spend(c), spend(mixed)], output: { tree_id: 0, blinding: fieldToHex(78n) } },
          alice.authority,
        ),
      ),
    rejected('bad_request'),
  );
});

test('a live lock blocks withdraw and merge through its expiry slot, and nothing after it', async () => {
  const { chain, wallet, deposit, lock } = await world();
  const alice = wallet(1);
  const a = deposit(alice, 'quote', 40n);
  const b = deposit(alice, 'quote', 2n);
  lock([a], chain.slot + 2n);
  const merged = () =>
    signMerge(
      { inputs: [spend(a), spend(b)], output: { tree_id: 0, blinding: fieldToHex(79n) } },
      alice.authority,
    );
  for (let i = 0; i < 3; i++) {
    assert.throws(() => chain.withdraw(withdrawal(a, alice)), rejected('note_locked'), `slot ${chain.slot}`);
    assert.throws(() => chain.merge(merged()), rejected('note_locked'));
    if (i < 2) chain.advance();
  }
  chain.advance();
  assert.equal(chain.isLocked(a.note.hex.noteUseTag), false);
  chain.merge(merged());
});

test('locks are placed by the settlement signer only, never on consumed notes, never across markets', async () => {
  const { chain, wallet, deposit, lock, authority } = await world();
  const alice = wallet(1);
  const held = deposit(alice, 'base', 5n);
  assert.throws(() => lock([held], chain.slot + 5n, undefined, authority), rejected('signer_rejected'));
  assert.throws(() => lock([held], chain.slot), rejected('bad_request'));
  lock([held], chain.slot + 5n);
  lock([held], chain.slot + 6n); // the same market may extend its own lock
  assert.equal(chain.lock(held.note.hex.noteUseTag)?.expiry_slot, chain.slot + 6n);
  const spent = deposit(alice, 'base', 6n);
  chain.withdraw(withdrawal(spent, alice));
  assert.throws(() => lock([spent], chain.slot + 5n), rejected('note_consumed'));
});
