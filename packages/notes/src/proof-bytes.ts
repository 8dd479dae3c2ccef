import { PROOF_BYTES, VenueError } from '@venue/protocol';
import { BASE_FIELD_MODULUS } from './field.ts';

/**
 * The 256 bytes of `valid_input_proof` (docs/notes.md section 5): A || B || C, each coordinate a
 * 32-byte big-endian element of the BN254 base field, points in affine form.
 *
 *   offset  length  content
 *        0      32  A.x
 *       32      32  A.y
 *       64      32  B.x imaginary part (c1)
 *       96      32  B.x real part (c0)
 *      128      32  B.y imaginary part (c1)
 *      160      32  B.y real part (c0)
 *      192      32  C.x
 *      224      32  C.y
 *
 * The G2 order (imaginary part first) is the one of Ethereum's EIP-197 precompile and of the
 * alt_bn128 syscalls of Solana-like chains, so the bytes can go to an on-chain verifier unchanged.
 * snarkjs's JSON lists the real part first; the conversion below swaps them.
 */
export interface ProofCoordinates {
  readonly a: readonly [bigint, bigint];
  /** [[x.c0, x.c1], [y.c0, y.c1]]: real part first, as snarkjs writes it. */
  readonly b: readonly [readonly [bigint, bigint], readonly [bigint, bigint]];
  readonly c: readonly [bigint, bigint];
}

/** The proof object snarkjs produces and its groth16.verify reads. */
export interface SnarkjsProof {
  pi_a: string[];
  pi_b: string[][];
  pi_c: string[];
  protocol: string;
  curve: string;
}

const COORDINATE_BYTES = 32;

/**
 * A stub proof (docs/notes.md section 8): the 16 ASCII bytes "VENUE-STUB-PROOF" repeated 16 times.
 * Its first coordinate starts with 0x56, above the base field modulus (0x3064...), so it is not
 * the encoding of any curve point and no real proof can ever have these bytes.
 */
export const STUB_PROOF_HEX = Buffer.from('VENUE-STUB-PROOF'.repeat(16), 'ascii').toString('hex');

export function isStubProof(proofHex: string): boolean {
  return proofHex === STUB_PROOF_HEX;
}

/** Reads the 256 proof bytes into coordinates; each must be below the base field modulus. */
export function decodeProof(proofHex: string): ProofCoordinates {
  if (proofHex.length !== PROOF_BYTES * 2 || !/^[0-9a-f]*$/.test(proofHex)) {
    throw new VenueError(
      'INVALID_HEX',
      `field \`valid_input_proof\`: expected ${PROOF_BYTES * 2} lowercase hex characters`,
    );
  }
  const at = (index: number): bigint => {
    const value = BigInt(`0x${proofHex.slice(index * 64, index * 64 + 64)}`);
    if (value >= BASE_FIELD_MODULUS) {
      throw new VenueError(
        'INVALID_PROOF',
        `field \`valid_input_proof\`: coordinate ${index} (bytes ${index * 32} to ${index * 32 + 31}) is not below the BN254 base field modulus`,
      );
    }
    return value;
  };
  return {
    a: [at(0), at(1)],
    b: [
      [at(3), at(2)],
      [at(5), at(4)],
    ],
    c: [at(6), at(7)],
  };
}

/** Writes coordinates as the 256 proof bytes, lowercase hex. */
export function encodeProof(proof: ProofCoordinates): string {
  const words = [
    proof.a[0],
    proof.a[1],
    proof.b[0][1],
    proof.b[0][0],
    proof.b[1][1],
    proof.b[1][0],
    proof.c[0],
    proof.c[1],
  ];
  return words
    .map((word) => {
      if (word < 0n || word >= BASE_FIELD_MODULUS) {
        throw new VenueError('OUT_OF_RANGE', 'a proof coordinate must be below the BN254 base field modulus');
      }
      return word.toString(16).padStart(COORDINATE_BYTES * 2, '0');
    })
    .join('');
}

/** snarkjs proof (affine: z = 1, as groth16.prove returns it) to coordinates. */
export function coordinatesOfSnarkjs(proof: SnarkjsProof): ProofCoordinates {
  const n = (text: string | undefined): bigint => BigInt(text ?? 'x');
  const affine = proof.pi_a[2] === '1' && proof.pi_c[2] === '1' && proof.pi_b[2]?.[0] === '1';
  if (!affine || proof.pi_b[2]?.[1] !== '0') {
    throw new VenueError('INVALID_FORMAT', 'snarkjs proof: expected affine points (z = 1)');
  }
  return {
    a: [n(proof.pi_a[0]), n(proof.pi_a[1])],
    b: [
      [n(proof.pi_b[0]?.[0]), n(proof.pi_b[0]?.[1])],
      [n(proof.pi_b[1]?.[0]), n(proof.pi_b[1]?.[1])],
    ],
    c: [n(proof.pi_c[0]), n(proof.pi_c[1])],
  };
}

/** Coordinates to the snarkjs proof object (for snarkjs.groth16.verify, the baseline). */
export function snarkjsOfCoordinates(proof: ProofCoordinates): SnarkjsProof {
  const s = (value: bigint): string => value.toString();
  return {
    pi_a: [s(proof.a[0]), s(proof.a[1]), '1'],
    pi_b: [
      [s(proof.b[0][0]), s(proof.b[0][1])],
      [s(proof.b[1][0]), s(proof.b[1][1])],
      ['1', '0'],
    ],
    pi_c: [s(proof.c[0]), s(proof.c[1]), '1'],
    protocol: 'groth16',
    curve: 'bn128',
  };
}
