import Type from 'typebox';
import { CHAIN_SYMBOL_LENGTH_MAX } from './limits.ts';

/**
 * Field types the chain uses beyond the protocol's own primitives (schema/primitives.ts): values
 * the venue API never carries. Same conventions: standard keywords, `x-expected` for messages.
 */

/** A u64 that must be positive (an output note's value, a market's tick size). */
export function PositiveU64(doc: { description?: string } = {}) {
  return Type.Unsafe<bigint>({
    type: 'integer',
    format: 'uint64',
    minimum: 1,
    'x-expected': 'a positive unsigned 64-bit integer (1 to 18446744073709551615)',
    ...doc,
  });
}

/** Lowercase hex of a whole number of bytes, at most `bytesMax` (the reserved batch proof). */
export function HexBytes(bytesMax: number, doc: { description?: string } = {}) {
  return Type.String({
    contentEncoding: 'base16',
    maxLength: bytesMax * 2,
    pattern: '^(?:[0-9a-f]{2})*$',
    'x-expected': `lowercase hex of at most ${bytesMax} bytes`,
    ...doc,
  });
}

/** A market account's symbol: printable ASCII (the chain does not impose the venue's grammar). */
export function ChainSymbol() {
  return Type.String({
    minLength: 1,
    maxLength: CHAIN_SYMBOL_LENGTH_MAX,
    pattern: '^[\\x20-\\x7e]+$',
    'x-expected': `printable ASCII text of 1 to ${CHAIN_SYMBOL_LENGTH_MAX} characters`,
  });
}

/** What the audit names a mint by: its address, or the asset id of a note whose mint is unknown. */
export function MintOrAsset() {
  return Type.String({
    minLength: 32,
    maxLength: 64,
    pattern: '^(?:[1-9A-HJ-NP-Za-km-z]{32,44}|[0-9a-f]{64})$',
    'x-expected': 'a base58 address or 64 lowercase hex characters',
  });
}
