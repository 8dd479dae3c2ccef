import { InvalidArgumentError } from 'commander';

/** Option parsers of the operator commands: a wrong value is refused before anything starts. */

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
