/**
 * The journal's encoding of a command: a small tagged binary form of the plain data the core's
 * commands are made of (null, booleans, numbers, bigints, strings, arrays, objects). It is exact for
 * bigints of any size, keeps object keys in their property order (decoding gives back an object
 * built in the same order), and skips properties whose value is `undefined`, as JSON does. The same
 * command value gives the same bytes. The layout is in docs/durability.md.
 */
import type { Command } from '@venue/core';
import { assert } from '@venue/protocol';
import { JOURNAL_COMMAND_BYTES_MAX } from '../config/limits.ts';

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

/** Encodes into a reusable scratch buffer; callers copy the returned view before the next call. */
export class CommandEncoder {
  readonly #buffer = Buffer.allocUnsafe(JOURNAL_COMMAND_BYTES_MAX);
  #offset = 0;

  encode(command: Command): Buffer {
    this.#offset = 0;
    this.#value(command);
    return this.#buffer.subarray(0, this.#offset);
  }

  #room(bytes: number): void {
    assert(
      this.#offset + bytes <= JOURNAL_COMMAND_BYTES_MAX,
      `a command encodes to more than JOURNAL_COMMAND_BYTES_MAX (${JOURNAL_COMMAND_BYTES_MAX} bytes)`,
    );
  }

  #tag(tag: number, bytes: number): void {
    this.#room(1 + bytes);
    this.#buffer[this.#offset] = tag;
    this.#offset += 1;
  }

  #value(value: unknown): void {
    if (value === null) this.#tag(TAG_NULL, 0);
    else if (value === true) this.#tag(TAG_TRUE, 0);
    else if (value === false) this.#tag(TAG_FALSE, 0);
    else if (typeof value === 'number') {
      this.#tag(TAG_NUMBER, 8);
      this.#offset = this.#buffer.writeDoubleLE(value, this.#offset);
    } else if (typeof value === 'bigint') this.#bigint(value);
    else if (typeof value === 'string') {
      this.#tag(TAG_STRING, 4);
      this.#string(value, 4);
    } else if (Array.isArray(value)) {
      this.#tag(TAG_ARRAY, 4);
      this.#offset = this.#buffer.writeUInt32LE(value.length, this.#offset);
      for (const item of value) this.#value(item);
    } else if (typeof value === 'object') this.#object(value as Record<string, unknown>);
    else assert(false, `a command holds a ${typeof value}, which the journal cannot encode`);
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

  #object(value: Record<string, unknown>): void {
    this.#tag(TAG_OBJECT, 4);
    const countAt = this.#offset;
    this.#offset += 4;
    let count = 0;
    for (const key of Object.keys(value)) {
      const field = value[key];
      if (field === undefined) continue;
      this.#string(key, 2);
      this.#value(field);
      count += 1;
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

/** Thrown when bytes that opened under the sealing key do not decode: a bug, never a torn write. */
export class CommandDecodeError extends Error {}

export function decodeCommand(bytes: Buffer): Command {
  const reader = { offset: 0 };
  const value = readValue(bytes, reader);
  if (reader.offset !== bytes.length) throw new CommandDecodeError('trailing bytes after the command');
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string')
    throw new CommandDecodeError('the record does not hold a command object');
  return value as Command;
}

function need(bytes: Buffer, reader: { offset: number }, count: number): void {
  if (reader.offset + count > bytes.length) throw new CommandDecodeError('the command ends early');
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
      throw new CommandDecodeError(`unknown tag ${tag}`);
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
  if (count > bytes.length - reader.offset) throw new CommandDecodeError('an array count exceeds the record');
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
      throw new CommandDecodeError(`the key ${key} is repeated or reserved`);
    object[key] = readValue(bytes, reader);
  }
  return object;
}
