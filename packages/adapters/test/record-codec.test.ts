// The journal's record codec (docs/durability.md, record encoding): every command kind comes back
// exactly, with and without annotations, field order and bigints included, and encodes to the same
// bytes again; a field the codec does not declare, a missing one or one of the wrong kind is a
// programmer error when writing and a decode error when reading; records written before
// annotations existed (version 1) still read, their annotations moved beside the command.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANNOTATIONS_SHAPE,
  COMMAND_SHAPES,
  decodeRecord,
  type JournalRecord,
  plainRecord,
  RECORD_VERSION,
  RecordDecodeError,
  RecordEncoder,
  type Shape,
} from '@venue/adapters';
import type { Command } from '@venue/core';
import { AssertionError } from '@venue/protocol';
import fc from 'fast-check';

/** Values of any `shape`: optional fields present or not, bigints in and beyond u64. */
function arbitraryOf(shape: Shape): fc.Arbitrary<unknown> {
  if (shape === 'string') return fc.string({ unit: 'grapheme', maxLength: 12 });
  if (shape === 'bigint') return fc.oneof(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.bigInt());
  if (shape === 'number') return fc.oneof(fc.integer(), fc.double());
  if (shape === 'boolean') return fc.boolean();
  if ('nullable' in shape) return fc.option(arbitraryOf(shape.nullable), { nil: null });
  if ('list' in shape) return fc.array(arbitraryOf(shape.list), { maxLength: 4 });
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape.fields)) {
    if (typeof field === 'object' && field !== null && 'optional' in field)
      model[key] = arbitraryOf(field.optional);
    else {
      model[key] = arbitraryOf(field);
      required.push(key);
    }
  }
  return fc.record(model, { requiredKeys: required, noNullPrototype: true });
}

const TYPES = Object.keys(COMMAND_SHAPES) as Command['type'][];

/** A record of every command kind; annotations only where they are declared (match_settled). */
const recordArb: fc.Arbitrary<JournalRecord> = fc.constantFrom(...TYPES).chain((type) => {
  const command = arbitraryOf(COMMAND_SHAPES[type]).map(
    (value) => ({ ...(value as object), type }) as Command,
  );
  const annotations =
    type === 'match_settled' ? arbitraryOf(ANNOTATIONS_SHAPE) : fc.constant<Record<string, never>>({});
  return fc.record({ command, annotations }, { noNullPrototype: true }) as fc.Arbitrary<JournalRecord>;
});

/** Text that tells property order and bigints from numbers apart. */
const text = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v));

test('every command kind, with and without annotations, decodes to what was encoded and encodes to the same bytes', () => {
  const encoder = new RecordEncoder();
  const seen = new Set<string>();
  fc.assert(
    fc.property(recordArb, (record) => {
      seen.add(`${record.command.type}${Object.keys(record.annotations).length > 0 ? '+' : ''}`);
      const bytes = Buffer.from(encoder.encode(record));
      assert.equal(bytes[0], RECORD_VERSION);
      const decoded = decodeRecord(bytes);
      assert.deepEqual(decoded, record);
      assert.equal(text(decoded), text(record));
      assert.ok(Buffer.from(encoder.encode(decoded)).equals(bytes));
    }),
    { seed: 18, numRuns: 2_000 },
  );
  for (const type of TYPES) assert.ok(seen.has(type), `${type} was generated`);
  assert.ok(seen.has('match_settled+'), 'annotated outcomes were generated');
});

/** Ways to break a record that type checks would catch, had the value not come from a cast. */
const BREAKS: { name: string; break(command: Record<string, unknown>): Record<string, unknown> }[] = [
  { name: 'an undeclared field', break: (c) => ({ ...c, changeOpening: { commitment: 'c' } }) },
  {
    name: 'a missing field',
    break: (c) => Object.fromEntries(Object.entries(c).filter(([key]) => key !== 'slot' && key !== 'market')),
  },
  { name: 'a field of the wrong kind', break: (c) => ({ ...c, type: c['type'], ...wrongKind(c) }) },
];

function wrongKind(command: Record<string, unknown>): Record<string, unknown> {
  const [key, value] = Object.entries(command).find(([k]) => k !== 'type') ?? ['type', ''];
  return { [key]: typeof value === 'string' ? 1 : 'not what was declared' };
}

for (const broken of BREAKS) {
  test(`${broken.name} asserts when encoding and is refused when decoding`, () => {
    const encoder = new RecordEncoder();
    fc.assert(
      fc.property(recordArb, (record) => {
        const command = broken.break({ ...record.command }) as unknown as Command;
        const bad = { command, annotations: record.annotations };
        assert.throws(() => encoder.encode(bad), AssertionError);
        assert.throws(() => decodeRecord(legacyBytes(bad)), RecordDecodeError);
      }),
      { seed: 18, numRuns: 300 },
    );
  });
}

test('an annotation beside a command it does not annotate, or of an undeclared kind, asserts', () => {
  const encoder = new RecordEncoder();
  const tick: Command = { type: 'tick', slot: 1n };
  assert.throws(() => encoder.encode({ command: tick, annotations: { landedBatchSeq: 3n } }), AssertionError);
  const settled: Command = { type: 'match_settled', marketId: 'm', matchId: 1n, changeNote: null, slot: 1n };
  const unknown = { command: settled, annotations: { batchReached: 3n } } as unknown as JournalRecord;
  assert.throws(() => encoder.encode(unknown), AssertionError);
});

/**
 * Bytes the version 1 journal wrote (the encoder before annotations, at 5377335): a match_settled
 * that carried its change opening and batch number as extra fields, and a tick.
 */
const VERSION_1_SETTLED = Buffer.from(
  '0807000000040074797065060d0000006d617463685f736574746c656408006d61726b6574496406050000006d2d736f6c07006d6174636849640409000000000000000a006368616e67654e6f746508030000000a00636f6d6d69746d656e74064000000063636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363050076616c75650406000000000000000600747265654964030000000000000000080062617463685365710403000000000000000d006368616e67654f70656e696e6708030000000a00636f6d6d69746d656e740640000000636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363630f006f776e6572436f6d6d69746d656e740640000000616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161616161610900696e6e6572486173680640000000626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262626262620400736c6f74042900000000000000',
  'hex',
);
const VERSION_1_TICK = Buffer.from(
  '080200000004007479706506040000007469636b0400736c6f74040700000000000000',
  'hex',
);

test('version 1 records read: the extra fields of match_settled become its annotations', () => {
  assert.deepEqual(decodeRecord(VERSION_1_SETTLED), {
    command: {
      type: 'match_settled',
      marketId: 'm-sol',
      matchId: 9n,
      changeNote: { commitment: 'c'.repeat(64), value: 6n, treeId: 0 },
      slot: 41n,
    },
    annotations: {
      changeOpening: {
        commitment: 'c'.repeat(64),
        ownerCommitment: 'a'.repeat(64),
        innerHash: 'b'.repeat(64),
      },
      landedBatchSeq: 3n,
    },
  });
  assert.deepEqual(decodeRecord(VERSION_1_TICK), plainRecord({ type: 'tick', slot: 7n }));
});

test('a record of a version this build does not know is refused, naming the version', () => {
  const bytes = Buffer.from(new RecordEncoder().encode(plainRecord({ type: 'tick', slot: 1n })));
  bytes[0] = RECORD_VERSION + 1;
  assert.throws(() => decodeRecord(bytes), /record format version 3 is not one this build reads/);
});

/**
 * The version 1 layout of a command, made by hand: a tagged object, the decoder's only way in for a
 * command that does not fit its declaration.
 */
function legacyBytes(record: { command: unknown }): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const str = (s: string, prefix: 2 | 4) => {
    const body = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(prefix);
    if (prefix === 2) len.writeUInt16LE(body.length);
    else len.writeUInt32LE(body.length);
    return Buffer.concat([len, body]);
  };
  const value = (v: unknown): void => {
    if (v === null) parts.push(Buffer.from([0x00]));
    else if (typeof v === 'boolean') parts.push(Buffer.from([v ? 0x02 : 0x01]));
    else if (typeof v === 'number') {
      const b = Buffer.alloc(9);
      b[0] = 0x03;
      b.writeDoubleLE(v, 1);
      parts.push(b);
    } else if (typeof v === 'bigint') parts.push(Buffer.from([0x05]), str(v.toString(), 2));
    else if (typeof v === 'string') parts.push(Buffer.from([0x06]), str(v, 4));
    else if (Array.isArray(v)) {
      parts.push(Buffer.from([0x07]), u32(v.length));
      for (const item of v) value(item);
    } else {
      const entries = Object.entries(v as object).filter(([, field]) => field !== undefined);
      parts.push(Buffer.from([0x08]), u32(entries.length));
      for (const [key, field] of entries) {
        parts.push(str(key, 2));
        value(field);
      }
    }
  };
  value(record.command);
  return Buffer.concat(parts);
}
