// The state-against-chain record and its decision (docs/durability.md "State against the chain"):
// LandedBatches keeps, per market, the newest batch number the journal recorded, through the
// journal's own encoding and a snapshot; judgeMarket, checked against a model of a venue's history
// (batches landing, outcomes journaled, crashes, copies put back, wipes, a reset chain), never
// refuses the state a venue really stopped with and refuses every older one it can tell apart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeRecord,
  type JournalRecord,
  judgeMarket,
  LandedBatches,
  NO_BATCH,
  plainRecord,
  RecordEncoder,
} from '@venue/adapters';
import fc from 'fast-check';

const MARKETS = ['m-sol', 'm-eth', 'm-btc'] as const;

function settled(marketId: string, matchId: bigint, landedBatchSeq?: bigint): JournalRecord {
  return {
    command: { type: 'match_settled', marketId, matchId, changeNote: null, slot: 7n },
    annotations: landedBatchSeq === undefined ? {} : { landedBatchSeq },
  };
}

test('match_settled keeps its batch number beside it through the journal encoding', () => {
  const record = settled('m-sol', 3n, 12n);
  const decoded = decodeRecord(Buffer.from(new RecordEncoder().encode(record)));
  assert.deepEqual(decoded, record);
  assert.equal(decoded.annotations.landedBatchSeq, 12n);
  // An outcome recorded without one decodes without it.
  const without = decodeRecord(Buffer.from(new RecordEncoder().encode(settled('m-sol', 3n))));
  assert.equal('landedBatchSeq' in without.annotations, false);
});

const recordArb = fc.oneof(
  fc
    .record({
      market: fc.constantFrom(...MARKETS),
      seq: fc.option(fc.bigInt({ min: 0n, max: 40n }), { nil: undefined }),
    })
    .map(({ market, seq }) => settled(market, 1n, seq)),
  fc
    .constantFrom(...MARKETS)
    .map((marketId) =>
      plainRecord({ type: 'match_failed', marketId, matchId: 2n, reason: 'chain_rejected', slot: 7n }),
    ),
  fc.constant(plainRecord({ type: 'tick', slot: 9n })),
);

test('LandedBatches follows the newest recorded batch per market; a snapshot taken anywhere plus the replay after it gives the same', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { maxLength: 40 }), fc.nat(), (commands, cut) => {
      // Reference: the highest landedBatchSeq beside a match_settled per market, or none.
      const expected = new Map<string, bigint>();
      for (const { command: c, annotations } of commands) {
        const seq = annotations.landedBatchSeq;
        if (c.type !== 'match_settled' || seq === undefined) continue;
        const had = expected.get(c.marketId);
        if (had === undefined || seq > had) expected.set(c.marketId, seq);
      }
      const live = new LandedBatches();
      for (const c of commands) live.follow(c, []);
      // Recovery: a snapshot after `at` commands (through JSON, as a snapshot file holds it), the rest replayed.
      const at = commands.length === 0 ? 0 : cut % (commands.length + 1);
      const before = new LandedBatches();
      for (const c of commands.slice(0, at)) before.follow(c, []);
      const recovered = new LandedBatches();
      recovered.load(JSON.parse(JSON.stringify(before.save())));
      for (const c of commands.slice(at)) recovered.follow(c, []);
      for (const market of MARKETS) {
        const want = expected.get(market) ?? NO_BATCH;
        assert.equal(live.last(market), want, market);
        assert.equal(recovered.last(market), want, market);
      }
      assert.deepEqual(recovered.save().sort(), live.save().sort());
    }),
    { seed: 69, numRuns: 300 },
  );
});

test('LandedBatches refuses a snapshot part it did not write', () => {
  for (const part of [{}, [['m-sol']], [['m-sol', '-1']], [['m-sol', 5]], [[1, '2']]]) {
    assert.throws(() => new LandedBatches().load(part), /landed-batches/);
  }
});

/**
 * A model of one market's history. The chain lands the batch in flight; the venue journals its
 * outcome (the match leaves `pending`); the venue may crash at any point (the journal keeps what
 * it recorded); an operator may copy the state directory at any point and later put a copy back,
 * or wipe it. Only one batch is ever in flight (the pipeline's rule).
 */
interface Journal {
  readonly last: bigint;
  readonly pending: boolean;
}

type Step = 'match' | 'land' | 'record' | 'copy';

function run(steps: readonly Step[]) {
  let chainLast = NO_BATCH;
  let journal: Journal = { last: NO_BATCH, pending: false };
  let inFlight = false; // a batch of the pending match landed, outcome not journaled yet
  const copies: Journal[] = [];
  for (const step of steps) {
    if (step === 'match' && !journal.pending) journal = { ...journal, pending: true };
    else if (step === 'land' && journal.pending && !inFlight) {
      chainLast += 1n;
      inFlight = true;
    } else if (step === 'record' && inFlight) {
      journal = { last: chainLast, pending: false };
      inFlight = false;
    } else if (step === 'copy') copies.push(journal);
  }
  return { chainLast, journal, copies };
}

const stepsArb = fc.array(fc.constantFrom<Step>('match', 'land', 'record', 'copy'), { maxLength: 60 });

test('judgeMarket: the state a venue stopped with is always consistent, crash windows included', () => {
  fc.assert(
    fc.property(stepsArb, (steps) => {
      const { chainLast, journal } = run(steps);
      assert.equal(judgeMarket(journal.last, chainLast, journal.pending), 'consistent');
    }),
    { seed: 69, numRuns: 500 },
  );
});

test('judgeMarket: a copy put back is refused unless the chain cannot tell it from the real state', () => {
  fc.assert(
    fc.property(stepsArb, fc.nat(), (steps, pick) => {
      const { chainLast, journal, copies } = run(steps);
      const copy = copies.length === 0 ? { last: NO_BATCH, pending: false } : copies[pick % copies.length];
      assert.ok(copy !== undefined);
      const verdict = judgeMarket(copy.last, chainLast, copy.pending);
      // What the copy lost in settlements: landings it never journaled.
      const missing = chainLast - copy.last;
      // Indistinguishable: it knows every landing, or misses only the newest while its match is
      // still pending in it (the crash window). Everything else is refused as behind the chain.
      const blind = missing === 0n || (missing === 1n && copy.pending);
      assert.equal(verdict, blind ? 'consistent' : 'state_behind_chain');
      if (copy.last < journal.last - 1n) assert.equal(verdict, 'state_behind_chain');
    }),
    { seed: 69, numRuns: 500 },
  );
});

test('judgeMarket: a wiped state is refused once the chain landed anything, and a chain behind the state is named as such', () => {
  fc.assert(
    fc.property(stepsArb, fc.bigInt({ min: 1n, max: 5n }), (steps, reset) => {
      const { chainLast, journal } = run(steps);
      const wiped = judgeMarket(NO_BATCH, chainLast, false);
      assert.equal(wiped, chainLast === NO_BATCH ? 'consistent' : 'state_behind_chain');
      // A reset or other chain that landed fewer batches than the state journaled.
      const behind = journal.last - reset;
      if (journal.last >= 0n && behind >= NO_BATCH) {
        assert.equal(judgeMarket(journal.last, behind, journal.pending), 'chain_behind_state');
      }
    }),
    { seed: 69, numRuns: 300 },
  );
});
