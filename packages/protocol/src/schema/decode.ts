import type { Static, TSchema } from 'typebox';
import type { ErrorName } from '../errors/catalogue.ts';
import { VenueError } from '../errors/venue-error.ts';
import { JsonNumberToken, parseJsonText, printable } from '../json/json-text.ts';
import { U64_MAX } from '../limits.ts';

/**
 * The strict decoder: checks a parsed JSON value against one of our schemas and returns it typed,
 * with u64 fields as bigint. It is the only validator of untrusted input, shared by the venue (REST
 * and stream) and the SDK, so a body the SDK accepts is a body the venue accepts.
 *
 * It understands the subset of JSON Schema our primitives use (object, string, integer, boolean,
 * array, enum, const) and fails with the first problem found, in document order, naming the field
 * path and what was expected. Every failure maps to exactly one catalogue code:
 * unknown field 1001, missing 1002, wrong type 1003, hex 1004, range 1005, non-canonical 1006,
 * enum 1007, other string format 1009.
 *
 * Why not Ajv: Ajv sees JSON numbers as doubles, so it cannot hold a u64 exactly nor tell `1` from
 * `1.0`; and its error objects would need a second mapping to our codes. This walker is small and
 * its only input is the schemas we write.
 */

type Json = Record<string, unknown>;

export interface DecodeOptions {
  /** Responses read by the SDK may carry fields added in later minor versions. Requests: never. */
  unknownFields?: 'refuse' | 'ignore';
}

export function decode<T extends TSchema>(schema: T, value: unknown, options: DecodeOptions = {}): Static<T> {
  return compiledFor(schema as unknown as Json, options.unknownFields ?? 'refuse')(value, '') as Static<T>;
}

/** The reference decoder: walks the schema on every call. `decode` runs the same checks compiled. */
export function decodeByWalking<T extends TSchema>(
  schema: T,
  value: unknown,
  options: DecodeOptions = {},
): Static<T> {
  return walk(schema as unknown as Json, value, '', options.unknownFields ?? 'refuse') as Static<T>;
}

/** Parses JSON text and decodes it in one step. */
export function decodeJsonText<T extends TSchema>(
  schema: T,
  text: string,
  options: DecodeOptions = {},
): Static<T> {
  return decode(schema, parseJsonText(text), options);
}

function fail(name: ErrorName, path: string, problem: string): never {
  throw new VenueError(name, path === '' ? problem : `field \`${path}\`: ${problem}`);
}

function expected(schema: Json): string {
  const phrase = schema['x-expected'];
  return typeof phrase === 'string' ? phrase : describeType(schema);
}

function describeType(schema: Json): string {
  const type = schema['type'];
  if (type === 'object') return 'an object';
  if (type === 'array') return 'an array';
  if (type === 'string') return 'a string';
  if (type === 'integer') return 'an integer';
  if (type === 'boolean') return 'true or false';
  return 'a value of another shape';
}

function received(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JsonNumberToken) return `the number ${printable(value.text)}`;
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string "${printable(value)}"`;
  if (typeof value === 'boolean') return String(value);
  return 'an object';
}

function walk(schema: Json, value: unknown, path: string, unknownFields: 'refuse' | 'ignore'): unknown {
  if ('const' in schema) return walkConst(schema, value, path);
  if ('anyOf' in schema) return walkNullable(schema, value, path, unknownFields);
  switch (schema['type']) {
    case 'object':
      return walkObject(schema, value, path, unknownFields);
    case 'array':
      return walkArray(schema, value, path, unknownFields);
    case 'string':
      return walkString(schema, value, path);
    case 'integer':
      return walkInteger(schema, value, path);
    case 'boolean':
      if (typeof value !== 'boolean')
        fail('WRONG_TYPE', path, `expected true or false, received ${received(value)}`);
      return value;
    default:
      throw new TypeError(`schema at \`${path}\` uses a construct the decoder does not support`);
  }
}

/** The one union the primitives build: a value or null (Nullable in primitives.ts). */
function walkNullable(
  schema: Json,
  value: unknown,
  path: string,
  unknownFields: 'refuse' | 'ignore',
): unknown {
  if (value === null) return null;
  return walk(nonNullBranch(schema, path), value, path, unknownFields);
}

export function nonNullBranch(schema: Json, path: string): Json {
  const branches = schema['anyOf'] as Json[];
  const other = branches.filter((branch) => branch['type'] !== 'null');
  if (branches.length !== 2 || other.length !== 1)
    throw new TypeError(`schema at \`${path}\` uses a union the decoder does not support`);
  return other[0] as Json;
}

function walkConst(schema: Json, value: unknown, path: string): unknown {
  const want = schema['const'];
  if (typeof want === 'string' && typeof value === 'string' && value === want) return value;
  if (typeof want === 'boolean' && value === want) return value;
  if (typeof want === 'string' && typeof value !== 'string') {
    fail('WRONG_TYPE', path, `expected the string "${want}", received ${received(value)}`);
  }
  return fail('INVALID_ENUM', path, `expected ${JSON.stringify(want)}, received ${received(value)}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumberToken)
  );
}

function walkObject(schema: Json, value: unknown, path: string, unknownFields: 'refuse' | 'ignore'): unknown {
  if (!isPlainObject(value))
    return fail('WRONG_TYPE', path, `expected an object, received ${received(value)}`);
  const properties = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(properties, key)) {
      if (unknownFields === 'ignore') continue;
      fail('UNKNOWN_FIELD', join(path, key), 'this field is not part of the interface; remove it');
    }
  }
  for (const [key, propertySchema] of Object.entries(properties)) {
    const childPath = join(path, key);
    if (!Object.hasOwn(value, key)) {
      if (required.has(key)) fail('MISSING_FIELD', childPath, `is required: ${expected(propertySchema)}`);
      continue;
    }
    out[key] = walk(propertySchema, value[key], childPath, unknownFields);
  }
  return out;
}

function join(path: string, key: string): string {
  const safeKey = printable(key);
  return path === '' ? safeKey : `${path}.${safeKey}`;
}

function walkArray(schema: Json, value: unknown, path: string, unknownFields: 'refuse' | 'ignore'): unknown {
  if (!Array.isArray(value))
    return fail('WRONG_TYPE', path, `expected an array, received ${received(value)}`);
  const minItems = (schema['minItems'] as number | undefined) ?? 0;
  const maxItems = (schema['maxItems'] as number | undefined) ?? Number.POSITIVE_INFINITY;
  if (value.length < minItems || value.length > maxItems) {
    const bound =
      maxItems === Number.POSITIVE_INFINITY ? `at least ${minItems}` : `${minItems} to ${maxItems}`;
    fail('OUT_OF_RANGE', path, `expected ${bound} items, received ${value.length}`);
  }
  const items = schema['items'] as Json;
  const out = value.map((item, index) => walk(items, item, `${path}[${index}]`, unknownFields));
  if (schema['uniqueItems'] === true && new Set(out.map((v) => JSON.stringify(v))).size !== out.length) {
    fail('INVALID_FORMAT', path, 'items must not repeat');
  }
  return out;
}

function walkString(schema: Json, value: unknown, path: string): unknown {
  if (typeof value !== 'string')
    return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
  const choices = schema['enum'] as string[] | undefined;
  if (choices !== undefined) {
    if (!choices.includes(value)) {
      // A field may name a more precise code for a value outside its set (x-error-code).
      const code = (schema['x-error-code'] as ErrorName | undefined) ?? 'INVALID_ENUM';
      fail(code, path, `expected ${expected(schema)}, received "${printable(value)}"`);
    }
    return value;
  }
  if (schema['format'] === 'uint64-decimal') return decimalU64(value, path);
  const isHex = schema['contentEncoding'] === 'base16';
  const code: ErrorName = isHex ? 'INVALID_HEX' : 'INVALID_FORMAT';
  const minLength = (schema['minLength'] as number | undefined) ?? 0;
  const maxLength = (schema['maxLength'] as number | undefined) ?? Number.POSITIVE_INFINITY;
  if (value.length < minLength || value.length > maxLength) {
    fail(code, path, `expected ${expected(schema)}, received ${value.length} characters`);
  }
  const pattern = schema['pattern'] as string | undefined;
  if (pattern !== undefined && !compiled(pattern).test(value)) {
    fail(code, path, `expected ${expected(schema)}, received "${printable(value)}"`);
  }
  return value;
}

const patternCache = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let regex = patternCache.get(pattern);
  if (regex === undefined) {
    regex = new RegExp(pattern, 'u');
    patternCache.set(pattern, regex);
  }
  return regex;
}

const CANONICAL_DECIMAL = /^(0|[1-9][0-9]*)$/;

function decimalU64(value: string, path: string): bigint {
  if (!CANONICAL_DECIMAL.test(value)) {
    fail(
      'NON_CANONICAL_NUMBER',
      path,
      `expected a canonical decimal u64 string (digits only, no sign, no leading zero), received "${printable(value)}"`,
    );
  }
  const parsed = BigInt(value);
  if (parsed > U64_MAX)
    fail('OUT_OF_RANGE', path, `expected at most 18446744073709551615, received ${printable(value)}`);
  return parsed;
}

const JSON_INTEGER = /^-?(0|[1-9][0-9]*)$/;

function walkInteger(schema: Json, value: unknown, path: string): unknown {
  if (!(value instanceof JsonNumberToken)) {
    return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
  }
  const text = value.text;
  if (!JSON_INTEGER.test(text) || text === '-0') {
    fail(
      'NON_CANONICAL_NUMBER',
      path,
      `expected a plain integer without fraction or exponent, received ${printable(text)}`,
    );
  }
  const parsed = BigInt(text);
  const minimum = BigInt((schema['minimum'] as number | undefined) ?? 0);
  const isU64 = schema['format'] === 'uint64';
  const maximum = isU64
    ? U64_MAX
    : BigInt((schema['maximum'] as number | undefined) ?? Number.MAX_SAFE_INTEGER);
  if (parsed < minimum || parsed > maximum) {
    fail('OUT_OF_RANGE', path, `expected ${expected(schema)}, received ${printable(text)}`);
  }
  return isU64 ? parsed : Number(parsed);
}

// ---- Compiled decoders ----
//
// The walker above reads the schema on every call: it builds the set of required keys, lists the
// properties, escapes each field name for a path that only an error needs, and converts bounds to
// bigints, for every field of every request. About a fifth of a signed request's main-thread cost.
// Compiling does that reading once per schema: each node becomes a closure holding what it needs,
// and runs the walker's checks in the walker's order with the walker's messages (the test
// fast-paths.test.ts compares both on mutated bodies). Field paths are joined only as strings.

type Decoder = (value: unknown, path: string) => unknown;

const compiledRefusing = new WeakMap<Json, Decoder>();
const compiledIgnoring = new WeakMap<Json, Decoder>();

function compiledFor(schema: Json, unknownFields: 'refuse' | 'ignore'): Decoder {
  const cache = unknownFields === 'refuse' ? compiledRefusing : compiledIgnoring;
  let decoder = cache.get(schema);
  if (decoder === undefined) {
    decoder = compile(schema, unknownFields);
    cache.set(schema, decoder);
  }
  return decoder;
}

function compile(schema: Json, unknownFields: 'refuse' | 'ignore'): Decoder {
  if ('const' in schema) return (value, path) => walkConst(schema, value, path);
  if ('anyOf' in schema) {
    let branch: Decoder | null = null;
    return (value, path) => {
      if (value === null) return null;
      branch ??= compile(nonNullBranch(schema, path), unknownFields);
      return branch(value, path);
    };
  }
  switch (schema['type']) {
    case 'object':
      return compileObject(schema, unknownFields);
    case 'array':
      return compileArray(schema, unknownFields);
    case 'string':
      return compileString(schema);
    case 'integer':
      return compileInteger(schema);
    case 'boolean':
      return (value, path) => {
        if (typeof value !== 'boolean')
          fail('WRONG_TYPE', path, `expected true or false, received ${received(value)}`);
        return value;
      };
    default:
      return (_value, path) => {
        throw new TypeError(`schema at \`${path}\` uses a construct the decoder does not support`);
      };
  }
}

interface CompiledField {
  readonly key: string;
  /** The key as it appears in a field path (escaped once, here). */
  readonly pathKey: string;
  readonly schema: Json;
  readonly required: boolean;
  decode: Decoder | null;
}

function compileObject(schema: Json, unknownFields: 'refuse' | 'ignore'): Decoder {
  const properties = (schema['properties'] ?? {}) as Record<string, Json>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const fields: CompiledField[] = Object.entries(properties).map(([key, propertySchema]) => ({
    key,
    pathKey: printable(key),
    schema: propertySchema,
    required: required.has(key),
    decode: null,
  }));
  return (value, path) => {
    if (!isPlainObject(value))
      return fail('WRONG_TYPE', path, `expected an object, received ${received(value)}`);
    if (unknownFields === 'refuse') {
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(properties, key)) {
          fail('UNKNOWN_FIELD', join(path, key), 'this field is not part of the interface; remove it');
        }
      }
    }
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const childPath = path === '' ? field.pathKey : `${path}.${field.pathKey}`;
      if (!Object.hasOwn(value, field.key)) {
        if (field.required) fail('MISSING_FIELD', childPath, `is required: ${expected(field.schema)}`);
        continue;
      }
      // Children compile on first use, so a recursive schema cannot loop here.
      field.decode ??= compile(field.schema, unknownFields);
      out[field.key] = field.decode(value[field.key], childPath);
    }
    return out;
  };
}

function compileArray(schema: Json, unknownFields: 'refuse' | 'ignore'): Decoder {
  let items: Decoder | null = null;
  return (value, path) => {
    if (!Array.isArray(value))
      return fail('WRONG_TYPE', path, `expected an array, received ${received(value)}`);
    const minItems = (schema['minItems'] as number | undefined) ?? 0;
    const maxItems = (schema['maxItems'] as number | undefined) ?? Number.POSITIVE_INFINITY;
    if (value.length < minItems || value.length > maxItems) {
      const bound =
        maxItems === Number.POSITIVE_INFINITY ? `at least ${minItems}` : `${minItems} to ${maxItems}`;
      fail('OUT_OF_RANGE', path, `expected ${bound} items, received ${value.length}`);
    }
    items ??= compile(schema['items'] as Json, unknownFields);
    const decodeItem = items;
    const out = value.map((item, index) => decodeItem(item, `${path}[${index}]`));
    if (schema['uniqueItems'] === true && new Set(out.map((v) => JSON.stringify(v))).size !== out.length) {
      fail('INVALID_FORMAT', path, 'items must not repeat');
    }
    return out;
  };
}

function compileString(schema: Json): Decoder {
  const choices = schema['enum'] as string[] | undefined;
  if (choices !== undefined) {
    const code = (schema['x-error-code'] as ErrorName | undefined) ?? 'INVALID_ENUM';
    return (value, path) => {
      if (typeof value !== 'string')
        return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
      if (!choices.includes(value))
        fail(code, path, `expected ${expected(schema)}, received "${printable(value)}"`);
      return value;
    };
  }
  if (schema['format'] === 'uint64-decimal') {
    return (value, path) => {
      if (typeof value !== 'string')
        return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
      return decimalU64(value, path);
    };
  }
  const code: ErrorName = schema['contentEncoding'] === 'base16' ? 'INVALID_HEX' : 'INVALID_FORMAT';
  const minLength = (schema['minLength'] as number | undefined) ?? 0;
  const maxLength = (schema['maxLength'] as number | undefined) ?? Number.POSITIVE_INFINITY;
  const pattern = schema['pattern'] as string | undefined;
  const regex = pattern === undefined ? null : compiled(pattern);
  return (value, path) => {
    if (typeof value !== 'string')
      return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
    if (value.length < minLength || value.length > maxLength) {
      fail(code, path, `expected ${expected(schema)}, received ${value.length} characters`);
    }
    if (regex !== null && !regex.test(value)) {
      fail(code, path, `expected ${expected(schema)}, received "${printable(value)}"`);
    }
    return value;
  };
}

function compileInteger(schema: Json): Decoder {
  const minimum = BigInt((schema['minimum'] as number | undefined) ?? 0);
  const isU64 = schema['format'] === 'uint64';
  const maximum = isU64
    ? U64_MAX
    : BigInt((schema['maximum'] as number | undefined) ?? Number.MAX_SAFE_INTEGER);
  return (value, path) => {
    if (!(value instanceof JsonNumberToken)) {
      return fail('WRONG_TYPE', path, `expected ${expected(schema)}, received ${received(value)}`);
    }
    const text = value.text;
    if (!JSON_INTEGER.test(text) || text === '-0') {
      fail(
        'NON_CANONICAL_NUMBER',
        path,
        `expected a plain integer without fraction or exponent, received ${printable(text)}`,
      );
    }
    const parsed = BigInt(text);
    if (parsed < minimum || parsed > maximum) {
      fail('OUT_OF_RANGE', path, `expected ${expected(schema)}, received ${printable(text)}`);
    }
    return isU64 ? parsed : Number(parsed);
  };
}
