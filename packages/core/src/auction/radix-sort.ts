/**
 * A stable sort of items by u64 keys, without comparisons: least-significant-digit radix sort, one
 * byte per pass, least significant key first. Bytes that are the same in every key are skipped, so
 * small numbers cost few passes. Sorting a book this way is O(n) and does no bigint work per step;
 * a comparator sort over bigint fields was the largest cost of clearing a big batch.
 */
import { AssertionError, U64_MAX } from '@venue/protocol';

export interface U64Key<T> {
  readonly of: (item: T) => bigint;
  readonly descending: boolean;
}

/** A module-local copy: reading the re-exported binding costs a call under some loaders. */
const U64 = U64_MAX;
const BYTE_VALUES = 256;
/** Which 32-bit word of a stored u64 holds its low half depends on the platform's byte order. */
const LOW_WORD = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 0 : 1;

/** Items ordered by `keys`, the first key most significant; items equal on every key keep input order. */
export function sortByU64Keys<T>(items: readonly T[], keys: readonly U64Key<T>[]): T[] {
  const count = items.length;
  const values = new BigUint64Array(count);
  const words = new Uint32Array(values.buffer);
  let order = new Uint32Array(count);
  for (let index = 0; index < count; index += 1) order[index] = index;
  let spare = new Uint32Array(count);
  for (const key of [...keys].reverse()) {
    storeKeys(items, key.of, values);
    const varying = varyingBytes(words, count);
    for (let byte = 0; byte < 8; byte += 1) {
      if ((varying & (1 << byte)) === 0) continue;
      const digit: Digit = {
        word: byte < 4 ? LOW_WORD : 1 - LOW_WORD,
        shift: (byte % 4) * 8,
        flip: key.descending ? 0xff : 0,
      };
      countingPass(words, digit, order, spare);
      [order, spare] = [spare, order];
    }
  }
  const sorted = new Array<T>(count);
  for (let index = 0; index < count; index += 1) sorted[index] = items[order[index] as number] as T;
  return sorted;
}

function storeKeys<T>(items: readonly T[], of: (item: T) => bigint, values: BigUint64Array): void {
  let index = 0;
  for (const item of items) {
    const value = of(item);
    // A BigUint64Array silently wraps values outside u64; refuse them instead.
    if (value < 0n || value > U64) throw new AssertionError(`radix sort key ${value} is not a u64`);
    values[index] = value;
    index += 1;
  }
}

/** A bit mask of the byte positions (0 = least significant) where not every stored key agrees. */
function varyingBytes(words: Uint32Array, count: number): number {
  let lowOr = 0;
  let lowAnd = 0xffff_ffff;
  let highOr = 0;
  let highAnd = 0xffff_ffff;
  for (let index = 0; index < count; index += 1) {
    const low = words[2 * index + LOW_WORD] as number;
    const high = words[2 * index + 1 - LOW_WORD] as number;
    lowOr |= low;
    lowAnd &= low;
    highOr |= high;
    highAnd &= high;
  }
  const lowDiffers = (lowOr ^ lowAnd) >>> 0;
  const highDiffers = (highOr ^ highAnd) >>> 0;
  let mask = 0;
  for (let byte = 0; byte < 4; byte += 1) {
    if (((lowDiffers >>> (8 * byte)) & 0xff) !== 0) mask |= 1 << byte;
    if (((highDiffers >>> (8 * byte)) & 0xff) !== 0) mask |= 1 << (byte + 4);
  }
  return mask;
}

/** One byte of every stored key: which 32-bit word, how far up in it, and 0xff to invert it (descending). */
interface Digit {
  readonly word: number;
  readonly shift: number;
  readonly flip: number;
}

/** One stable counting-sort pass of `order` into `output` by the byte `digit` names. */
function countingPass(words: Uint32Array, digit: Digit, order: Uint32Array, output: Uint32Array): void {
  const { word, shift, flip } = digit;
  const starts = new Uint32Array(BYTE_VALUES + 1);
  const count = order.length;
  for (let index = 0; index < count; index += 1) {
    const value = ((((words[2 * (order[index] as number) + word] as number) >>> shift) & 0xff) ^ flip) + 1;
    starts[value] = (starts[value] as number) + 1;
  }
  for (let value = 1; value <= BYTE_VALUES; value += 1) {
    starts[value] = (starts[value] as number) + (starts[value - 1] as number);
  }
  for (let index = 0; index < count; index += 1) {
    const position = order[index] as number;
    const value = (((words[2 * position + word] as number) >>> shift) & 0xff) ^ flip;
    const slot = starts[value] as number;
    output[slot] = position;
    starts[value] = slot + 1;
  }
}
