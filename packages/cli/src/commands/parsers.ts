import { InvalidArgumentError } from 'commander';

/** The largest u64, as the protocol's U64_MAX (kept here so parsing loads no protocol code). */
const U64_MAX = (1n << 64n) - 1n;

/** Argument parsers: a wrong value is refused before anything is sent, saying what was expected. */

export function parseU64(value: string): bigint {
  if (!/^(0|[1-9][0-9]{0,19})$/.test(value) || BigInt(value) > U64_MAX) {
    throw new InvalidArgumentError(
      'expected a whole number from 0 to 18446744073709551615, no sign or separators',
    );
  }
  return BigInt(value);
}

export function parseOrderId(value: string): string {
  if (!/^[0-9a-f]{32}$/.test(value)) throw new InvalidArgumentError('expected 32 lowercase hex characters');
  return value;
}

export function parseHex32(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) throw new InvalidArgumentError('expected 64 lowercase hex characters');
  return value;
}

export function parseTreeId(value: string): number {
  if (!/^(0|[1-9][0-9]{0,2})$/.test(value) || Number(value) > 255) {
    throw new InvalidArgumentError('expected a shard number from 0 to 255');
  }
  return Number(value);
}
