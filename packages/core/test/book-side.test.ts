/**
 * The incrementally kept book sides (state/book-side.ts) against a from-scratch sort. Random runs
 * of orders joining (always the newest, as booking does) and leaving (any of them) on both sides,
 * with few price levels so levels fill, empty and come back. After every step each side lists
 * exactly its orders in allocation priority, its levels are strictly ordered and non-empty, and
 * every order points back at its level, and each level's resting count and base (what a batch over a
 * book that cannot cross reads instead of the orders) equal a count over its orders, through runs
 * that also move orders between resting and pending settlement with new quantities. (The core-model test also compares the sides with a sort
 * of the open orders after every command, through validateInternalState.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  enterLevel,
  leaveLevel,
  ordersByPriority,
  startResting,
  stopResting,
} from '../src/state/book-side.ts';
import type { BookSide, OrderRow } from '../src/state/venue-state.ts';

type Step =
  | { kind: 'enter'; bid: boolean; level: number; units: number }
  | { kind: 'leave'; pick: number }
  | { kind: 'match'; pick: number }
  | { kind: 'settle'; pick: number; units: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('enter' as const),
      bid: fc.boolean(),
      level: fc.nat(6),
      units: fc.integer({ min: 1, max: 1000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('leave' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('match' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(),
      units: fc.integer({ min: 1, max: 1000 }),
    }),
  },
);

/**
 * The resting marks of the market's columns (market-columns.ts), which book-side.ts keeps with the
 * level counts: a row's slot here is its sequence (a run makes at most 300 rows).
 */
const MARKS_SIZE = 512;

/** The fields book-side.ts reads and writes; the rest of a row plays no part here. */
function row(sequence: bigint, side: 'bid' | 'ask', priceLimit: bigint, remaining: bigint): OrderRow {
  const fields = {
    sequence,
    slot: Number(sequence),
    side,
    priceLimit,
    state: 'resting',
    remaining,
    orderId: `order-${sequence}`,
    level: null,
    levelPrev: null,
    levelNext: null,
  };
  return fields as unknown as OrderRow;
}

/** Priority written plainly: the better limit first, then the lower sequence. */
function sortedPlainly(rows: readonly OrderRow[], descending: boolean): OrderRow[] {
  return [...rows].sort((a, b) => {
    if (a.priceLimit !== b.priceLimit)
      return (descending ? a.priceLimit > b.priceLimit : a.priceLimit < b.priceLimit) ? -1 : 1;
    return a.sequence < b.sequence ? -1 : 1;
  });
}

function checkSide(side: BookSide, open: readonly OrderRow[], marks: Uint8Array): void {
  assert.deepStrictEqual([...ordersByPriority(side)], sortedPlainly(open, side.descending));
  assert.equal(side.byPrice.size, side.levels.length, 'every level is indexed by price, and only those');
  side.levels.forEach((level, index) => {
    assert.ok(level.size > 0, 'no empty level is kept');
    assert.equal(side.byPrice.get(level.price), level);
    const next = side.levels[index + 1];
    if (next !== undefined) assert.ok(side.descending ? level.price > next.price : level.price < next.price);
    let resting = 0;
    let restingUnits = 0n;
    for (let at = level.head; at !== null; at = at.levelNext) {
      assert.equal(at.level, level, 'each order points back at its level');
      assert.equal(at.priceLimit, level.price);
      if (at.state === 'resting') {
        resting += 1;
        restingUnits += at.remaining;
      }
      // What a batch numbers its participants by instead of the row's state.
      assert.equal(marks[at.slot], at.state === 'resting' ? 1 : 0, 'the resting mark follows the state');
    }
    assert.equal(level.resting, resting, 'the level counts its resting orders');
    assert.equal(level.restingUnits, restingUnits, 'the level sums its resting orders');
  });
  const restingLevels = side.levels.filter((level) => level.resting > 0).length;
  assert.equal(side.restingLevels, restingLevels, 'the side counts its levels with a resting order');
}

test('book sides kept incrementally equal a from-scratch sort after any run of joins and leaves', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
      const marks = new Uint8Array(MARKS_SIZE);
      const bids: BookSide = {
        descending: true,
        levels: [],
        byPrice: new Map(),
        restingLevels: 0,
        restingOrders: 0,
        columns: { resting: marks },
      };
      const asks: BookSide = {
        descending: false,
        levels: [],
        byPrice: new Map(),
        restingLevels: 0,
        restingOrders: 0,
        columns: { resting: marks },
      };
      const open: OrderRow[] = [];
      let sequence = 0n;
      for (const s of steps) {
        if (s.kind === 'enter') {
          sequence += 1n;
          // Asks may rest at 0 ("any price"), which sorts before every other ask.
          const price = BigInt(s.bid ? s.level + 1 : s.level) * 10n;
          const entered = row(sequence, s.bid ? 'bid' : 'ask', price, BigInt(s.units));
          enterLevel(s.bid ? bids : asks, entered);
          open.push(entered);
        } else if (s.kind === 'match' || s.kind === 'settle') {
          // A batch matches a resting order; a settlement gives a pending one a new remainder.
          const picked = open[s.pick % Math.max(open.length, 1)];
          const side = picked?.side === 'bid' ? bids : asks;
          if (picked !== undefined && s.kind === 'match' && picked.state === 'resting') {
            stopResting(side, picked);
            picked.state = 'pending_settlement';
          } else if (picked !== undefined && s.kind === 'settle' && picked.state === 'pending_settlement') {
            picked.remaining = BigInt(s.units);
            picked.state = 'resting';
            startResting(side, picked);
          }
        } else if (open.length > 0) {
          const [left] = open.splice(s.pick % open.length, 1);
          if (left === undefined) continue;
          leaveLevel(left.side === 'bid' ? bids : asks, left);
          assert.equal(left.level, null, 'an order that left keeps no level');
          assert.equal(marks[left.slot], 0, 'an order that left is not marked resting');
        }
        checkSide(
          bids,
          open.filter((r) => r.side === 'bid'),
          marks,
        );
        checkSide(
          asks,
          open.filter((r) => r.side === 'ask'),
          marks,
        );
      }
    }),
    { numRuns: 300 },
  );
});
