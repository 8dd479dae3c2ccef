/**
 * The pending-match index (state/pending-matches.ts) against a `Map`. Runs as a venue produces them
 * (batches filing runs of fresh ids, settlements in any order), plus restores that file ids in any
 * order, and runs long enough for the front to be trimmed. After every step: every id answers as the
 * map does, the sizes agree, and iteration lists exactly the map's entries in id order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PendingMatches } from '../src/state/pending-matches.ts';
import type { OrderRow } from '../src/state/venue-state.ts';

type Step =
  | { kind: 'batch'; count: number }
  | { kind: 'settle'; pick: number }
  | { kind: 'settle_oldest'; count: number }
  | { kind: 'restore'; picks: number[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('batch' as const), count: fc.integer({ min: 1, max: 1_500 }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('settle_oldest' as const),
      count: fc.integer({ min: 1, max: 2_500 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('restore' as const),
      picks: fc.array(fc.nat(), { maxLength: 30 }),
    }),
  },
);

/** A stand-in row: the index only stores and returns it. */
const rowFor = (id: number) => ({ id }) as unknown as OrderRow;

function agree(index: PendingMatches<OrderRow>, model: Map<number, OrderRow>, issued: number): void {
  assert.equal(index.size, model.size);
  const expected = [...model.entries()].sort(([a], [b]) => a - b);
  assert.deepEqual([...index.entries()], expected);
  assert.deepEqual(
    [...index.values()],
    expected.map(([, row]) => row),
  );
  for (let id = -2; id <= issued + 2; id++) assert.equal(index.get(id), model.get(id), `id ${id}`);
  assert.equal(index.get(Number.MAX_SAFE_INTEGER), undefined);
}

test('the pending-match index answers as a Map through batches, settlements in any order and restores', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      const index = new PendingMatches<OrderRow>();
      const model = new Map<number, OrderRow>();
      let next = 0;
      for (const s of steps) {
        if (s.kind === 'batch') {
          for (let n = 0; n < s.count; n++, next++) {
            const row = rowFor(next);
            index.set(next, row);
            model.set(next, row);
          }
        } else if (s.kind === 'settle') {
          const ids = [...model.keys()];
          const id = ids.length === 0 ? next : (ids[s.pick % ids.length] as number);
          assert.equal(index.delete(id), model.delete(id));
        } else if (s.kind === 'settle_oldest') {
          for (const id of [...model.keys()].sort((a, b) => a - b).slice(0, s.count)) {
            assert.equal(index.delete(id), true);
            model.delete(id);
          }
        } else {
          // A restore refiles pending matches in whatever order the rows come: here, shuffled.
          const held = [...model.keys()];
          const order = s.picks
            .map((p) => held[p % Math.max(held.length, 1)])
            .filter((id) => id !== undefined);
          const fresh = new PendingMatches<OrderRow>();
          for (const id of [...order, ...held]) fresh.set(id, model.get(id) as OrderRow);
          agree(fresh, model, next);
        }
        agree(index, model, next);
      }
    }),
    { numRuns: 60 },
  );
});
