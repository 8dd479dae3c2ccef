/**
 * A batch's fills in columns (fill-columns.ts): what a consumer reads back is what the auction
 * wrote, for amounts in the columns and for amounts beyond 2^53 kept beside them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssertionError } from '@venue/protocol';
import fc from 'fast-check';
import { FillColumns } from '../src/auction/fill-columns.ts';
import type { Fill } from '../src/auction/types.ts';
import { SAFE_UNITS } from '../src/auction/units.ts';

const SAFE = BigInt(SAFE_UNITS);

/** Amounts around the columns' edge (2^53) as well as small ones and u64-sized ones. */
const amount = fc.oneof(
  fc.bigInt({ min: 1n, max: 1_000n }),
  fc.bigInt({ min: SAFE - 3n, max: SAFE + 3n }),
  fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }),
);

// Spread into plain objects (fast-check's records have no prototype), as the columns give back.
const fill = fc
  .record({
    bidRef: fc.nat({ max: 2 ** 31 - 1 }),
    askRef: fc.nat({ max: 2 ** 31 - 1 }),
    quantity: amount,
    quoteAmount: amount,
  })
  .map((drawn): Fill => ({ ...drawn }));

/** Written as the walks write: exact numbers through pushUnits, anything else through push. */
function written(fills: readonly Fill[]): FillColumns {
  const columns = new FillColumns();
  for (const { bidRef, askRef, quantity, quoteAmount } of fills) {
    if (quantity <= SAFE && quoteAmount <= SAFE) {
      columns.pushUnits(bidRef, askRef, Number(quantity), Number(quoteAmount));
    } else {
      columns.push(bidRef, askRef, quantity, quoteAmount);
    }
  }
  return columns;
}

test('fills read back as written, in order, whatever their size', () => {
  fc.assert(
    fc.property(fc.array(fill, { maxLength: 80 }), (fills) => {
      const columns = written(fills);
      assert.equal(columns.length, fills.length);
      assert.deepStrictEqual(columns.toArray(), fills);
      fills.forEach((expected, index) => {
        assert.equal(columns.bidRef(index), expected.bidRef);
        assert.equal(columns.askRef(index), expected.askRef);
        assert.equal(columns.quantity(index), expected.quantity);
        assert.equal(columns.quoteAmount(index), expected.quoteAmount);
        // Numbers only where both amounts are exact; NaN sends the reader to the bigints.
        const fits = expected.quantity <= SAFE && expected.quoteAmount <= SAFE;
        const units = [columns.quantityUnits(index), columns.quoteUnits(index)];
        if (fits) assert.deepStrictEqual(units, [Number(expected.quantity), Number(expected.quoteAmount)]);
        else assert.ok(units.every(Number.isNaN));
      });
    }),
  );
});

test('the total quantity is the exact sum, past 2^53 too', () => {
  fc.assert(
    fc.property(fc.array(fill, { maxLength: 40 }), (fills) => {
      const total = fills.reduce((sum, { quantity }) => sum + quantity, 0n);
      assert.equal(written(fills).totalQuantity(), total);
    }),
  );
});

test('bigints that fit are kept in the columns; equal fills give equal columns', () => {
  const viaBigints = new FillColumns();
  viaBigints.push(3, 4, 5n, 50n);
  const viaNumbers = new FillColumns();
  viaNumbers.pushUnits(3, 4, 5, 50);
  assert.equal(viaBigints.quantityUnits(0), 5);
  // Deep equality (the replay tests compare event lists) sees the columns, so it tells fills apart.
  assert.deepStrictEqual(viaBigints, viaNumbers);
  viaNumbers.pushUnits(1, 2, 1, 1);
  viaBigints.pushUnits(1, 2, 1, 2);
  assert.notDeepStrictEqual(viaBigints, viaNumbers);
});

test('a fill that was never written cannot be read as an object', () => {
  const columns = new FillColumns();
  columns.pushUnits(0, 1, 2, 3);
  for (const index of [-1, 1, 0.5, 16]) assert.throws(() => columns.at(index), AssertionError);
});
