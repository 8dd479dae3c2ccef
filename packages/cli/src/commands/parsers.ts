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

// The operator commands' options (venue chain, venue oracle).

export function parseBase58Address(value: string): string {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) {
    throw new InvalidArgumentError('expected a base58 address, 32 to 44 characters (no 0, O, I or l)');
  }
  return value;
}

export function parseHttpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected a http: or https: URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected a http: or https: URL');
  return value;
}

export function parsePortNumber(value: string): number {
  return parseIntegerIn(value, 0, 65_535, ' (0 picks a free port)');
}

export function parseIntegerIn(value: string, min: number, max: number, note = ''): number {
  if (!/^(0|[1-9][0-9]{0,8})$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}${note}`);
  }
  return Number(value);
}

/** `--mint SYMBOL=DECIMALS`, repeatable: the decimals of the mints chain setup describes. */
export function collectMintDecimals(
  value: string,
  previous: ReadonlyMap<string, number> = new Map(),
): Map<string, number> {
  const match = /^([A-Za-z0-9]{1,10})=(0|[1-9][0-9]?)$/.exec(value);
  if (match === null) throw new InvalidArgumentError('expected SYMBOL=DECIMALS, e.g. USDC=6');
  return new Map(previous).set(match[1] ?? '', Number(match[2]));
}
