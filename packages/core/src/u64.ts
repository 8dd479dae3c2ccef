import { assert, U64_MAX } from '@venue/protocol';

/**
 * Exact unsigned 64-bit arithmetic for amounts and prices (decisions section 2: "u64, overflow
 * refused, rounding stated"). Values are bigint; every result is checked to fit u64. Products are
 * formed at full width before dividing, so `mulDivFloor` never loses precision in between.
 */

export function isU64(value: bigint): boolean {
  return value >= 0n && value <= U64_MAX;
}

/** a + b, or null when the sum leaves u64. */
export function addU64(a: bigint, b: bigint): bigint | null {
  const sum = a + b;
  return sum <= U64_MAX ? sum : null;
}

/** floor(a x b / divisor) computed exactly; null when the result leaves u64. */
export function mulDivFloor(a: bigint, b: bigint, divisor: bigint): bigint | null {
  assert(divisor > 0n, 'mulDivFloor: divisor must be positive');
  const result = (a * b) / divisor; // bigint division truncates toward zero: floor for non-negatives
  return result <= U64_MAX ? result : null;
}

/** a - b where the caller has established a >= b (a programmer error otherwise). */
export function subU64(a: bigint, b: bigint): bigint {
  assert(b <= a, `subU64: ${b} exceeds ${a}`);
  return a - b;
}
