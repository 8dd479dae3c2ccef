// The 256-byte proof encoding: layout, G2 coordinate order, round trips, range checks, and the
// stub proof that can never be a real one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isVenueError, PROOF_BYTES } from '@venue/protocol';
import fc from 'fast-check';
import {
  BASE_FIELD_MODULUS,
  coordinatesOfSnarkjs,
  decodeProof,
  encodeProof,
  isStubProof,
  type ProofCoordinates,
  STUB_PROOF_HEX,
  snarkjsOfCoordinates,
} from '../src/index.ts';

const coordinate = fc.bigInt({ min: 0n, max: BASE_FIELD_MODULUS - 1n });
const coordinates = fc.array(coordinate, { minLength: 8, maxLength: 8 }).map(
  ([a0, a1, b00, b01, b10, b11, c0, c1]): ProofCoordinates => ({
    a: [a0 ?? 0n, a1 ?? 0n],
    b: [
      [b00 ?? 0n, b01 ?? 0n],
      [b10 ?? 0n, b11 ?? 0n],
    ],
    c: [c0 ?? 0n, c1 ?? 0n],
  }),
);

function word(hex: string, index: number): bigint {
  return BigInt(`0x${hex.slice(index * 64, index * 64 + 64)}`);
}

test('the layout is A.x A.y | B.x.c1 B.x.c0 B.y.c1 B.y.c0 | C.x C.y, 32 bytes each, big-endian', () => {
  const proof: ProofCoordinates = {
    a: [1n, 2n],
    b: [
      [3n, 4n],
      [5n, 6n],
    ],
    c: [7n, 8n],
  };
  const hex = encodeProof(proof);
  assert.equal(hex.length, PROOF_BYTES * 2);
  assert.deepEqual(
    Array.from({ length: 8 }, (_, i) => word(hex, i)),
    [1n, 2n, 4n, 3n, 6n, 5n, 7n, 8n],
  );
  assert.ok(hex.startsWith(`${'0'.repeat(63)}1`), 'big-endian');
});

test('encode and decode are inverse, and snarkjs objects convert both ways (property)', () => {
  fc.assert(
    fc.property(coordinates, (proof) => {
      assert.deepEqual(decodeProof(encodeProof(proof)), proof);
      assert.deepEqual(coordinatesOfSnarkjs(snarkjsOfCoordinates(proof)), proof);
    }),
  );
});

test('a coordinate at or above the base field modulus is refused, naming its bytes', () => {
  const hex = encodeProof({
    a: [1n, 2n],
    b: [
      [3n, 4n],
      [5n, 6n],
    ],
    c: [7n, 8n],
  });
  const big = BASE_FIELD_MODULUS.toString(16).padStart(64, '0');
  const tampered = hex.slice(0, 64 * 2) + big + hex.slice(64 * 3);
  assert.throws(
    () => decodeProof(tampered),
    (e) => {
      assert.ok(isVenueError(e) && e.errorName === 'INVALID_PROOF');
      assert.match(String(e), /bytes 64 to 95/);
      return true;
    },
  );
  assert.throws(
    () => decodeProof(hex.slice(2)),
    (e) => isVenueError(e) && e.errorName === 'INVALID_HEX',
  );
  const lettered = encodeProof({
    a: [0xabn, 2n],
    b: [
      [3n, 4n],
      [5n, 6n],
    ],
    c: [7n, 8n],
  });
  assert.throws(
    () => decodeProof(lettered.toUpperCase()),
    (e) => isVenueError(e) && e.errorName === 'INVALID_HEX',
  );
});

test('the stub proof is 256 recognisable bytes that no real proof can equal', () => {
  assert.equal(STUB_PROOF_HEX.length, PROOF_BYTES * 2);
  assert.equal(Buffer.from(STUB_PROOF_HEX, 'hex').toString('ascii'), 'VENUE-STUB-PROOF'.repeat(16));
  assert.ok(isStubProof(STUB_PROOF_HEX));
  assert.ok(
    !isStubProof(
      encodeProof({
        a: [1n, 2n],
        b: [
          [3n, 4n],
          [5n, 6n],
        ],
        c: [7n, 8n],
      }),
    ),
  );
  // Its first coordinate is above the base field modulus: it does not even decode.
  assert.ok(word(STUB_PROOF_HEX, 0) >= BASE_FIELD_MODULUS);
  assert.throws(
    () => decodeProof(STUB_PROOF_HEX),
    (e) => isVenueError(e) && e.errorName === 'INVALID_PROOF',
  );
});

test('snarkjs proofs must be affine', () => {
  const proof = snarkjsOfCoordinates({
    a: [1n, 2n],
    b: [
      [3n, 4n],
      [5n, 6n],
    ],
    c: [7n, 8n],
  });
  assert.throws(() => coordinatesOfSnarkjs({ ...proof, pi_a: ['1', '2', '3'] }), /affine/);
});
