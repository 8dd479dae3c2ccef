/**
 * The fast paths of intake give exactly what the reference paths give (issue 21 item 5):
 * - the one-pass JSON parse (json/well-formed-json.ts) returns, for any text it vouches for, the
 *   value the strict lossless parse returns, and never vouches for a text the strict parse refuses;
 *   parseJsonText's answer (value, or error code and message) equals the strict parse's for
 *   JSON-like texts, mutated signed bodies and hostile corner cases;
 * - the compiled schema decoders (schema/compiled-decode.ts) return the walker's value or throw
 *   its error, code and message, for mutated place, cancel and modify bodies.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { VenueError } from '../src/errors/venue-error.ts';
import { CLIENT_FRAMES, ROUTES } from '../src/index.ts';
import { JsonNumberToken, parseJsonText, parseStrictly } from '../src/json/json-text.ts';
import { NOT_SURE, parseWellFormed } from '../src/json/well-formed-json.ts';
import { decode, decodeByWalking } from '../src/schema/decode.ts';
import { ModifyRequestSchema, PlaceOrderSchema } from '../src/schema/orders.ts';

function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    if (error instanceof VenueError) return { code: error.code, message: error.message };
    throw error;
  }
}

function token(source: string): JsonNumberToken {
  return new JsonNumberToken(source);
}

/** Texts near JSON: real JSON, with fragments spliced in that the strict parse treats specially. */
const fragment = fc.constantFrom(
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  ' ',
  '\n',
  '\t',
  '0',
  '-0',
  '01',
  '+1',
  '1.0',
  '1e3',
  '1E+2',
  '1.',
  '.5',
  '-',
  '1.2.3',
  '1e',
  'true',
  'false',
  'null',
  'nul',
  '"a"',
  '"\\u0061"',
  '"\\x"',
  '"__proto__"',
  '\u0000',
  '\u00e9',
  '"\u0001"',
  '18446744073709551616',
  '[[[[[[[[[',
  ']]]]]]]]]',
);

const jsonLike: fc.Arbitrary<string> = fc.oneof(
  fc.json({ depthSize: 'small' }),
  fc.tuple(fc.json(), fc.nat(), fc.array(fragment, { maxLength: 3 })).map(([json, cut, pieces]) => {
    const at = cut % (json.length + 1);
    return json.slice(0, at) + pieces.join('') + json.slice(at);
  }),
  fc.array(fragment, { maxLength: 12 }).map((pieces) => pieces.join('')),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('a', 'b', '__proto__', '1', 'side'),
        fc.constantFrom('1', '"x"', '{}', '[]', '-0', '2.5'),
      ),
    )
    .map((entries) => `{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
);

test('the one-pass parse vouches only for texts the strict parse accepts, with the same value', () => {
  fc.assert(
    fc.property(jsonLike, (text) => {
      const quick = parseWellFormed(text, token);
      const strict = outcome(() => parseStrictly(text));
      if (quick !== NOT_SURE)
        assert.deepStrictEqual({ value: quick }, strict, `fast path on ${JSON.stringify(text)}`);
      assert.deepStrictEqual(
        outcome(() => parseJsonText(text)),
        strict,
      );
    }),
    { numRuns: 20_000 },
  );
});

test('the one-pass parse vouches for ordinary bodies and hands back the corner cases', () => {
  const body =
    '{"symbol":"SOL-USDC","amount":18446744073709551615,"nested":{"a":[1,-2,0,true,null,"\\u00e9"]}}';
  assert.deepStrictEqual(parseWellFormed(body, token), parseStrictly(body));
  for (const text of [
    '{"a":1,"a":1}',
    '{"__proto__":1}',
    '[01]',
    '[+1]',
    '"\u0001"',
    '[[[[[[[[[1]]]]]]]]]',
    '1 2',
    '',
  ]) {
    assert.equal(
      parseWellFormed(text, token),
      NOT_SURE,
      `the fast path must not vouch for ${JSON.stringify(text)}`,
    );
  }
});

/** Every property name a schema mentions, nested ones included. */
function keysOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (typeof schema !== 'object' || schema === null) return into;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties !== undefined) {
    for (const [key, child] of Object.entries(properties)) {
      into.add(key);
      keysOf(child, into);
    }
  }
  for (const nested of ['items', 'anyOf']) {
    const child = (schema as Record<string, unknown>)[nested];
    if (Array.isArray(child)) for (const branch of child) keysOf(branch, into);
    else keysOf(child, into);
  }
  return into;
}

const scalarText = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '-0',
    '1.0',
    '1e3',
    '18446744073709551615',
    '18446744073709551616',
    'true',
    'null',
    '""',
    '"0"',
    '"01"',
    '"bid"',
    '"ask"',
    '"limit"',
    '"ioc"',
    '"fok"',
    '"SOL-USDC"',
    '"__proto__"',
    '[]',
    '{}',
    '[1,1]',
  ),
  fc
    .integer({ min: 0, max: 70 })
    .chain((n) => fc.constantFrom('0', 'a', 'F', 'g').map((c) => JSON.stringify(c.repeat(n)))),
  fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
);

function objectText(keys: readonly string[], depth: number): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.constantFrom('extra', '') },
  );
  const value: fc.Arbitrary<string> =
    depth <= 0
      ? scalarText
      : fc.oneof({ weight: 5, arbitrary: scalarText }, { weight: 1, arbitrary: objectText(keys, depth - 1) });
  return fc
    .array(fc.tuple(key, value), { maxLength: keys.length + 2 })
    .map((entries) => `{${[...new Map(entries)].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);
}

/** A valid place body, then one field replaced (or dropped, or a stranger added). */
const placeBody = {
  symbol: '"SOL-USDC"',
  side: '"bid"',
  order_type: '"limit"',
  amount: '1000',
  price_limit: '150000',
  expiry_slot: '1000000',
  order_id: `"${'1f'.repeat(16)}"`,
  note_commitment: `"${'2e'.repeat(32)}"`,
  arrival_nonce: '7',
  trading_key: `"${'3d'.repeat(32)}"`,
  trading_key_signature: `"${'4c'.repeat(64)}"`,
  owner_commitment: `"${'05'.repeat(32)}"`,
  note_inner_hash: `"${'06'.repeat(32)}"`,
  merkle_root: `"${'07'.repeat(32)}"`,
  valid_input_proof: `"${'08'.repeat(256)}"`,
  viewing_pubkey: `"${'09'.repeat(32)}"`,
  session_id: `"${'0a'.repeat(32)}"`,
} as const;

const mutatedPlace = fc
  .tuple(
    fc.constantFrom(...Object.keys(placeBody), 'min_fill_size', 'collateral_amount', 'extra'),
    fc.option(scalarText),
  )
  .map(([key, value]) => {
    const entries: [string, string][] = Object.entries(placeBody).filter(([k]) => k !== key);
    if (value !== null) entries.push([key, value]);
    return `{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
  });

test('compiled decoders answer every route body and client frame as the schema walker does', () => {
  const schemas: TSchema[] = [];
  for (const route of ROUTES)
    for (const part of ['body', 'query', 'params'] as const) {
      const schema = route[part];
      if (schema !== undefined) schemas.push(schema);
    }
  schemas.push(...(Object.values(CLIENT_FRAMES) as TSchema[]));
  for (const schema of schemas) {
    const keys = [...keysOf(schema)];
    if (keys.length === 0) keys.push('x');
    fc.assert(
      fc.property(objectText(keys, 2), fc.boolean(), (text, ignore) => {
        const json = parseJsonText(text);
        const options = { unknownFields: ignore ? ('ignore' as const) : ('refuse' as const) };
        assert.deepStrictEqual(
          outcome(() => decode(schema, json, options)),
          outcome(() => decodeByWalking(schema, json, options)),
        );
      }),
      { numRuns: 150 },
    );
  }
  fc.assert(
    fc.property(mutatedPlace, (text) => {
      const json = parseJsonText(text);
      for (const schema of [PlaceOrderSchema, ModifyRequestSchema]) {
        assert.deepStrictEqual(
          outcome(() => decode(schema, json)),
          outcome(() => decodeByWalking(schema, json)),
        );
      }
    }),
    { numRuns: 2_000 },
  );
});
