/**
 * The match-facts companion keeps what a match event says beyond the core's pending view (price,
 * counterparts, per-counterparty fills) until the match's outcome. Checked here: a snapshot gives
 * back exactly the facts it was taken from, fills included; a snapshot written before facts kept
 * fills still loads, with fills undefined; an outcome forgets the match.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchCounterparties, matchEventsOf, matchFills, VenueCore } from '@venue/core';
import {
  orderBody,
  placeCommand,
  TEST_CORE_CONFIG,
  TEST_ROOT,
  TEST_SESSION,
  testMarket,
} from '@venue/testing';
import fc from 'fast-check';
import { NO_ANNOTATIONS } from '../src/journal/journal-record.ts';
import { MatchFacts } from '../src/settlement/match-facts.ts';

const MARKET = testMarket('SOL-USDC');

/** A batch of crossing orders on a real core: its tick command and the events it caused. */
function batch(specs: readonly { side: 'bid' | 'ask'; amount: bigint }[]) {
  const core = new VenueCore(TEST_CORE_CONFIG);
  core.apply({ type: 'boot', sessionId: TEST_SESSION, slot: 0n });
  core.apply({ type: 'add_market', market: MARKET });
  core.apply({ type: 'oracle_price', marketId: MARKET.marketId, price: 1000n, slot: 0n });
  core.apply({ type: 'roots', treeId: 0, roots: [TEST_ROOT], slot: 0n });
  specs.forEach((s, i) => {
    const body = orderBody({ id: i + 1, side: s.side, amount: s.amount, price: 1000n, key: `k-${i}` });
    core.apply(placeCommand(body, 0n, `acct-${i}`));
  });
  const command = { type: 'tick', slot: 1n } as const;
  return { command, events: core.apply(command) };
}

/** The snapshot as the journal writes it: JSON text. */
/** The orders of one auction: 2 to 12 of either side. */
const specsArb = fc.array(
  fc.record({
    side: fc.constantFrom('bid' as const, 'ask' as const),
    amount: fc.bigInt({ min: 1n, max: 500n }),
  }),
  { minLength: 2, maxLength: 12 },
);

const throughJson = (facts: MatchFacts) => JSON.parse(JSON.stringify(facts.save())) as unknown;

test('a snapshot of the facts loads back to the same facts, fills included', () => {
  fc.assert(
    fc.property(specsArb, (specs) => {
      const { command, events } = batch(specs);
      const facts = new MatchFacts();
      facts.follow({ command, annotations: NO_ANNOTATIONS }, events);
      const loaded = new MatchFacts();
      loaded.load(throughJson(facts));
      assert.equal(loaded.size, facts.size);
      for (const m of matchEventsOf(events)) {
        const fact = loaded.get(m.marketId, m.matchId);
        assert.deepEqual(fact, facts.get(m.marketId, m.matchId));
        assert.deepEqual(fact?.fills, matchFills(m), `match ${m.matchId}: the fills as the event gave them`);
        assert.equal(fact?.clearingPrice, m.clearingPrice);
      }
    }),
    { numRuns: 50 },
  );
});

test('a snapshot written before fills were kept loads, with fills undefined', () => {
  const old = [[MARKET.marketId, '7', '1000', ['8', '9']]];
  const facts = new MatchFacts();
  facts.load(JSON.parse(JSON.stringify(old)));
  const fact = facts.get(MARKET.marketId, 7n);
  assert.equal(fact?.fills, undefined);
  assert.deepEqual(fact, {
    marketId: MARKET.marketId,
    matchId: 7n,
    clearingPrice: 1000n,
    counterpartyMatchIds: [8n, 9n],
  });
  // Saved again, it keeps the old shape: nothing is invented for the missing fills.
  assert.deepEqual(throughJson(facts), old);
});

test('an outcome forgets the match', () => {
  const { command, events } = batch([
    { side: 'bid', amount: 10n },
    { side: 'ask', amount: 10n },
  ]);
  const facts = new MatchFacts();
  facts.follow({ command, annotations: NO_ANNOTATIONS }, events);
  const [first] = matchEventsOf(events);
  assert.ok(first !== undefined);
  facts.follow(
    {
      command: {
        type: 'match_failed',
        marketId: first.marketId,
        matchId: first.matchId,
        reason: 'note_locked',
        slot: 1n,
      },
      annotations: NO_ANNOTATIONS,
    },
    [],
  );
  assert.equal(facts.get(first.marketId, first.matchId), undefined);
  assert.equal(facts.size, 1);
});

test('a batch kept as one record forgets its matches one by one, in any order, and saves what is left', () => {
  fc.assert(
    fc.property(specsArb, fc.infiniteStream(fc.nat()), (specs, picks) => {
      const { command, events } = batch(specs);
      const facts = new MatchFacts();
      facts.follow({ command, annotations: NO_ANNOTATIONS }, events);
      const open = matchEventsOf(events);
      const expected = (m: (typeof open)[number]) => ({
        marketId: m.marketId,
        matchId: m.matchId,
        clearingPrice: m.clearingPrice,
        counterpartyMatchIds: matchCounterparties(m),
        fills: matchFills(m),
      });
      const pick = picks[Symbol.iterator]();
      while (open.length > 0) {
        const [gone] = open.splice((pick.next().value as number) % open.length, 1);
        assert.ok(gone !== undefined);
        facts.follow(
          {
            command: {
              type: 'match_settled',
              marketId: gone.marketId,
              matchId: gone.matchId,
              changeNote: null,
              slot: 1n,
            },
            annotations: NO_ANNOTATIONS,
          },
          [],
        );
        assert.equal(facts.get(gone.marketId, gone.matchId), undefined, 'a resolved match is forgotten');
        assert.equal(facts.size, open.length);
        for (const m of open) assert.deepEqual(facts.get(m.marketId, m.matchId), expected(m));
        // What a snapshot keeps: the unresolved, in match id order, and they load back the same.
        const loaded = new MatchFacts();
        loaded.load(throughJson(facts));
        const left = [...open].sort((a, b) => (a.matchId < b.matchId ? -1 : 1));
        assert.deepEqual(
          (facts.save() as unknown[]).map((stored) => BigInt((stored as string[])[1] as string)),
          left.map((m) => m.matchId),
        );
        for (const m of left) assert.deepEqual(loaded.get(m.marketId, m.matchId), expected(m));
      }
    }),
    { numRuns: 50 },
  );
});
