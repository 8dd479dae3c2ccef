import { assert } from '../assert.ts';
import { U8_MAX, U64_MAX } from '../limits.ts';
import { SYMBOL_PATTERN } from '../schema/primitives.ts';

const SYMBOL = new RegExp(SYMBOL_PATTERN);

/**
 * A canonical encoding is a fixed sequence of fixed-size fields. One declarative layout per body
 * drives the encoder, the decoder and the byte-layout tables of docs/protocol.md, so the three
 * cannot disagree. Integers are big-endian; hex fields are their raw bytes; nothing is variable in
 * length, so every encoding of a body type has the same size and no two bodies share bytes.
 */

export type FieldKind =
  | { kind: 'domain'; tag: string }
  | { kind: 'symbol' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'u64' }
  | { kind: 'u8' }
  | { kind: 'hex'; bytes: number }
  | { kind: 'optional-u64' };

export interface LayoutField {
  /** JSON field name the value comes from (the domain tag has none). */
  readonly name: string;
  readonly type: FieldKind;
  /** One line for the docs: how the value is written. */
  readonly note: string;
}

/** Size of the symbol slot: one length byte, then ASCII, then zero padding. */
export const SYMBOL_SLOT_BYTES = 32;

export function sizeOf(type: FieldKind): number {
  switch (type.kind) {
    case 'domain':
      return type.tag.length + 1;
    case 'symbol':
      return SYMBOL_SLOT_BYTES;
    case 'enum':
    case 'u8':
      return 1;
    case 'u64':
      return 8;
    case 'hex':
      return type.bytes;
    case 'optional-u64':
      return 9;
  }
}

export interface PlacedField extends LayoutField {
  readonly offset: number;
  readonly length: number;
}

/** Computes every field's offset; used by the codec and by the docs generator. */
export function place(fields: readonly LayoutField[]): { fields: PlacedField[]; size: number } {
  let offset = 0;
  const placed = fields.map((field) => {
    const length = sizeOf(field.type);
    const at = offset;
    offset += length;
    return { ...field, offset: at, length };
  });
  return { fields: placed, size: offset };
}

/** Writes values (already validated by the schema decoder) into their fixed slots. */
export function encodeLayout(
  layout: readonly PlacedField[],
  size: number,
  values: Record<string, unknown>,
): Uint8Array {
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  // A Buffer over the same bytes writes hex and ASCII in place, without a Buffer per field.
  const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  for (const field of layout) {
    const value = values[field.name];
    const type = field.type;
    switch (type.kind) {
      case 'domain':
        bytes.write(type.tag, field.offset, 'ascii'); // followed by its zero terminator
        break;
      case 'symbol': {
        assert(typeof value === 'string' && SYMBOL.test(value), `${field.name}: symbol expected`);
        out[field.offset] = value.length;
        bytes.write(value, field.offset + 1, 'ascii');
        break;
      }
      case 'enum': {
        const index = type.values.indexOf(value as string);
        assert(index >= 0, `${field.name}: value outside ${type.values.join('/')}`);
        out[field.offset] = index;
        break;
      }
      case 'u64':
        view.setBigUint64(field.offset, checkedU64(field.name, value ?? 0n));
        break;
      case 'u8': {
        const byte = value ?? 0;
        assert(
          Number.isInteger(byte) && (byte as number) >= 0 && (byte as number) <= U8_MAX,
          `${field.name}: u8 expected`,
        );
        out[field.offset] = byte as number;
        break;
      }
      case 'hex': {
        assert(
          typeof value === 'string' && value.length === type.bytes * 2,
          `${field.name}: ${type.bytes} bytes expected`,
        );
        bytes.write(value, field.offset, 'hex');
        break;
      }
      case 'optional-u64':
        if (value !== undefined) {
          out[field.offset] = 1;
          view.setBigUint64(field.offset + 1, checkedU64(field.name, value));
        }
        break;
    }
  }
  return out;
}

function checkedU64(name: string, value: unknown): bigint {
  assert(typeof value === 'bigint' && value >= 0n && value <= U64_MAX, `${name}: u64 expected`);
  return value;
}

/**
 * Reads canonical bytes back into JSON-shaped values. Refuses anything an encoder could not have
 * produced: a wrong size or domain, an enum byte out of range, non-zero padding, a presence flag
 * other than 0 or 1. Returns a description of the first problem instead of throwing, so callers
 * choose their error.
 */
export function decodeLayout(
  layout: readonly PlacedField[],
  size: number,
  bytes: Uint8Array,
): { ok: true; values: Record<string, unknown> } | { ok: false; problem: string } {
  if (bytes.length !== size)
    return { ok: false, problem: `expected ${size} bytes, received ${bytes.length}` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: Record<string, unknown> = {};
  for (const field of layout) {
    const slot = bytes.subarray(field.offset, field.offset + field.length);
    const type = field.type;
    switch (type.kind) {
      case 'domain': {
        const want = Buffer.concat([Buffer.from(type.tag, 'ascii'), Buffer.alloc(1)]);
        if (!want.equals(slot)) return { ok: false, problem: `domain is not "${type.tag}"` };
        break;
      }
      case 'symbol': {
        const length = slot[0] ?? 0;
        const text = Buffer.from(slot.subarray(1, 1 + length)).toString('latin1'); // 'ascii' drops bit 7
        if (length === 0 || length > SYMBOL_SLOT_BYTES - 1 || !SYMBOL.test(text)) {
          return { ok: false, problem: `${field.name} is not a valid symbol slot` };
        }
        if (slot.subarray(1 + length).some((b) => b !== 0))
          return { ok: false, problem: `${field.name} padding is not zero` };
        values[field.name] = text;
        break;
      }
      case 'enum': {
        const value = type.values[slot[0] ?? 255];
        if (value === undefined)
          return { ok: false, problem: `${field.name} byte ${slot[0]} is not a valid value` };
        values[field.name] = value;
        break;
      }
      case 'u64':
        values[field.name] = view.getBigUint64(field.offset);
        break;
      case 'u8':
        values[field.name] = slot[0];
        break;
      case 'hex':
        values[field.name] = Buffer.from(slot).toString('hex');
        break;
      case 'optional-u64': {
        const flag = slot[0];
        const amount = view.getBigUint64(field.offset + 1);
        if (flag === 1) values[field.name] = amount;
        else if (flag !== 0 || amount !== 0n)
          return { ok: false, problem: `${field.name} presence flag is malformed` };
        break;
      }
    }
  }
  return { ok: true, values };
}
