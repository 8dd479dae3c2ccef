// The settlement pipeline joins an auction's matches into groups as it reads them, a slice at a
// time (match-groups.ts): the groups must be those of the whole list joined at once, whatever the
// order the counterparties come in, even when a match names a counterparty that does not name it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { connected, groupsOf, type Joinable, join, newJoining } from '../src/settlement/match-groups.ts';

/** The reference: the pipeline's earlier grouping, a union-find over match ids with the whole list known. */
function referenceGroups<M extends Joinable>(matches: readonly M[]): M[][] {
  const parent = new Map<bigint, bigint>(matches.map((m) => [m.matchId, m.matchId]));
  const find = (id: bigint): bigint => {
    let root = id;
    while (parent.get(root) !== root) root = parent.get(root) as bigint;
    parent.set(id, root);
    return root;
  };
  for (const match of matches) {
    for (const other of match.counterpartyMatchIds ?? []) {
      if (parent.has(other)) parent.set(find(other), find(match.matchId));
    }
  }
  const groups = new Map<bigint, M[]>();
  for (const match of matches) {
    const root = find(match.matchId);
    groups.set(root, [...(groups.get(root) ?? []), match]);
  }
  return [...groups.values()];
}

/** Matches with distinct ids; each names some others (ids outside the list too), or none known. */
const matchLists = fc
  .integer({ min: 0, max: 40 })
  .chain((count) =>
    fc.array(
      fc.option(fc.uniqueArray(fc.integer({ min: 0, max: count + 3 }), { maxLength: 4 }), {
        nil: null,
        freq: 8,
      }),
      { minLength: count, maxLength: count },
    ),
  )
  .map((named) =>
    named.map(
      (others, i): Joinable => ({
        matchId: BigInt(i),
        counterpartyMatchIds: others === null ? null : others.filter((o) => o !== i).map(BigInt),
      }),
    ),
  );

test('joining matches one at a time gives the groups of the whole list joined at once', () => {
  fc.assert(
    fc.property(matchLists, fc.integer({ min: 1, max: 8 }), (matches, sliceLength) => {
      const expected = referenceGroups(matches);
      assert.deepEqual(connected(matches), expected);
      // Read in slices, as the pipeline does over several turns.
      const into = newJoining<Joinable>();
      for (let from = 0; from < matches.length; from += sliceLength) {
        for (const match of matches.slice(from, from + sliceLength)) join(into, match);
      }
      assert.deepEqual(groupsOf(into), expected);
    }),
    { numRuns: 500 },
  );
});

test('a pair whose fill both name is one group; a match with no counterparty known is alone', () => {
  const a = { matchId: 1n, counterpartyMatchIds: [2n] };
  const b = { matchId: 2n, counterpartyMatchIds: [1n] };
  const lone = { matchId: 3n, counterpartyMatchIds: null };
  assert.deepEqual(connected([a, lone, b]), [[a, b], [lone]]);
});
