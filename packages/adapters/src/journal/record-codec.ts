/**
 * The journal's encoding of a record (journal-record.ts): a version byte, then the command, then
 * its annotations, each in a small tagged binary form of plain data (null, booleans, numbers,
 * bigints, strings, arrays, objects). Only declared fields are written and read (record-shapes.ts):
 * an undeclared field, a missing one or a value of the wrong kind is a programmer error when
 * encoding (it asserts) and a RecordDecodeError when decoding. Bigints of any size are exact, object
 * keys keep their property order, and the same record gives the same bytes. The layout, and how
 * records written before annotations existed are read, are in docs/durability.md.
 */
import type { Command } from '@venue/core';
import { assert } from '@venue/protocol';
import { JOURNAL_COMMAND_BYTES_MAX } from '../config/limits.ts';
import { ANNOTATED_COMMANDS, type Annotations, type JournalRecord } from './journal-record.ts';
import { ANNOTATIONS_SHAPE, commandShape, type Shape } from './record-shapes.ts';

/**
 * The record format this build writes. Version 1 records (before annotations) had no version byte:
 * they were the bare command, whose first byte is always TAG_OBJECT, so the two cannot be confused.
 */
export const RECORD_VERSION = 2;

const TAG_NULL = 0x00;
const TAG_FALSE = 0x01;
const TAG_TRUE = 0x02;
const TAG_NUMBER = 0x03; // float64, little-endian
const TAG_U64 = 0x04; // bigint in [0, 2^64): 8 bytes little-endian
const TAG_BIGINT = 0x05; // any other bigint: u16 length + ASCII decimal
const TAG_STRING = 0x06; // u32 byte length + UTF-8
const TAG_ARRAY = 0x07; // u32 count + items
const TAG_OBJECT = 0x08; // u32 count + (u16 key length + UTF-8 key, value) pairs

const U64_MAX = (1n << 64n) - 1n;

type Fields = Extract<Shape, { fields: unknown }>['fields'];

/** Encodes into a reusable scratch buffer; callers copy the returned view before the next call. */
export class RecordEncoder {
  readonly #buffer = Buffer.allocUnsafe(JOURNAL_COMMAND_BYTES_MAX);
  #offset = 0;

  encode(record: JournalRecord): Buffer {
    const { command, annotations } = record;
    const shape = commandShape(command.type);
    assert(shape !== undefined, `the journal declares no command of type ${command.type}`);
    assertAnnotates(command, annotations);
    this.#offset = 0;
    this.#room(1);
    this.#buffer[this.#offset] = RECORD_VERSION;
    this.#offset += 1;
    this.#value(command, shape, command.type);
    this.#value(annotations, ANNOTATIONS_SHAPE, `annotations of ${command.type}`);
    return this.#buffer.subarray(0, this.#offset);
  }

  #room(bytes: number): void {
    assert(
      this.#offset + bytes <= JOURNAL_COMMAND_BYTES_MAX,
      `a record encodes to more than JOURNAL_COMMAND_BYTES_MAX (${JOURNAL_COMMAND_BYTES_MAX} bytes)`,
    );
  }

  #tag(tag: number, bytes: number): void {
    this.#room(1 + bytes);
    this.#buffer[this.#offset] = tag;
    this.#offset += 1;
  }

  #value(value: unknown, shape: Shape, path: string): void {
    if (typeof shape === 'object' && 'nullable' in shape) {
      if (value === null) this.#tag(TAG_NULL, 0);
      else this.#value(value, shape.nullable, path);
    } else if (typeof shape === 'object' && 'list' in shape) {
      assert(Array.isArray(value), `${path}: expected a list`);
      this.#tag(TAG_ARRAY, 4);
      this.#offset = this.#buffer.writeUInt32LE(value.length, this.#offset);
      for (const [i, item] of value.entries()) this.#value(item, shape.list, `${path}[${i}]`);
    } else if (typeof shape === 'object') this.#object(value, shape.fields, path);
    else {
      assert(typeof value === shape, `${path}: expected a ${shape}, got a ${typeof value}`);
      if (typeof value === 'boolean') this.#tag(value ? TAG_TRUE : TAG_FALSE, 0);
      else if (typeof value === 'number') {
        this.#tag(TAG_NUMBER, 8);
        this.#offset = this.#buffer.writeDoubleLE(value, this.#offset);
      } else if (typeof value === 'bigint') this.#bigint(value);
      else {
        this.#tag(TAG_STRING, 4);
        this.#string(value as string, 4);
      }
    }
  }

  #bigint(value: bigint): void {
    if (value >= 0n && value <= U64_MAX) {
      this.#tag(TAG_U64, 8);
      this.#offset = this.#buffer.writeBigUInt64LE(value, this.#offset);
      return;
    }
    this.#tag(TAG_BIGINT, 2);
    this.#string(value.toString(), 2);
  }

  /** Writes the object's own properties in their order; each must be declared. */
  #object(value: unknown, fields: Fields, path: string): void {
    assert(
      typeof value === 'object' && value !== null && !Array.isArray(value),
      `${path}: expected an object`,
    );
    const object = value as Readonly<Record<string, unknown>>;
    this.#tag(TAG_OBJECT, 4);
    const countAt = this.#offset;
    this.#offset += 4;
    let count = 0;
    for (const key of Object.keys(object)) {
      const field = object[key];
      if (field === undefined) continue;
      const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
      assert(shape !== undefined, `${path}.${key} is not a declared field (journal/record-shapes.ts)`);
      this.#string(key, 2);
      this.#value(
        field,
        typeof shape === 'object' && 'optional' in shape ? shape.optional : shape,
        `${path}.${key}`,
      );
      count += 1;
    }
    for (const [key, shape] of Object.entries(fields)) {
      if (typeof shape === 'object' && 'optional' in shape) continue;
      assert(object[key] !== undefined, `${path}.${key} is missing`);
    }
    this.#buffer.writeUInt32LE(count, countAt);
  }

  /** Writes a length prefix of `prefixBytes` (2 or 4) and the UTF-8 bytes. */
  #string(text: string, prefixBytes: 2 | 4): void {
    this.#room(prefixBytes + text.length * 3);
    const start = this.#offset + prefixBytes;
    const written = this.#buffer.write(text, start, 'utf8');
    if (prefixBytes === 2) {
      assert(written <= 0xffff, 'a key or bigint longer than 65535 bytes cannot be encoded');
      this.#buffer.writeUInt16LE(written, this.#offset);
    } else this.#buffer.writeUInt32LE(written, this.#offset);
    this.#offset = start + written;
  }
}

/** Each annotation rides only beside the command types it is declared for. */
function assertAnnotates(command: Command, annotations: Annotations): void {
  for (const kind of Object.keys(annotations) as (keyof Annotations)[]) {
    if (annotations[kind] === undefined) continue;
    const types = ANNOTATED_COMMANDS[kind];
    assert(types !== undefined, `annotations.${kind} is not a declared annotation`);
    assert(types.includes(command.type), `annotations.${kind} does not annotate a ${command.type} command`);
  }
}

/** Thrown when bytes that opened under the sealing key do not decode: a bug, never a torn write. */
export class RecordDecodeError extends Error {}

/** Decodes a record of this version, or of version 1 (a bare command, docs/durability.md). */
export function decodeRecord(bytes: Buffer): JournalRecord {
  const reader = { offset: 0 };
  if (bytes[0] === TAG_OBJECT) return legacyRecord(readValue(bytes, reader), bytes, reader);
  if (bytes[0] !== RECORD_VERSION) {
    throw new RecordDecodeError(
      `record format version ${bytes[0]} is not one this build reads (it writes ${RECORD_VERSION} and reads 1): a journal of a newer build`,
    );
  }
  reader.offset = 1;
  const command = readValue(bytes, reader);
  const annotations = readValue(bytes, reader);
  if (reader.offset !== bytes.length) throw new RecordDecodeError('trailing bytes after the record');
  return checkedRecord(command, annotations);
}

/**
 * A version 1 record: the command alone, with the annotations of that time as extra fields of
 * `match_settled` (`changeOpening`, and `batchSeq`, now `landedBatchSeq`). They move beside it.
 */
function legacyRecord(value: unknown, bytes: Buffer, reader: { offset: number }): JournalRecord {
  if (reader.offset !== bytes.length) throw new RecordDecodeError('trailing bytes after the command');
  if (!isObject(value) || value['type'] !== 'match_settled') return checkedRecord(value, {});
  const { changeOpening, batchSeq, ...command } = value;
  const annotations = {
    ...(changeOpening === undefined ? {} : { changeOpening }),
    ...(batchSeq === undefined ? {} : { landedBatchSeq: batchSeq }),
  };
  return checkedRecord(command, annotations);
}

function checkedRecord(command: unknown, annotations: unknown): JournalRecord {
  if (!isObject(command) || typeof command['type'] !== 'string')
    throw new RecordDecodeError('the record does not hold a command object');
  const shape = commandShape(command['type']);
  if (shape === undefined)
    throw new RecordDecodeError(`the record holds an unknown command type ${command['type']}`);
  conform(command, shape, command['type']);
  conform(annotations, ANNOTATIONS_SHAPE, 'annotations');
  const record = { command, annotations } as unknown as JournalRecord;
  for (const kind of Object.keys(record.annotations) as (keyof Annotations)[]) {
    if (!ANNOTATED_COMMANDS[kind].includes(record.command.type))
      throw new RecordDecodeError(`annotations.${kind} beside a ${record.command.type} command`);
  }
  return record;
}

/** Checks a decoded value against its declared shape; the cast in checkedRecord rests on this. */
function conform(value: unknown, shape: Shape, path: string): void {
  const problem = mismatch(value, shape);
  if (problem !== null) throw new RecordDecodeError(`${path}${problem}`);
}

/**
 * Where `value` departs from `shape`, as a path suffix and what was expected, or null. The path is
 * built only on the way out of a mismatch: recovery checks every field of every record, and
 * building a path string per field made it about 1.6 times slower.
 */
function mismatch(value: unknown, shape: Shape): string | null {
  if (typeof shape === 'string') return typeof value === shape ? null : `: expected a ${shape}`;
  if ('nullable' in shape) return value === null ? null : mismatch(value, shape.nullable);
  if ('list' in shape) {
    if (!Array.isArray(value)) return ': expected a list';
    for (let i = 0; i < value.length; i += 1) {
      const problem = mismatch(value[i], shape.list);
      if (problem !== null) return `[${i}]${problem}`;
    }
    return null;
  }
  if (!isObject(value)) return ': expected an object';
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(shape.fields, key)) return `: expected no field ${key}`;
  }
  for (const key in shape.fields) {
    const field = shape.fields[key] as Shape | { readonly optional: Shape };
    const optional = typeof field === 'object' && 'optional' in field;
    if (value[key] === undefined) {
      if (!optional) return `: expected a field ${key}`;
      continue;
    }
    const problem = mismatch(value[key], optional ? field.optional : field);
    if (problem !== null) return `.${key}${problem}`;
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function need(bytes: Buffer, reader: { offset: number }, count: number): void {
  if (reader.offset + count > bytes.length) throw new RecordDecodeError('the record ends early');
}

function readValue(bytes: Buffer, reader: { offset: number }): unknown {
  need(bytes, reader, 1);
  const tag = bytes[reader.offset];
  reader.offset += 1;
  switch (tag) {
    case TAG_NULL:
      return null;
    case TAG_FALSE:
      return false;
    case TAG_TRUE:
      return true;
    case TAG_NUMBER:
      need(bytes, reader, 8);
      reader.offset += 8;
      return bytes.readDoubleLE(reader.offset - 8);
    case TAG_U64:
      need(bytes, reader, 8);
      reader.offset += 8;
      return bytes.readBigUInt64LE(reader.offset - 8);
    case TAG_BIGINT:
      return BigInt(readString(bytes, reader, 2));
    case TAG_STRING:
      return readString(bytes, reader, 4);
    case TAG_ARRAY:
      return readArray(bytes, reader);
    case TAG_OBJECT:
      return readObject(bytes, reader);
    default:
      throw new RecordDecodeError(`unknown tag ${tag}`);
  }
}

function readString(bytes: Buffer, reader: { offset: number }, prefixBytes: 2 | 4): string {
  need(bytes, reader, prefixBytes);
  const length = prefixBytes === 2 ? bytes.readUInt16LE(reader.offset) : bytes.readUInt32LE(reader.offset);
  reader.offset += prefixBytes;
  need(bytes, reader, length);
  reader.offset += length;
  return bytes.toString('utf8', reader.offset - length, reader.offset);
}

function readArray(bytes: Buffer, reader: { offset: number }): unknown[] {
  need(bytes, reader, 4);
  const count = bytes.readUInt32LE(reader.offset);
  reader.offset += 4;
  if (count > bytes.length - reader.offset) throw new RecordDecodeError('an array count exceeds the record');
  const items: unknown[] = [];
  for (let i = 0; i < count; i++) items.push(readValue(bytes, reader));
  return items;
}

function readObject(bytes: Buffer, reader: { offset: number }): Record<string, unknown> {
  need(bytes, reader, 4);
  const count = bytes.readUInt32LE(reader.offset);
  reader.offset += 4;
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = readString(bytes, reader, 2);
    if (Object.hasOwn(object, key) || key === '__proto__')
      throw new RecordDecodeError(`the key ${key} is repeated or reserved`);
    object[key] = readValue(bytes, reader);
  }
  return object;
}
