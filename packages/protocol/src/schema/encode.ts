import type { Static, TSchema } from 'typebox';
import { stringifyJson } from '../json/json-text.ts';
import { nonNullBranch } from './decode.ts';

/**
 * The mirror of decode.ts: turns a typed value into its wire form, driven by the same schema. Most
 * fields are written as they are (bigint becomes a bare JSON integer); a u64 whose schema says it
 * travels as a decimal string (`cancel_nonce`) is written as one. Encoding then decoding with one
 * schema is the identity, which the tests check for every signed request.
 */

type Json = Record<string, unknown>;

export function toWire<T extends TSchema>(schema: T, value: Static<T>): unknown {
  return write(schema as unknown as Json, value);
}

/** JSON text of a value as the venue expects it on the wire. */
export function wireJsonText<T extends TSchema>(schema: T, value: Static<T>): string {
  return stringifyJson(toWire(schema, value));
}

function write(schema: Json, value: unknown): unknown {
  if ('anyOf' in schema) return value === null ? null : write(nonNullBranch(schema, ''), value);
  if (schema['format'] === 'uint64-decimal' && typeof value === 'bigint') return value.toString();
  if (schema['type'] === 'array' && Array.isArray(value)) {
    const items = schema['items'] as Json;
    return value.map((item) => write(items, item));
  }
  if (schema['type'] === 'object' && typeof value === 'object' && value !== null) {
    const properties = (schema['properties'] ?? {}) as Record<string, Json>;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      const propertySchema = properties[key];
      if (field !== undefined) out[key] = propertySchema === undefined ? field : write(propertySchema, field);
    }
    return out;
  }
  return value;
}
