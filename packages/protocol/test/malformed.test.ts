/**
 * Malformed requests: for every field of the place-order body, the cancel params and the modify
 * request (the replacement's fields reported as `replacement.x`), the strict decoder refuses a
 * wrong type, a wrong hex length, an out-of-range integer, a missing required field and an extra
 * field, each with its catalogue code and a message naming the field. Plus the JSON-level guards:
 * duplicate keys, nesting depth, size, `__proto__`, and that decoding never mutates its input.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { x25519 } from '@noble/curves/ed25519.js';
import {
  decodeCancelParams,
  decodeModifyRequest,
  decodePlaceOrder,
  JsonNumberToken,
  parseJsonText,
  sha256,
  signCancel,
  signModify,
  signPlaceOrder,
  stringifyJson,
  tradingKeyFromSeed,
  type UnsignedPlaceOrder,
  VenueError,
} from '@venue/protocol';
import { codeOf } from '@venue/testing';

type Obj = Record<string, unknown>;
const num = (text: string) => new JsonNumberToken(text);
const hexOfLabel = (label: string, bytes: number) =>
  Buffer.concat(Array.from({ length: Math.ceil(bytes / 32) }, (_, i) => sha256(Buffer.from(`${label}${i}`))))
    .subarray(0, bytes)
    .toString('hex');

// ---------------------------------------------------------------------------------------------
// Valid requests the cases start from

const key = tradingKeyFromSeed(sha256(Buffer.from('malformed-test-key')));
const SESSION = hexOfLabel('session', 32);
const OLD_ORDER_ID = hexOfLabel('old-order', 16);

const unsigned: UnsignedPlaceOrder = {
  symbol: 'SOL-USDC',
  side: 'bid',
  order_type: 'limit',
  amount: 1_000n,
  price_limit: 2_000n,
  min_fill_size: 10n,
  expiry_slot: 5_000n,
  order_id: hexOfLabel('order', 16),
  note_commitment: hexOfLabel('note', 32),
  arrival_nonce: 7n,
  trading_key: key.publicKey,
  owner_commitment: hexOfLabel('owner', 32),
  note_inner_hash: hexOfLabel('inner', 32),
  merkle_root: hexOfLabel('root', 32),
  valid_input_proof: hexOfLabel('proof', 256),
  collateral_amount: 3_000_000n,
  tree_id: 2,
  viewing_pubkey: Buffer.from(x25519.getPublicKey(sha256(Buffer.from('viewing')))).toString('hex'),
  session_id: SESSION,
};
const placed = signPlaceOrder(unsigned, key);
const placeWire = (): Obj => ({ ...placed });

const cancelWire = (): Obj => ({
  trading_key: key.publicKey,
  cancel_nonce: '12',
  session_id: SESSION,
  trading_key_signature: signCancel(
    { order_id: OLD_ORDER_ID, trading_key: key.publicKey, cancel_nonce: 12n, session_id: SESSION },
    key,
  ),
});

const modifySigned = signModify(OLD_ORDER_ID, 13n, placed, key);
const modifyWire = (replacement: Obj = placeWire()): Obj => ({
  cancel_signature: modifySigned.cancel_signature,
  cancel_nonce: '13',
  replacement,
});

// ---------------------------------------------------------------------------------------------
// The fields, described here independently of the schema

type Kind =
  | { kind: 'symbol' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'u64' }
  | { kind: 'u8' }
  | { kind: 'hex'; bytes: number }
  | { kind: 'decimal' }
  | { kind: 'object' };
type Field = { name: string; required: boolean } & Kind;

const hex = (name: string, bytes: number): Field => ({ name, required: true, kind: 'hex', bytes });
const u64 = (name: string, required = true): Field => ({ name, required, kind: 'u64' });

const PLACE_FIELDS: Field[] = [
  { name: 'symbol', required: true, kind: 'symbol' },
  { name: 'side', required: true, kind: 'enum', values: ['bid', 'ask'] },
  { name: 'order_type', required: true, kind: 'enum', values: ['limit', 'ioc', 'fok'] },
  u64('amount'),
  u64('price_limit'),
  u64('min_fill_size', false),
  u64('expiry_slot'),
  hex('order_id', 16),
  hex('note_commitment', 32),
  u64('arrival_nonce'),
  hex('trading_key', 32),
  hex('trading_key_signature', 64),
  hex('owner_commitment', 32),
  hex('note_inner_hash', 32),
  hex('merkle_root', 32),
  hex('valid_input_proof', 256),
  u64('collateral_amount', false),
  { name: 'tree_id', required: false, kind: 'u8' },
  hex('viewing_pubkey', 32),
  hex('session_id', 32),
];
const CANCEL_FIELDS: Field[] = [
  hex('trading_key', 32),
  { name: 'cancel_nonce', required: true, kind: 'decimal' },
  hex('session_id', 32),
  hex('trading_key_signature', 64),
];
const MODIFY_FIELDS: Field[] = [
  hex('cancel_signature', 64),
  { name: 'cancel_nonce', required: true, kind: 'decimal' },
  { name: 'replacement', required: true, kind: 'object' },
];

/** A body with one field set (or removed, for undefined), decoded through the JSON text path. */
interface Target {
  label: string;
  prefix: string;
  fields: Field[];
  /** The request with field `name` of the target object replaced. */
  build: (name: string, value: unknown) => Obj;
  decode: (json: unknown) => unknown;
}

function set(base: Obj, name: string, value: unknown): Obj {
  const copy = { ...base };
  if (value === undefined) delete copy[name];
  else copy[name] = value;
  return copy;
}

const TARGETS: Target[] = [
  {
    label: 'place',
    prefix: '',
    fields: PLACE_FIELDS,
    build: (n, v) => set(placeWire(), n, v),
    decode: decodePlaceOrder,
  },
  {
    label: 'cancel',
    prefix: '',
    fields: CANCEL_FIELDS,
    build: (n, v) => set(cancelWire(), n, v),
    decode: decodeCancelParams,
  },
  {
    label: 'modify',
    prefix: '',
    fields: MODIFY_FIELDS,
    build: (n, v) => set(modifyWire(), n, v),
    decode: decodeModifyRequest,
  },
  {
    label: 'modify replacement',
    prefix: 'replacement.',
    fields: PLACE_FIELDS,
    build: (n, v) => modifyWire(set(placeWire(), n, v)),
    decode: decodeModifyRequest,
  },
];

function refusal(target: Target, request: Obj): VenueError | undefined {
  try {
    target.decode(parseJsonText(stringifyJson(request)));
  } catch (error) {
    if (error instanceof VenueError) return error;
    throw error;
  }
  return undefined;
}

/** Asserts the refusal code and that the message names the field by its full path. */
function assertRefused(target: Target, request: Obj, code: number, path: string): void {
  const error = refusal(target, request);
  assert.ok(error, `${path}: expected refusal ${code}, the request was accepted`);
  assert.equal(error.code, code, `${path}: ${error.message}`);
  assert.ok(error.message.includes(`\`${path}\``), `message names ${path}: ${error.message}`);
}

/** Wrong JSON types for a field of this kind. */
function wrongTypes(field: Field): unknown[] {
  const common = [null, true, [], {}];
  switch (field.kind) {
    case 'u64':
    case 'u8':
      return [...common, '1', ''];
    case 'object':
      return [null, true, [], 'x', num('1')];
    default:
      return [...common, num('1')];
  }
}

// ---------------------------------------------------------------------------------------------

describe('the starting requests are valid', () => {
  // Without this, every refusal below could come from a broken base request.
  test('place, cancel and modify bases decode', () => {
    for (const target of TARGETS)
      assert.equal(refusal(target, target.build('__none__', undefined)), undefined);
  });
});

for (const target of TARGETS) {
  describe(`${target.label}: every field`, () => {
    for (const field of target.fields) {
      const path = `${target.prefix}${field.name}`;

      // A value of the wrong JSON type is refused with 1003, naming the field.
      test(`${path}: wrong type -> 1003`, () => {
        for (const value of wrongTypes(field))
          assertRefused(target, target.build(field.name, value), 1003, path);
      });

      if (field.required) {
        // A required field that is absent is refused with 1002, naming the field.
        test(`${path}: missing -> 1002`, () => {
          assertRefused(target, target.build(field.name, undefined), 1002, path);
        });
      } else {
        // An optional field may be omitted.
        test(`${path}: optional, may be omitted`, () => {
          assert.equal(refusal(target, target.build(field.name, undefined)), undefined);
        });
      }

      if (field.kind === 'hex') {
        // Fixed-size hex: one byte short, one byte long, odd length, non-hex, uppercase -> 1004.
        test(`${path}: wrong hex length or characters -> 1004`, () => {
          const good = 'ab'.repeat(field.bytes);
          for (const value of [
            good.slice(2),
            `${good}ab`,
            good.slice(1),
            '',
            `${good.slice(1)}g`,
            `${good.slice(2)}AB`,
            `${good.slice(2)} a`,
            `0x${good.slice(2)}`,
          ]) {
            assertRefused(target, target.build(field.name, value), 1004, path);
          }
        });
      }

      if (field.kind === 'u64' || field.kind === 'u8') {
        const max = field.kind === 'u64' ? 2n ** 64n - 1n : 255n;
        // Integers outside the type's range -> 1005; the bounds themselves are accepted.
        test(`${path}: out of range -> 1005`, () => {
          for (const text of [(max + 1n).toString(), '-1', '99999999999999999999999999999']) {
            assertRefused(target, target.build(field.name, num(text)), 1005, path);
          }
        });
        // A number with a fraction, exponent or minus zero -> 1006.
        test(`${path}: non-canonical number -> 1006`, () => {
          for (const text of ['1.0', '1e3', '1E0', '-0', '0.5']) {
            assertRefused(target, target.build(field.name, num(text)), 1006, path);
          }
        });
      }

      if (field.kind === 'enum') {
        // A string outside the fixed set -> 1007.
        test(`${path}: value outside the enum -> 1007`, () => {
          for (const value of ['', field.values[0]?.toUpperCase(), 'market', 'buy', `${field.values[0]} `]) {
            assertRefused(target, target.build(field.name, value), 1007, path);
          }
        });
      }

      if (field.kind === 'symbol') {
        // A symbol that is not BASE-QUOTE of A-Z 0-9 (1-12 each) -> 1009.
        test(`${path}: malformed symbol -> 1009`, () => {
          for (const value of [
            'sol-usdc',
            'SOLUSDC',
            'SOL-',
            '-USDC',
            'SOL_USDC',
            'ABCDEFGHIJKLM-USDC',
            'A-B-C',
            '',
          ]) {
            assertRefused(target, target.build(field.name, value), 1009, path);
          }
        });
      }

      if (field.kind === 'decimal') {
        // cancel_nonce is a canonical decimal string: anything else -> 1006; above u64 -> 1005.
        test(`${path}: non-canonical decimal -> 1006, above u64 -> 1005`, () => {
          for (const value of ['01', '+1', '1.0', '', ' 1', '1 ', '-1', '007', '0x1', '1e3', '١']) {
            assertRefused(target, target.build(field.name, value), 1006, path);
          }
          assertRefused(target, target.build(field.name, '18446744073709551616'), 1005, path);
          assert.equal(refusal(target, target.build(field.name, '18446744073709551615')), undefined);
          assert.equal(refusal(target, target.build(field.name, '0')), undefined);
        });
      }
    }

    // A field the interface does not define -> 1001, naming it (here and inside the replacement).
    test(`${target.label}: unknown field -> 1001`, () => {
      for (const name of ['extra', 'Amount', 'amount ', 'constructor', 'hasOwnProperty']) {
        assertRefused(target, target.build(name, 1n), 1001, `${target.prefix}${name}`);
      }
    });
  });
}

describe('field rules name the field, also inside the replacement', () => {
  const rules: [string, Partial<Record<keyof UnsignedPlaceOrder, unknown>>, number, string][] = [
    ['zero order id', { order_id: '0'.repeat(32) }, 1021, 'order_id'],
    ['bid at price 0', { price_limit: 0n }, 1022, 'price_limit'],
    ['amount 0', { amount: 0n, min_fill_size: 0n }, 1024, 'amount'],
    ['min_fill_size above amount', { min_fill_size: 1_001n }, 1025, 'min_fill_size'],
    ['small-order trading key', { trading_key: `01${'0'.repeat(62)}` }, 1036, 'trading_key'],
    ['low-order viewing key', { viewing_pubkey: `01${'0'.repeat(62)}` }, 1035, 'viewing_pubkey'],
  ];
  for (const [what, change, code, field] of rules) {
    // Stateless rules of spec 2.1 refuse with their own code and name the field.
    test(`${what} -> ${code}`, () => {
      const order = { ...placeWire(), ...change };
      assertRefused(TARGETS[0] as Target, order, code, field);
      assertRefused(TARGETS[3] as Target, modifyWire(order), code, `replacement.${field}`);
    });
  }
});

describe('JSON-level guards', () => {
  const place = TARGETS[0] as Target;
  const placeText = stringifyJson(placeWire());

  // A repeated key is refused, even with an equal value: two readers must never disagree.
  test('duplicate keys -> 1000', () => {
    const texts = [
      `{"side":"ask",${placeText.slice(1)}`,
      `{"side":"bid",${placeText.slice(1)}`,
      `{"amount":1000,${placeText.slice(1)}`,
      `{"\\u0073ide":"bid",${placeText.slice(1)}`,
      stringifyJson(modifyWire()).replace('"replacement":{', '"replacement":{"tree_id":2,'),
      stringifyJson(cancelWire()).replace('{', '{"cancel_nonce":"12",'),
    ];
    for (const text of texts)
      assert.equal(
        codeOf(() => parseJsonText(text)),
        1000,
        text.slice(0, 60),
      );
    // the same key in sibling objects is not a duplicate
    assert.equal(
      codeOf(() => parseJsonText('{"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":1}]}')),
      'accepted',
    );
  });

  // A leading zero or a plus sign is not JSON at all, but it is a number written non-canonically:
  // 1006 as docs/protocol.md says, not 1000 (issue 20 finding 6d). Valid numbers still parse.
  test('an integer with a leading zero or a plus sign -> 1006', () => {
    for (const bad of ['007', '00', '+1', '-01', '01.5', '0123456789']) {
      const text = placeText.replace(/"amount":\d+/, `"amount":${bad}`);
      assert.notEqual(text, placeText);
      assert.equal(
        codeOf(() => parseJsonText(text)),
        1006,
        bad,
      );
    }
    for (const good of ['0', '-0', '10', '0.5', '1e+3', '-1E-2']) {
      assert.equal(
        codeOf(() => parseJsonText(`{"a":${good},"b":[${good}]}`)),
        'accepted',
        good,
      );
    }
    // inside strings the same characters are text, not numbers
    assert.equal(
      codeOf(() => parseJsonText('{"a":"007","b":"+1"}')),
      'accepted',
    );
  });

  // Nesting beyond any valid request is refused before the recursive parser runs.
  test('deeply nested JSON -> 1010', () => {
    for (const depth of [9, 64, 30_000]) {
      const text = `{"extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      assert.equal(
        codeOf(() => parseJsonText(text)),
        1010,
        `depth ${depth}`,
      );
    }
    // brackets inside strings do not count
    assert.equal(
      codeOf(() => parseJsonText(`{"a":"${'['.repeat(50)}\\"${'{'.repeat(50)}"}`)),
      'accepted',
    );
    assert.equal(
      codeOf(() => parseJsonText(`${'['.repeat(8)}${']'.repeat(8)}`)),
      'accepted',
    );
  });

  // Texts above the size limit are refused by byte size (not character count).
  test('oversized text -> 1008', () => {
    const padded = `${placeText}${' '.repeat(64 * 1024 - placeText.length + 1)}`;
    assert.equal(
      codeOf(() => parseJsonText(padded)),
      1008,
    );
    assert.equal(
      codeOf(() => parseJsonText(padded.slice(0, -1))),
      'accepted',
    );
    const multibyte = `{"x":"${'é'.repeat(32_768)}"}`; // under 64 Ki characters, over 64 KiB
    assert.ok(multibyte.length < 64 * 1024);
    assert.equal(
      codeOf(() => parseJsonText(multibyte)),
      1008,
    );
  });

  // A `__proto__` key is an unknown field, and it pollutes no prototype.
  test('__proto__ key -> 1001, Object.prototype not polluted', () => {
    const proto = '{"__proto__":{"polluted":true},';
    const texts: [string, Target, string][] = [
      [`${proto}${placeText.slice(1)}`, place, '__proto__'],
      [
        stringifyJson(modifyWire()).replace('"replacement":{', `"replacement":${proto}`),
        TARGETS[3] as Target,
        'replacement.__proto__',
      ],
    ];
    for (const [text, target, path] of texts) {
      const parsed = parseJsonText(text) as Obj;
      assert.equal(Object.getPrototypeOf(parsed), Object.prototype);
      try {
        target.decode(parsed);
        assert.fail('accepted');
      } catch (error) {
        assert.ok(error instanceof VenueError);
        assert.equal(error.code, 1001);
        assert.ok(error.message.includes(`\`${path}\``), error.message);
      }
    }
    assert.equal(({} as Obj)['polluted'], undefined);
    assert.equal(Object.hasOwn(Object.prototype, 'polluted'), false);
  });

  // The decoder reads its input only: frozen input decodes, and nothing changes on success or failure.
  test('decoding never mutates its input', () => {
    const deepFreeze = (value: unknown): void => {
      if (typeof value === 'object' && value !== null) {
        Object.freeze(value);
        for (const child of Object.values(value)) deepFreeze(child);
      }
    };
    const inputs: [Target, string][] = [
      [place, placeText],
      [TARGETS[1] as Target, stringifyJson(cancelWire())],
      [TARGETS[2] as Target, stringifyJson(modifyWire())],
      [place, stringifyJson({ ...placeWire(), amount: num('1.0') })],
      [TARGETS[2] as Target, stringifyJson(modifyWire({ ...placeWire(), extra: 1n }))],
    ];
    for (const [target, text] of inputs) {
      const parsed = parseJsonText(text);
      const before = stringifyJson(parsed);
      deepFreeze(parsed);
      let result: unknown;
      try {
        result = target.decode(parsed);
      } catch (error) {
        assert.ok(error instanceof VenueError, String(error));
      }
      assert.equal(stringifyJson(parsed), before);
      if (result !== undefined) assert.notEqual(result, parsed, 'a new object is returned');
    }
  });
});
