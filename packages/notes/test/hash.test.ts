// The note hashes: circomlib's published Poseidon vectors, the wire encoding of field elements,
// and the core's injected noteCommitment contract.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isVenueError } from '@venue/protocol';
import fc from 'fast-check';
import {
  DOMAIN,
  FIELD_MODULUS,
  fieldFromHex,
  fieldToHex,
  loadNoteHasher,
  randomFieldElement,
} from '../src/index.ts';

const hasher = await loadNoteHasher();

function venueCode(name: string): (error: unknown) => boolean {
  return (error) => isVenueError(error) && error.errorName === name;
}

test('Poseidon matches the circomlib test vectors (circomlibjs test/poseidon.js)', () => {
  assert.equal(
    hasher.poseidon([1n, 2n]),
    0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189an,
  );
  assert.equal(
    hasher.poseidon([1n, 2n, 3n]),
    0x0e7732d89e6939c0ff03d5e58dab6302f3230e269dc5b968f725df34ab36d732n,
  );
  assert.equal(
    hasher.poseidon([1n, 2n, 3n, 4n]),
    0x299c867db6c1fdd79dcefa40e4510b9837e60ebb1ce0663dbaa525df65250465n,
  );
  assert.equal(
    hasher.poseidon([0n, 0n]),
    0x2098f5fb9e239eab3ceac3f27b81e481dc3124d55ffed523a839ee8446b64864n,
  );
});

test('loadNoteHasher returns one shared hasher', async () => {
  assert.equal(await loadNoteHasher(), hasher);
});

test('each note hash is Poseidon over its domain constant, 32 for the owner commitment', () => {
  const key = 12345n;
  assert.equal(DOMAIN.owner, 32n);
  assert.equal(hasher.ownerCommitment(key), hasher.poseidon([32n, key]));
  assert.equal(hasher.innerHash(7n, 9n), hasher.poseidon([33n, 7n, 9n]));
  assert.equal(hasher.commitment(1n, 2n, 3n), hasher.poseidon([34n, 1n, 2n, 3n]));
  assert.equal(hasher.noteUseTag(1n, 2n), hasher.poseidon([35n, 1n, 2n]));
  assert.equal(hasher.merkleNode(1n, 2n), hasher.poseidon([1n, 2n]));
  const domains = Object.values(DOMAIN);
  assert.equal(new Set(domains).size, domains.length, 'domain constants are distinct');
});

test('Poseidon refuses inputs outside the field instead of reducing them', () => {
  assert.throws(() => hasher.poseidon([FIELD_MODULUS]), venueCode('OUT_OF_RANGE'));
  assert.throws(() => hasher.poseidon([-1n]), venueCode('OUT_OF_RANGE'));
  assert.throws(() => hasher.poseidon([]), /1 to 16 inputs/);
});

test('field elements are 64 lowercase hex characters, big-endian, below the modulus', () => {
  assert.equal(fieldToHex(1n), `${'0'.repeat(63)}1`);
  assert.equal(fieldFromHex(`${'0'.repeat(62)}0102`.slice(-64), 'x'), 0x0102n);
  assert.equal(fieldFromHex(fieldToHex(FIELD_MODULUS - 1n), 'x'), FIELD_MODULUS - 1n);
  assert.throws(
    () => fieldFromHex(FIELD_MODULUS.toString(16).padStart(64, '0'), 'owner_commitment'),
    (e) => {
      assert.ok(venueCode('OUT_OF_RANGE')(e));
      assert.match(String(e), /owner_commitment/);
      return true;
    },
  );
  assert.throws(() => fieldFromHex('AB'.repeat(32), 'merkle_root'), venueCode('INVALID_HEX'));
  assert.throws(() => fieldFromHex('ab'.repeat(31), 'merkle_root'), venueCode('INVALID_HEX'));
  assert.throws(() => fieldToHex(FIELD_MODULUS), venueCode('OUT_OF_RANGE'));
});

test('field encoding round-trips every element (property)', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: FIELD_MODULUS - 1n }), (value) => {
      const hex = fieldToHex(value);
      assert.match(hex, /^[0-9a-f]{64}$/);
      assert.equal(fieldFromHex(hex, 'x'), value);
    }),
  );
});

test('random field elements are in range and differ', () => {
  const values = Array.from({ length: 64 }, randomFieldElement);
  assert.ok(values.every((v) => v >= 0n && v < FIELD_MODULUS));
  assert.equal(new Set(values).size, values.length);
});

test('noteCommitment has the core contract: hex in, lowercase 64-hex out, equal to the bigint form', () => {
  const owner = hasher.ownerCommitment(42n);
  const inner = hasher.innerHash(5n, 6n);
  const hex = hasher.noteCommitment(fieldToHex(owner), fieldToHex(inner), 1000n);
  assert.match(hex, /^[0-9a-f]{64}$/);
  assert.equal(hex, fieldToHex(hasher.commitment(owner, inner, 1000n)));
  assert.notEqual(hasher.noteCommitment(fieldToHex(owner), fieldToHex(inner), 1001n), hex, 'value is bound');
  assert.equal(
    hasher.noteUseTagHex(fieldToHex(owner), fieldToHex(inner)),
    fieldToHex(hasher.noteUseTag(owner, inner)),
  );
});

test('noteCommitment refuses out-of-field hashes and values beyond u64, naming the field', () => {
  const big = 'f'.repeat(64);
  const ok = fieldToHex(1n);
  assert.throws(() => hasher.noteCommitment(big, ok, 1n), /owner_commitment/);
  assert.throws(() => hasher.noteCommitment(ok, big, 1n), /note_inner_hash/);
  assert.throws(() => hasher.noteCommitment(ok, ok, 1n << 64n), venueCode('OUT_OF_RANGE'));
  assert.throws(() => hasher.noteCommitment(ok, ok, -1n), venueCode('OUT_OF_RANGE'));
  assert.equal(hasher.noteCommitment(ok, ok, (1n << 64n) - 1n).length, 64);
});
