// The stream's server frames, written with encodeServerMessage and read with decodeServerMessage:
// what the venue writes a client reads back exactly, u64 values included, with `op` or `channel`
// first and `seq` second; a frame its schema refuses is never written; a client reading strictly
// refuses fields it does not know, one reading leniently skips them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { AssertionError } from '../src/assert.ts';
import { parseJsonText } from '../src/json/json-text.ts';
import { ORDER_EVENT_KINDS } from '../src/schema/events.ts';
import {
  decodeServerMessage,
  encodeServerMessage,
  type ServerMessage,
  type Unsequenced,
} from '../src/schema/server-messages.ts';

const MARKET = 'So11111111111111111111111111111111111111112';
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));

const orderEvent = fc.record(
  {
    channel: fc.constant('orders' as const),
    order_id: hex(16),
    market_id: fc.constant(MARKET),
    match_id: u64,
    server_time_ms: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    kind: fc.constantFrom(...ORDER_EVENT_KINDS),
    filled_quantity: u64,
    lock_expiry_slot: u64,
  },
  { requiredKeys: ['channel', 'order_id', 'market_id', 'server_time_ms', 'kind'], noNullPrototype: true },
);

const treePage = fc.record(
  {
    channel: fc.constant('tree' as const),
    tree_id: fc.integer({ min: 0, max: 255 }),
    slot: u64,
    root: hex(32),
    leaf_count: u64,
    leaves: fc.array(fc.record({ index: u64, commitment: hex(32) }, { noNullPrototype: true }), {
      maxLength: 5,
    }),
  },
  { noNullPrototype: true },
);

const reply = fc.oneof(
  fc.record(
    { op: fc.constant('pong' as const), request_id: fc.constantFrom('r1', 'a.b:c-9') },
    { noNullPrototype: true },
  ),
  fc.record(
    {
      op: fc.constant('order.place' as const),
      result: fc.record(
        { order_id: hex(16), status: fc.constant('accepted' as const), arrival_slot: u64 },
        { noNullPrototype: true },
      ),
    },
    { noNullPrototype: true },
  ),
);

const frame: fc.Arbitrary<Unsequenced<ServerMessage>> = fc.oneof(orderEvent, treePage, reply);

test('a frame the venue encodes decodes strictly to itself with its seq, tag first and seq second', () => {
  fc.assert(
    fc.property(frame, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (value, seq) => {
      const text = encodeServerMessage(value).withSeq(seq);
      const tag = 'channel' in value ? `{"channel":"${value.channel}"` : `{"op":"${value.op}"`;
      assert.ok(text.startsWith(`${tag},"seq":${seq}`), text);
      assert.deepEqual(decodeServerMessage(parseJsonText(text)), { ...value, seq });
    }),
  );
});

test('match_id leaves as a decimal string, other u64 values as bare integers', () => {
  const text = encodeServerMessage({
    channel: 'orders',
    order_id: 'ab'.repeat(16),
    market_id: MARKET,
    match_id: 2n ** 64n - 1n,
    server_time_ms: 5,
    kind: 'pending_settlement',
    lock_expiry_slot: 2n ** 63n,
  }).withSeq(3);
  assert.equal(
    text,
    `{"channel":"orders","seq":3,"order_id":"${'ab'.repeat(16)}","market_id":"${MARKET}",` +
      '"match_id":"18446744073709551615","server_time_ms":5,"kind":"pending_settlement",' +
      '"lock_expiry_slot":9223372036854775808}',
  );
});

test('a frame its schema refuses fails an assertion and is never written', () => {
  const bad = [
    { channel: 'tree', tree_id: 256, slot: 1n, root: 'aa'.repeat(32), leaf_count: 0n, leaves: [] },
    { op: 'error', code: 1003, message: '' },
    { op: 'auth_expired', expires_at: 1.5 },
    { op: 'pong', extra: true },
  ];
  for (const value of bad) {
    assert.throws(
      () => encodeServerMessage(value as unknown as Unsequenced<ServerMessage>),
      (error: unknown) => error instanceof AssertionError && /breaks its schema/.test(error.message),
    );
  }
  assert.throws(() => encodeServerMessage({ op: 'pong' }).withSeq(0), AssertionError);
});

test('a strict reader refuses unknown fields and frames; a lenient one skips unknown fields', () => {
  const later = parseJsonText('{"op":"pong","seq":1,"added_in_4_2":true}');
  assert.throws(() => decodeServerMessage(later), /added_in_4_2/);
  assert.deepEqual(decodeServerMessage(later, { unknownFields: 'ignore' }), { op: 'pong', seq: 1 });
  assert.throws(() => decodeServerMessage(parseJsonText('{"op":"login.v2","seq":1}')), /not a server frame/);
  assert.throws(() => decodeServerMessage(parseJsonText('{"seq":1}')), /without op or channel/);
  assert.throws(() => decodeServerMessage(parseJsonText('[]')), /JSON object/);
});
