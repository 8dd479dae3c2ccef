/**
 * Fuzzing of the protocol's intake parsers (issue 11 item 2): the JSON text parser, the strict
 * schema decoder behind every REST body, query and path parameter and every stream frame, the
 * canonical byte decoders, oracle update verification and the key predicates. What users rely on:
 * - no input makes a parser throw anything but a VenueError whose status is a 4xx (a crash or an
 *   AssertionError would be a 5xx on the server or a dead feed loop);
 * - whatever a decoder accepts re-encodes to exactly what it read (one reading per input, so the
 *   venue and the SDK cannot disagree about what was signed);
 * - a signed oracle update that was changed in any field never verifies.
 *
 * Bounded: fixed seed, a few thousand cases in all, well under ten seconds.
 * Replay: PROTOCOL_FUZZ_SEED=<n> node scripts/run-tests.mjs fuzz-decoders.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CLIENT_FRAMES,
  decode,
  decodeCancelBytes,
  decodeClientFrame,
  decodeModifyCancelBytes,
  decodePlaceOrderBytes,
  ERRORS,
  encodeCancel,
  encodeModifyCancel,
  encodePlaceOrder,
  errorNameOf,
  isAcceptableTradingKey,
  isLowOrderX25519,
  isVenueError,
  type OracleUpdate,
  parseJsonText,
  ROUTES,
  signOracleUpdate,
  tradingKeyFromSeed,
  verifyDigest,
  verifyOracleUpdate,
  wireJsonText,
} from '@venue/protocol';
import fc from 'fast-check';
import type { TSchema } from 'typebox';

const SEED = Number(process.env['PROTOCOL_FUZZ_SEED'] ?? 11_2026);
const params = (numRuns: number) => ({ seed: SEED, numRuns });

/** The outcome of feeding one input to a parser: accepted, or the 4xx code it was refused with. */
function outcome<T>(parse: () => T, input: string): { ok: true; value: T } | { ok: false; code: number } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    assert.ok(
      isVenueError(error),
      `a parser threw ${String(error)} instead of a VenueError for ${input.slice(0, 300)}`,
    );
    const name = errorNameOf(error.code);
    assert.ok(name !== undefined, `code ${error.code} is not in the catalogue`);
    const status = ERRORS[name].http;
    assert.ok(status >= 400 && status < 500, `code ${error.code} travels with ${status}, not a 4xx`);
    assert.ok(error.message.length > 0 && error.message.length <= 1024, 'the message says what to fix');
    return { ok: false, code: error.code };
  }
}

/** Lowercase hex text of exactly `length` characters. */
const hexText = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

// ---- JSON text generators ----

/** Key names of a schema and every schema nested in it, so generated objects reach deep rules. */
function keysOf(schema: unknown, into = new Set<string>(), depth = 0): Set<string> {
  if (depth > 6 || typeof schema !== 'object' || schema === null) return into;
  const s = schema as Record<string, unknown>;
  const properties = s['properties'];
  if (typeof properties === 'object' && properties !== null) {
    for (const [key, inner] of Object.entries(properties)) {
      into.add(key);
      keysOf(inner, into, depth + 1);
    }
  }
  for (const nested of ['items', 'anyOf', 'oneOf', 'allOf']) {
    const value = s[nested];
    for (const inner of Array.isArray(value) ? value : [value]) keysOf(inner, into, depth + 1);
  }
  return into;
}

/** Scalar JSON texts near the rules: u64 edges, non-canonical numbers, hex of every length. */
const scalarText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '-0',
    '01',
    '1.0',
    '1e3',
    '18446744073709551615',
    '18446744073709551616',
    '99999999999999999999999999',
    '9007199254740993',
    'true',
    'false',
    'null',
    '""',
    '"0"',
    '"01"',
    '"18446744073709551616"',
    '"bid"',
    '"ask"',
    '"limit"',
    '"fok"',
    '"SOL-USDC"',
    '"orders"',
    '"__proto__"',
    '"\\u0000"',
    '"\\ud800"',
  ),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map((n) => (Number.isFinite(n) ? String(n) : '0.5')),
  fc
    .integer({ min: 0, max: 600 })
    .chain((n) => fc.constantFrom('0', 'a', 'f', 'F', 'g').map((c) => JSON.stringify(c.repeat(n)))),
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
);

/** A JSON object text whose keys come from `keys` (plus strangers), values possibly nested. */
function objectText(keys: readonly string[], depth: number): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'extra', '') },
  );
  const value: fc.Arbitrary<string> =
    depth <= 0
      ? scalarText
      : fc.oneof(
          { weight: 6, arbitrary: scalarText },
          { weight: 1, arbitrary: fc.constantFrom(...keys).chain(() => objectText(keys, depth - 1)) },
          {
            weight: 1,
            arbitrary: fc
              .array(fc.oneof(scalarText, fc.constantFrom('"orders"', '"fills"', '"tree"')), { maxLength: 5 })
              .map((items) => `[${items.join(',')}]`),
          },
        );
  return fc
    .array(fc.tuple(key, value), { maxLength: keys.length + 2 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
}

/** Any text at all, plus JSON-looking text damaged at one place. */
const rawText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .tuple(fc.json({ maxDepth: 4 }), fc.nat(), fc.string({ maxLength: 3 }))
    .map(
      ([json, at, insert]) =>
        json.slice(0, at % (json.length + 1)) + insert + json.slice(at % (json.length + 1)),
    ),
  fc.integer({ min: 1, max: 40 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 40 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
);

// ---- Tests ----

describe('fuzz: JSON text and schema decoding', () => {
  test('parseJsonText refuses any text with a 4xx VenueError or parses it; never anything else', () => {
    fc.assert(
      fc.property(rawText, (text) => {
        outcome(() => parseJsonText(text), text);
      }),
      params(1500),
    );
  });

  const bodySchemas: [string, TSchema][] = [];
  for (const route of ROUTES) {
    for (const part of ['body', 'query', 'params'] as const) {
      const schema = route[part];
      if (schema !== undefined) bodySchemas.push([`${route.method} ${route.path} ${part}`, schema]);
    }
  }

  for (const [name, schema] of bodySchemas) {
    test(`${name}: any object is refused with a 4xx or decoded to a value that re-encodes the same`, () => {
      const keys = [...keysOf(schema)];
      if (keys.length === 0) keys.push('x');
      fc.assert(
        fc.property(objectText(keys, 2), (text) => {
          const result = outcome(() => decode(schema, parseJsonText(text)), text);
          if (!result.ok) return;
          // Accepted: its wire form decodes back to the same value (one reading per input).
          const again = decode(schema, parseJsonText(wireJsonText(schema, result.value)));
          assert.deepEqual(again, result.value, `not stable: ${text}`);
        }),
        params(120),
      );
    });
  }

  test('stream frames: any object with any op is an error frame code or a frame that re-encodes the same', () => {
    const keys = [...new Set(Object.values(CLIENT_FRAMES).flatMap((schema) => [...keysOf(schema)]))];
    const ops = Object.keys(CLIENT_FRAMES);
    const frame = fc
      .tuple(
        fc.oneof(fc.constantFrom(...ops), fc.constantFrom('', 'LOGIN', 'order', 'order.place ', '__proto__')),
        objectText(keys, 2),
      )
      .map(([op, rest]) => `{"op":${JSON.stringify(op)}${rest === '{}' ? '' : `,${rest.slice(1, -1)}`}}`);
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ weight: 6, arbitrary: frame }, { weight: 1, arbitrary: rawText }), (text) => {
        const result = outcome(() => decodeClientFrame(parseJsonText(text)), text);
        if (!result.ok) return;
        accepted += 1;
        const schema = CLIENT_FRAMES[result.value.op] as TSchema;
        const again = decodeClientFrame(parseJsonText(wireJsonText(schema, result.value)));
        assert.deepEqual(again, result.value, `not stable: ${text}`);
      }),
      params(2000),
    );
    assert.ok(accepted > 0, 'some generated frames were valid, so the generator reaches past the op check');
  });
});

// ---- Canonical bytes ----

const DECODERS = [
  {
    name: 'place-order',
    decode: decodePlaceOrderBytes,
    encode: (v: unknown) => encodePlaceOrder(v as Parameters<typeof encodePlaceOrder>[0]),
  },
  {
    name: 'cancel',
    decode: decodeCancelBytes,
    encode: (v: unknown) => encodeCancel(v as Parameters<typeof encodeCancel>[0]),
  },
  {
    name: 'modify',
    decode: decodeModifyCancelBytes,
    encode: (v: unknown) => encodeModifyCancel(v as Parameters<typeof encodeModifyCancel>[0]),
  },
] as const;

/** A valid encoding to start mutations from. */
function validBytes(name: string): Uint8Array {
  const hex = (n: number, c = 'a') => c.repeat(n * 2);
  if (name === 'cancel') {
    return encodeCancel({ order_id: hex(16), trading_key: hex(32), cancel_nonce: 7n, session_id: hex(32) });
  }
  if (name === 'modify') {
    return encodeModifyCancel({
      order_id: hex(16),
      trading_key: hex(32),
      cancel_nonce: 7n,
      session_id: hex(32),
      replacement_digest: hex(32, 'b'),
    });
  }
  return encodePlaceOrder({
    symbol: 'SOL-USDC',
    side: 'bid',
    order_type: 'limit',
    amount: 5n,
    price_limit: 1000n,
    min_fill_size: 1n,
    expiry_slot: 900n,
    order_id: hex(16),
    note_commitment: hex(32),
    arrival_nonce: 3n,
    trading_key: hex(32),
    owner_commitment: hex(32),
    note_inner_hash: hex(32),
    merkle_root: hex(32),
    valid_input_proof: hex(256),
    collateral_amount: 9n,
    tree_id: 1,
    viewing_pubkey: hex(32),
    session_id: hex(32),
  });
}

describe('fuzz: canonical byte decoders', () => {
  for (const decoder of DECODERS) {
    test(`${decoder.name}: any bytes are refused with 1xxx or read back to exactly the same bytes`, () => {
      const base = validBytes(decoder.name);
      const mutated = fc
        .array(fc.tuple(fc.nat({ max: base.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        })
        .map((changes) => {
          const copy = Uint8Array.from(base);
          for (const [at, byte] of changes) copy[at] = byte;
          return copy;
        });
      const anyBytes = fc.uint8Array({ minLength: 0, maxLength: base.length + 8 });
      let accepted = 0;
      fc.assert(
        fc.property(
          fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: anyBytes }),
          (bytes) => {
            const hex = Buffer.from(bytes).toString('hex');
            const result = outcome(() => decoder.decode(bytes), hex);
            if (!result.ok) return;
            accepted += 1;
            assert.equal(
              Buffer.from(decoder.encode(result.value)).toString('hex'),
              hex,
              'two readings of one input',
            );
          },
        ),
        params(800),
      );
      assert.ok(accepted > 0, 'some mutations are valid encodings, so the round trip was exercised');
    });
  }
});

// ---- Oracle updates and key predicates ----

describe('fuzz: oracle updates', () => {
  const publisher = tradingKeyFromSeed(new Uint8Array(32).fill(3));
  const original = signOracleUpdate(
    {
      feed: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
      price: 150_000n,
      confidence: 75n,
      publish_slot: 40n,
      sequence: 12n,
    },
    publisher,
  );
  const wildU64 = fc.oneof(
    fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    fc.constantFrom(-1n, 2n ** 64n, 2n ** 80n),
  );
  const change: fc.Arbitrary<Partial<Record<keyof OracleUpdate, unknown>>> = fc.oneof(
    fc.record({ price: wildU64 }),
    fc.record({ confidence: wildU64 }),
    fc.record({ publish_slot: wildU64 }),
    fc.record({ sequence: wildU64 }),
    fc.record({
      feed: fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constant(`${original.feed}\u0000`),
        fc.constant(`${original.feed.slice(0, -1)}\u0155`),
      ),
    }),
    fc.record({ signature: fc.oneof(fc.string({ maxLength: 130 }), hexText(128)) }),
  );

  test('a changed update never verifies and never throws; the original does', () => {
    assert.equal(verifyOracleUpdate(original, publisher.publicKey), true);
    fc.assert(
      fc.property(change, (fields) => {
        const update = { ...original, ...fields } as OracleUpdate;
        const same = (Object.keys(fields) as (keyof OracleUpdate)[]).every((k) => update[k] === original[k]);
        let verdict: boolean;
        try {
          verdict = verifyOracleUpdate(update, publisher.publicKey);
        } catch (error) {
          assert.fail(
            `verifyOracleUpdate threw ${String(error)} for ${JSON.stringify(fields, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
          );
        }
        assert.equal(
          verdict,
          same,
          `verdict ${verdict} for ${JSON.stringify(fields, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
        );
      }),
      params(600),
    );
  });
});

describe('fuzz: key predicates', () => {
  test('trading-key, signature and X25519 checks answer any string without throwing', () => {
    const keyText = fc.oneof(
      hexText(64),
      fc.string({ maxLength: 70 }),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
    );
    fc.assert(
      fc.property(keyText, fc.string({ maxLength: 130 }), (key, signature) => {
        assert.equal(typeof isAcceptableTradingKey(key), 'boolean');
        assert.equal(typeof isLowOrderX25519(key), 'boolean');
        assert.equal(verifyDigest(key, new Uint8Array(32), signature), false);
      }),
      params(800),
    );
  });
});
