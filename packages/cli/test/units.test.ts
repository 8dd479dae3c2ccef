// Human units of the CLI (--human): decimal text and raw integers convert exactly both ways, and
// text that would need rounding (too many decimals, finer than a raw unit) is refused with a
// message naming the limit, so an order is never placed for a size other than the one typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatDecimal, MarketUnits, parseDecimal, pricePlaces, rawOrHuman } from '../src/commands/units.ts';

const U64_MAX = (1n << 64n) - 1n;
const places = fc.integer({ min: -4, max: 18 });

/** Canonical decimal text: no leading zeros, no trailing fraction zeros, at most `p` decimals. */
function canonical(p: number) {
  return fc.bigInt({ min: 0n, max: U64_MAX }).map((raw) => formatDecimal(raw, p));
}

test('format(parse(x)) == x for canonical decimal text, and parse(format(raw)) == raw', () => {
  fc.assert(
    fc.property(
      places.chain((p) => fc.tuple(fc.constant(p), canonical(p))),
      ([p, text]) => {
        assert.equal(formatDecimal(parseDecimal(text, p, 'x'), p), text);
      },
    ),
  );
  fc.assert(
    fc.property(places, fc.bigInt({ min: 0n, max: U64_MAX }), (p, raw) => {
      assert.equal(parseDecimal(formatDecimal(raw, p), p, 'x'), raw);
    }),
  );
});

test('trailing zeros are the same value; one decimal too many is refused, naming the limit', () => {
  assert.equal(parseDecimal('1.50', 6, 'x'), 1_500_000n);
  assert.equal(parseDecimal('1.5', 6, 'x'), 1_500_000n);
  assert.equal(parseDecimal('0.000001', 6, 'x'), 1n);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 18 }), fc.integer({ min: 1, max: 9 }), (p, last) => {
      const text = `0.${'0'.repeat(p)}${last}`;
      assert.throws(
        () => parseDecimal(text, p, '--amount (USDC)'),
        (error: Error) =>
          /^--amount \(USDC\): /.test(error.message) &&
          (p === 0 ? /finer than the smallest step, 1/ : new RegExp(`at most ${p}\\b`)).test(error.message),
      );
    }),
  );
  // Negative places: a raw unit is worth 100 whole units, so 150 is not a whole number of them.
  assert.equal(parseDecimal('300', -2, 'x'), 3n);
  assert.throws(() => parseDecimal('150', -2, 'x'), /finer than the smallest step, 100/);
});

test('signs, exponents, separators and values beyond u64 are refused', () => {
  for (const bad of ['-1', '+1', '1e6', '1,000', '1.', '.5', '01', ' 1', '', '0x10', '1.2.3']) {
    assert.throws(() => parseDecimal(bad, 6, '--price'), /--price: expected a decimal number/, bad);
  }
  assert.throws(() => parseDecimal('18446744073709551616', 0, 'x'), /largest amount a u64 holds/);
  assert.equal(parseDecimal('18446744073709.551615', 6, 'x'), U64_MAX);
});

test('raw mode takes whole numbers only and points a decimal at --human', () => {
  assert.equal(rawOrHuman('1000000', false, '--amount'), 1_000_000n);
  assert.equal(rawOrHuman('1.5', true, '--amount'), '1.5');
  assert.throws(() => rawOrHuman('1.5', false, '--amount'), /add --human/);
  assert.throws(() => rawOrHuman('18446744073709551616', false, '--amount'), /whole number of raw units/);
});

test("a market's price places follow price_scale and the mints' decimals", () => {
  // SOL (9) priced in USDC (6) at scale 1e6: one USDC per SOL is 1000 raw.
  assert.equal(pricePlaces(1_000_000n, 9, 6), 3);
  assert.equal(pricePlaces(1n, 6, 9), 3);
  assert.equal(pricePlaces(1n, 9, 6), -3);
  assert.equal(pricePlaces(3n, 9, 6), null);
  const mints = new Map([
    ['SoL', { mint: 'SoL', symbol: 'SOL', decimals: 9 }],
    ['USDC', { mint: 'USDC', symbol: 'USDC', decimals: 6 }],
  ]);
  const units = new MarketUnits(
    { symbol: 'SOL-USDC', base_mint: 'SoL', quote_mint: 'USDC', price_scale: 1_000_000n },
    mints,
  );
  assert.equal(units.parsePrice('150'), 150_000n);
  assert.equal(units.formatPrice(1_000n), '1');
  assert.equal(units.parseAmount('0.001'), 1_000_000n);
  assert.throws(
    () => units.parsePrice('150.0001'),
    /--price \(USDC per SOL\): too many decimals in 150.0001; at most 3/,
  );
  const odd = new MarketUnits(
    { symbol: 'ODD', base_mint: 'SoL', quote_mint: 'USDC', price_scale: 3n },
    mints,
  );
  assert.throws(() => odd.parsePrice('1'), /price scale is not a power of ten/);
  assert.throws(
    () => new MarketUnits({ symbol: 'X', base_mint: 'nope', quote_mint: 'USDC', price_scale: 1n }, mints),
    /does not describe mint nope/,
  );
});
