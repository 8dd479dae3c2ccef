// VALID_MATCH against its TypeScript reference: every honest leg of a random batch satisfies the
// circuit with the reference's statement, and the batch conserves both assets; each broken rule
// makes the witness unsatisfiable or the batch refused by the pairing rule. The wide circuit (16
// fill slots) is the same template: fewer runs check that it holds the same rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  batchBinding,
  brokenMatchRules,
  deriveLeg,
  deriveNote,
  fillPairingFault,
  legTotals,
  loadNoteHasher,
  MATCH_FILLS_MAX,
  MATCH_FILLS_NARROW,
  MATCH_FILLS_WIDE,
  type MatchLeg,
  MatchRuleError,
  type MatchStatement,
  matchCircuitInput,
  matchPublicInputs,
  matchWidthOfStatement,
  randomFieldElement,
  sampleMatchBatch,
  settleLeg,
} from '../src/index.ts';
import { accepts, type HonestBatch, honestBatchArbitrary, loadMatchWitness } from './match-fixtures.ts';

const hasher = await loadNoteHasher();
const witness = await loadMatchWitness();
const wideWitness = await loadMatchWitness(MATCH_FILLS_WIDE);
const RUNS = 25;
const WIDE_RUNS = 6;

/** The circuit's verdict on a leg with a given statement. */
function circuitAccepts(batch: HonestBatch, leg: MatchLeg, statement: MatchStatement): Promise<boolean> {
  return accepts(witness, matchCircuitInput(batch.header, leg, statement));
}

test('every honest leg satisfies the circuit, whose public signals are the reference statement', async () => {
  await fc.assert(
    fc.asyncProperty(honestBatchArbitrary(hasher), async (batch) => {
      for (const leg of batch.legs) {
        assert.deepEqual(brokenMatchRules(batch.header, leg), []);
        const { statement } = settleLeg(hasher, batch.header, leg);
        const signals = await witness(matchCircuitInput(batch.header, leg, statement));
        // circom's witness: 1, then the public inputs in declaration order.
        assert.deepEqual(
          signals.slice(1, 1 + matchPublicInputs(statement).length),
          matchPublicInputs(statement),
        );
      }
    }),
    { numRuns: RUNS },
  );
});

test('an honest batch pairs its fills and conserves each asset exactly', async () => {
  await fc.assert(
    fc.asyncProperty(honestBatchArbitrary(hasher), async (batch) => {
      const settled = batch.legs.map((leg) => settleLeg(hasher, batch.header, leg));
      assert.equal(fillPairingFault(settled.map((s) => s.statement)), null);
      const totals = new Map<bigint, bigint>();
      const add = (asset: bigint, value: bigint) => totals.set(asset, (totals.get(asset) ?? 0n) + value);
      batch.legs.forEach((leg, i) => {
        add(leg.side === 'bid' ? batch.header.quoteAssetId : batch.header.baseAssetId, leg.input.value);
        const out = settled[i];
        assert.ok(out);
        add(out.received.assetId, -out.received.value);
        add(out.change.assetId, -out.change.value);
        assert.equal(out.received.ownerCommitment, leg.input.ownerCommitment, 'outputs keep the owner');
        assert.equal(out.change.ownerCommitment, leg.input.ownerCommitment, 'outputs keep the owner');
      });
      for (const difference of totals.values()) assert.equal(difference, 0n);
    }),
    { numRuns: RUNS },
  );
});

/** A random honest batch's first leg, with its reference statement. */
const firstLeg = honestBatchArbitrary(hasher).map((batch) => {
  const leg = batch.legs[0];
  assert.ok(leg);
  return { batch, leg, statement: settleLeg(hasher, batch.header, leg).statement };
});

test('value created: a change or fill note worth one unit more is refused', async () => {
  await fc.assert(
    fc.asyncProperty(firstLeg, fc.boolean(), async ({ batch, leg, statement }, inChange) => {
      const richer = deriveLeg(hasher, batch.header, {
        ...leg,
        input: { ...leg.input, value: leg.input.value + 1n },
      }).change;
      const richerFill = deriveNote(hasher, {
        ...settleLeg(hasher, batch.header, leg).received,
        value: settleLeg(hasher, batch.header, leg).received.value + 1n,
      });
      const forged = inChange
        ? { ...statement, changeCommitment: richer.commitment }
        : { ...statement, receivedCommitment: richerFill.commitment };
      assert.equal(await circuitAccepts(batch, leg, forged), false);
    }),
    { numRuns: RUNS },
  );
});

test('wrong owner: outputs owned by anyone but the input owner are refused', async () => {
  await fc.assert(
    fc.asyncProperty(
      firstLeg,
      fc.bigInt({ min: 1n, max: 1n << 200n }),
      async ({ batch, leg, statement }, key) => {
        const thief = hasher.ownerCommitment(key);
        fc.pre(thief !== leg.input.ownerCommitment);
        const stolen = deriveNote(hasher, {
          ...settleLeg(hasher, batch.header, leg).received,
          ownerCommitment: thief,
        });
        assert.equal(
          await circuitAccepts(batch, leg, { ...statement, receivedCommitment: stolen.commitment }),
          false,
        );
      },
    ),
    { numRuns: RUNS },
  );
});

test('quote rounded up: a fill moving one quote unit more than the floor is refused', async () => {
  await fc.assert(
    fc.asyncProperty(firstLeg, async ({ batch, leg }) => {
      const [first, ...rest] = leg.fills;
      assert.ok(first);
      // The bid pays one unit more and the ask gets it: conserved, but not the floored price.
      const rounded: MatchLeg = {
        ...leg,
        input: { ...leg.input, value: leg.input.value + 1n },
        fills: [{ ...first, quoteAmount: first.quoteAmount + 1n }, ...rest],
      };
      assert.deepEqual(brokenMatchRules(batch.header, rounded), ['quote_floor']);
      const { statement } = deriveLeg(hasher, batch.header, rounded);
      assert.equal(await circuitAccepts(batch, rounded, statement), false);
    }),
    { numRuns: RUNS },
  );
});

test('overspend: a leg paying more than its input holds is refused', async () => {
  await fc.assert(
    fc.asyncProperty(firstLeg, async ({ batch, leg, statement }) => {
      // One unit short of what the fills pay.
      const short = legTotals(leg).paid - 1n;
      const poorer: MatchLeg = { ...leg, input: { ...leg.input, value: short } };
      assert.deepEqual(brokenMatchRules(batch.header, poorer), ['overspend']);
      const input = hasher.commitment(leg.input.ownerCommitment, leg.input.innerHash, short);
      const forged = { ...statement, inputCommitment: input, changeCommitment: 0n };
      assert.equal(await circuitAccepts(batch, poorer, forged), false);
    }),
    { numRuns: RUNS },
  );
});

test('wrong asset: what the fill bought must be the other asset of the market', async () => {
  await fc.assert(
    fc.asyncProperty(firstLeg, async ({ batch, leg, statement }) => {
      const received = settleLeg(hasher, batch.header, leg).received;
      const paidAsset = leg.side === 'bid' ? batch.header.quoteAssetId : batch.header.baseAssetId;
      const sameAsset = deriveNote(hasher, { ...received, assetId: paidAsset });
      assert.equal(
        await circuitAccepts(batch, leg, { ...statement, receivedCommitment: sameAsset.commitment }),
        false,
      );
      // Claiming the other side swaps both assets: refused too.
      const flipped = { ...statement, side: leg.side === 'bid' ? ('ask' as const) : ('bid' as const) };
      assert.equal(await circuitAccepts(batch, leg, flipped), false);
    }),
    { numRuns: RUNS },
  );
});

test('replayed binding: a leg stated for another batch sequence keeps fill tags of its own batch and is refused', async () => {
  await fc.assert(
    fc.asyncProperty(firstLeg, async ({ batch, leg, statement }) => {
      const other = batchBinding(hasher, { ...batch.header, batchSeq: batch.header.batchSeq + 1n });
      assert.equal(await circuitAccepts(batch, leg, { ...statement, batchBinding: other }), false);
      const later = batchBinding(hasher, { ...batch.header, deadlineSlot: batch.header.deadlineSlot + 1n });
      assert.equal(await circuitAccepts(batch, leg, { ...statement, batchBinding: later }), false);
    }),
    { numRuns: RUNS },
  );
});

test('unpaired fills: a batch missing a leg, or with a leg twice, is refused by the pairing rule', async () => {
  await fc.assert(
    fc.asyncProperty(honestBatchArbitrary(hasher), fc.nat(), async (batch, pick) => {
      const statements = batch.legs.map((leg) => settleLeg(hasher, batch.header, leg).statement);
      const dropped = statements.filter((_, i) => i !== pick % statements.length);
      assert.notEqual(fillPairingFault(dropped), null);
      const doubled = [...statements, statements[pick % statements.length] as MatchStatement];
      assert.notEqual(fillPairingFault(doubled), null);
    }),
    { numRuns: RUNS },
  );
});

test('a leg takes the narrow circuit up to 4 fills, the wide one from 5 to 16, and none beyond', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: MATCH_FILLS_MAX + 4 }), (fills) => {
      const sample = sampleMatchBatch(hasher, 1, 1n, fills);
      const [bid] = sample.legs;
      assert.ok(bid);
      if (fills > MATCH_FILLS_MAX) {
        assert.deepEqual(brokenMatchRules(sample.header, bid), ['fills_max']);
        assert.throws(() => settleLeg(hasher, sample.header, bid), MatchRuleError);
        return;
      }
      const { statement } = settleLeg(hasher, sample.header, bid);
      const width = fills <= MATCH_FILLS_NARROW ? MATCH_FILLS_NARROW : MATCH_FILLS_WIDE;
      assert.equal(matchWidthOfStatement(statement), width);
      assert.equal(statement.fillTags.filter((tag) => tag !== 0n).length, fills, 'padding is zeros');
    }),
    { numRuns: RUNS },
  );
});

/** The circuit of the statement's width, and its verdict. */
function circuitOfWidthAccepts(
  batch: HonestBatch,
  leg: MatchLeg,
  statement: MatchStatement,
): Promise<boolean> {
  const chosen = matchWidthOfStatement(statement) === MATCH_FILLS_WIDE ? wideWitness : witness;
  return accepts(chosen, matchCircuitInput(batch.header, leg, statement));
}

test('wide: every honest leg of 5 to 16 fills satisfies the wide circuit, the batch pairs and conserves', async () => {
  await fc.assert(
    fc.asyncProperty(honestBatchArbitrary(hasher, MATCH_FILLS_WIDE), async (batch) => {
      const statements: MatchStatement[] = [];
      for (const leg of batch.legs) {
        const { statement } = settleLeg(hasher, batch.header, leg);
        statements.push(statement);
        if (matchWidthOfStatement(statement) === MATCH_FILLS_NARROW) continue;
        const signals = await wideWitness(matchCircuitInput(batch.header, leg, statement));
        assert.deepEqual(
          signals.slice(1, 1 + matchPublicInputs(statement).length),
          matchPublicInputs(statement),
        );
      }
      assert.ok(
        statements.some((s) => matchWidthOfStatement(s) === MATCH_FILLS_WIDE),
        'the bid is wide',
      );
      assert.equal(fillPairingFault(statements), null);
    }),
    { numRuns: WIDE_RUNS },
  );
});

test('wide: a quote rounded up, a richer change or another salt in one fill is refused', async () => {
  const wideBid = honestBatchArbitrary(hasher, MATCH_FILLS_WIDE).map((batch) => {
    const leg = batch.legs.find((l) => l.side === 'bid');
    assert.ok(leg);
    return { batch, leg, statement: settleLeg(hasher, batch.header, leg).statement };
  });
  await fc.assert(
    fc.asyncProperty(wideBid, fc.nat(), async ({ batch, leg, statement }, pick) => {
      const at = pick % leg.fills.length;
      const fills = leg.fills.map((fill, i) =>
        i === at ? { ...fill, quoteAmount: fill.quoteAmount + 1n } : fill,
      );
      const rounded: MatchLeg = { ...leg, input: { ...leg.input, value: leg.input.value + 1n }, fills };
      assert.equal(
        await circuitOfWidthAccepts(batch, rounded, deriveLeg(hasher, batch.header, rounded).statement),
        false,
      );
      const richer = deriveLeg(hasher, batch.header, {
        ...leg,
        input: { ...leg.input, value: leg.input.value + 1n },
      });
      assert.equal(
        await circuitOfWidthAccepts(batch, leg, { ...statement, changeCommitment: richer.change.commitment }),
        false,
      );
      // The statement shows the honest tags; the witness uses another salt for one fill.
      const resalted = leg.fills.map((fill, i) =>
        i === at ? { ...fill, salt: randomFieldElement() } : fill,
      );
      assert.equal(await circuitOfWidthAccepts(batch, { ...leg, fills: resalted }, statement), false);
    }),
    { numRuns: WIDE_RUNS },
  );
});
