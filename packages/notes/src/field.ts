import { randomBytes } from 'node:crypto';
import { VenueError } from '@venue/protocol';

/**
 * The BN254 scalar field (docs/notes.md section 1). Every note hash, key and tree node is an
 * element of it. On the wire an element is 32 bytes, big-endian, written as 64 lowercase hex
 * characters without 0x, and its value must be below the modulus: each element has exactly one
 * spelling, so two parties that agree on a value agree on its bytes.
 */
export const FIELD_MODULUS = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

/** Base field of BN254 (the coordinates of curve points in a proof). */
export const BASE_FIELD_MODULUS =
  21888242871839275222246405745257275088696311157297823662689037894645226208583n;

export const FIELD_BYTES = 32;

const HEX_64 = /^[0-9a-f]{64}$/;

export function isFieldElement(value: bigint): boolean {
  return value >= 0n && value < FIELD_MODULUS;
}

/**
 * Reads a 32-byte hex field (a commitment, hash, root or key) as a field element. `name` is the
 * wire name of the field, used in the error: a malformed value is INVALID_HEX, a value at or above
 * the modulus is OUT_OF_RANGE.
 */
export function fieldFromHex(hex: string, name: string): bigint {
  if (!HEX_64.test(hex)) {
    throw new VenueError(
      'INVALID_HEX',
      `field \`${name}\`: expected 64 lowercase hex characters (32 bytes), received ${describe(hex)}`,
    );
  }
  const value = BigInt(`0x${hex}`);
  if (value >= FIELD_MODULUS) {
    throw new VenueError(
      'OUT_OF_RANGE',
      `field \`${name}\`: expected a BN254 field element (big-endian, below ${FIELD_MODULUS.toString(16)}), received ${hex}`,
    );
  }
  return value;
}

/** Writes a field element as 64 lowercase hex characters, big-endian. */
export function fieldToHex(value: bigint): string {
  if (!isFieldElement(value)) {
    throw new VenueError('OUT_OF_RANGE', `expected a BN254 field element, received ${value}`);
  }
  return value.toString(16).padStart(FIELD_BYTES * 2, '0');
}

/** A uniformly random field element from node:crypto (rejection sampling over 254-bit values). */
export function randomFieldElement(): bigint {
  for (;;) {
    const bytes = randomBytes(FIELD_BYTES);
    bytes[0] = (bytes[0] ?? 0) & 0x3f; // 254 bits: the modulus is just below 2^254
    const value = BigInt(`0x${bytes.toString('hex')}`);
    if (value < FIELD_MODULUS) return value;
  }
}

/** A digest truncated to 253 bits: always a field element, and collision resistant to ~126 bits. */
export function fieldFromDigest(digest: Uint8Array): bigint {
  if (digest.length !== FIELD_BYTES) {
    throw new VenueError('INVALID_FORMAT', `expected a 32-byte digest, received ${digest.length} bytes`);
  }
  const copy = Buffer.from(digest);
  copy[0] = (copy[0] ?? 0) & 0x1f;
  return BigInt(`0x${copy.toString('hex')}`);
}

function describe(text: string): string {
  return text.length > 80 ? `${text.length} characters` : JSON.stringify(text);
}
