// The note model: derived hashes, the change and fill notes of a partial fill, asset ids and the
// trading-key binding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isVenueError } from '@venue/protocol';
import {
  assetIdOfMint,
  bindingOfTradingKey,
  createNote,
  deriveChangeNote,
  deriveFillNote,
  deriveNote,
  FIELD_MODULUS,
  fieldToHex,
  loadNoteHasher,
  spentMint,
} from '../src/index.ts';

const hasher = await loadNoteHasher();
const BASE_MINT = 'So11111111111111111111111111111111111111112';
const QUOTE_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const owner = hasher.ownerCommitment(777n);

test('a note derives its inner hash, commitment and tag from its four fields', () => {
  const note = deriveNote(hasher, { ownerCommitment: owner, assetId: 3n, blinding: 4n, value: 50n });
  assert.equal(note.innerHash, hasher.innerHash(3n, 4n));
  assert.equal(note.commitment, hasher.commitment(owner, note.innerHash, 50n));
  assert.equal(note.noteUseTag, hasher.noteUseTag(owner, note.innerHash));
  assert.equal(note.hex.commitment, fieldToHex(note.commitment));
  assert.equal(note.hex.ownerCommitment, fieldToHex(owner));
});

test('the inner hash and the tag do not depend on the value; the commitment does', () => {
  const a = deriveNote(hasher, { ownerCommitment: owner, assetId: 3n, blinding: 4n, value: 50n });
  const b = deriveNote(hasher, { ownerCommitment: owner, assetId: 3n, blinding: 4n, value: 51n });
  assert.equal(a.innerHash, b.innerHash);
  assert.equal(a.noteUseTag, b.noteUseTag);
  assert.notEqual(a.commitment, b.commitment);
});

test('fresh notes get distinct random blindings, so equal deposits are distinct notes', () => {
  const fields = { ownerCommitment: owner, assetId: 3n, value: 50n };
  const a = createNote(hasher, fields);
  const b = createNote(hasher, fields);
  assert.notEqual(a.blinding, b.blinding);
  assert.notEqual(a.commitment, b.commitment);
  assert.notEqual(a.noteUseTag, b.noteUseTag);
});

test('the venue derives the change note from the order alone, and the owner derives the same note', () => {
  const assetId = assetIdOfMint(QUOTE_MINT);
  const parent = createNote(hasher, { ownerCommitment: owner, assetId, value: 1000n });
  // The venue sees only the order's owner_commitment and note_inner_hash.
  const venueView = { ownerCommitment: parent.hex.ownerCommitment, innerHash: parent.hex.innerHash };
  const change = deriveChangeNote(hasher, venueView, assetId, 400n);
  // The owner knows its note's opening and recomputes the change blinding itself.
  const ownerView = deriveNote(hasher, {
    ownerCommitment: owner,
    assetId,
    blinding: hasher.poseidon([36n, parent.innerHash]),
    value: 400n,
  });
  assert.equal(change.commitment, ownerView.commitment);
  assert.equal(change.ownerCommitment, owner, 'the change stays with the owner');
  assert.equal(change.value, 400n);
  assert.notEqual(change.noteUseTag, parent.noteUseTag, 'spending the parent does not consume the change');
});

test('the change note and the fill note of one parent are distinct notes', () => {
  const parent = createNote(hasher, {
    ownerCommitment: owner,
    assetId: assetIdOfMint(QUOTE_MINT),
    value: 1000n,
  });
  const view = { ownerCommitment: parent.hex.ownerCommitment, innerHash: parent.hex.innerHash };
  const change = deriveChangeNote(hasher, view, assetIdOfMint(QUOTE_MINT), 10n);
  const fill = deriveFillNote(hasher, view, assetIdOfMint(QUOTE_MINT), 10n);
  assert.notEqual(change.blinding, fill.blinding);
  assert.notEqual(change.commitment, fill.commitment);
  const received = deriveFillNote(hasher, view, assetIdOfMint(BASE_MINT), 10n);
  assert.equal(received.assetId, assetIdOfMint(BASE_MINT));
  assert.equal(received.blinding, fill.blinding, 'one fill blinding per parent, whatever the asset');
});

test('a chain of partial fills never repeats a note', () => {
  const assetId = assetIdOfMint(BASE_MINT);
  let note = createNote(hasher, { ownerCommitment: owner, assetId, value: 100n });
  const seen = new Set([note.commitment]);
  for (let value = 90n; value > 0n; value -= 10n) {
    note = deriveChangeNote(
      hasher,
      { ownerCommitment: note.hex.ownerCommitment, innerHash: note.hex.innerHash },
      assetId,
      value,
    );
    assert.ok(!seen.has(note.commitment));
    seen.add(note.commitment);
  }
});

test('asset ids are fixed per mint, distinct, and field elements; a bad mint is refused', () => {
  const base = assetIdOfMint(BASE_MINT);
  assert.equal(base, assetIdOfMint(BASE_MINT));
  assert.notEqual(base, assetIdOfMint(QUOTE_MINT));
  assert.ok(base < FIELD_MODULUS && base < 1n << 253n);
  assert.throws(
    () => assetIdOfMint('0OIl'),
    (e) => isVenueError(e) && e.errorName === 'INVALID_FORMAT',
  );
  assert.equal(spentMint('bid', { baseMint: BASE_MINT, quoteMint: QUOTE_MINT }), QUOTE_MINT);
  assert.equal(spentMint('ask', { baseMint: BASE_MINT, quoteMint: QUOTE_MINT }), BASE_MINT);
});

test('the binding depends on the trading key and is a field element', () => {
  const a = bindingOfTradingKey('11'.repeat(32));
  assert.equal(a, bindingOfTradingKey('11'.repeat(32)));
  assert.notEqual(a, bindingOfTradingKey('12'.repeat(32)));
  assert.ok(a < 1n << 253n);
  assert.throws(
    () => bindingOfTradingKey('11'),
    (e) => isVenueError(e) && e.errorName === 'INVALID_HEX',
  );
});
