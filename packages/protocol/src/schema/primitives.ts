import Type, { type TSchema, type TUnsafe } from 'typebox';
import type { ErrorName } from '../errors/catalogue.ts';

/**
 * The field types of the wire contract, as JSON Schema built with TypeBox. Each primitive uses
 * standard keywords only (contentEncoding, format, pattern, min/maxLength), so the same objects
 * drive the strict decoder (decode.ts), the server's validation and the generated OpenAPI/AsyncAPI
 * documents. `x-expected` is a documentation annotation: the phrase error messages use to say what
 * a valid value looks like.
 */

type Doc = { description?: string; examples?: unknown[] };

/** Lowercase hex of exactly `bytes` bytes (spec section 2: fixed-size fields are hex strings). */
export function Hex(bytes: number, doc: Doc = {}) {
  return Type.String({
    contentEncoding: 'base16',
    minLength: bytes * 2,
    maxLength: bytes * 2,
    pattern: `^[0-9a-f]{${bytes * 2}}$`,
    'x-expected': `${bytes * 2} lowercase hex characters (${bytes} bytes)`,
    ...doc,
  });
}

/**
 * An unsigned 64-bit integer written as a bare JSON integer. Decoded to bigint so that values above
 * 2^53 survive exactly; refused when written with a fraction, exponent or sign.
 */
export function U64(doc: Doc = {}): TUnsafe<bigint> {
  return Type.Unsafe<bigint>({
    type: 'integer',
    format: 'uint64',
    minimum: 0,
    'x-expected': 'an unsigned 64-bit integer (0 to 18446744073709551615)',
    ...doc,
  });
}

/** An unsigned 8-bit integer (e.g. `tree_id`), decoded to number. */
export function U8(doc: Doc = {}) {
  return Type.Integer({
    format: 'uint8',
    minimum: 0,
    maximum: 255,
    'x-expected': 'an integer from 0 to 255',
    ...doc,
  });
}

/** A small non-negative integer that fits a JS number exactly (counts, limits, pages). */
export function Count(maximum: number, doc: Doc = {}) {
  return Type.Integer({ minimum: 0, maximum, 'x-expected': `an integer from 0 to ${maximum}`, ...doc });
}

/**
 * A u64 carried as a canonical decimal string, pattern ^(0|[1-9][0-9]*)$ (spec 2.2 `cancel_nonce`).
 * Decoded to bigint.
 */
export function DecimalU64(doc: Doc = {}): TUnsafe<bigint> {
  return Type.Unsafe<bigint>({
    type: 'string',
    format: 'uint64-decimal',
    pattern: '^(0|[1-9][0-9]*)$',
    'x-expected': 'a canonical decimal u64 string: digits only, no sign, no leading zero',
    ...doc,
  });
}

/**
 * One of a fixed set of strings. A value outside the set is INVALID_ENUM, unless `errorCode` names a
 * more precise catalogue entry for this field (kept in the schema as `x-error-code`, so the decoder
 * and the documents both see it).
 */
export function OneOf<const T extends readonly string[]>(
  values: T,
  doc: Doc & { errorCode?: ErrorName } = {},
) {
  const { errorCode, ...rest } = doc;
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    'x-expected': `one of ${values.map((v) => `"${v}"`).join(', ')}`,
    ...(errorCode === undefined ? {} : { 'x-error-code': errorCode }),
    ...rest,
  });
}

/** Unix time in milliseconds, as a JSON integer. */
export function UnixMs(doc: Doc = {}) {
  return Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, format: 'unix-ms', ...doc });
}

/** Market symbol grammar: BASE-QUOTE, each part 1-12 of A-Z and 0-9 (e.g. SOL-USDC). */
export const SYMBOL_PATTERN = '^[A-Z0-9]{1,12}-[A-Z0-9]{1,12}$';

/** Market symbol: BASE-QUOTE, each part 1-12 of A-Z and 0-9 (e.g. SOL-USDC). */
export function MarketSymbol(doc: Doc = {}) {
  return Type.String({
    minLength: 3,
    maxLength: 25,
    pattern: SYMBOL_PATTERN,
    'x-expected': 'a market symbol BASE-QUOTE, each part 1-12 of A-Z and 0-9 (e.g. SOL-USDC)',
    ...doc,
  });
}

/** Base58 (Bitcoin alphabet) address of an on-chain account, 32 bytes encoded. */
export function Base58Address(doc: Doc = {}) {
  return Type.String({
    minLength: 32,
    maxLength: 44,
    pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
    'x-expected': 'a base58 address of 32 to 44 characters',
    ...doc,
  });
}

/** A client-supplied correlation id echoed on replies; bounded and printable. */
export function RequestId(doc: Doc = {}) {
  return Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9._:-]{1,64}$',
    'x-expected': '1-64 characters of A-Z a-z 0-9 . _ : -',
    ...doc,
  });
}

/** A value or null (an absent account, a note not consumed yet): the one union the decoder reads. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** Strict object: every property listed, nothing else accepted (Fastify principle: strict). */
export function Strict<T extends Record<string, TSchema>>(properties: T, doc: Doc & { title?: string } = {}) {
  return Type.Object(properties, { additionalProperties: false, ...doc });
}
