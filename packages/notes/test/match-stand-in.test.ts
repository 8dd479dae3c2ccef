// The stand-in match prover (tests and the simulator's stand-in mode) follows the real prover's
// widths and rules: the same statement as the reference for a leg of 1 to 16 fills, a proof its
// check accepts for that statement only, and a leg of more than 16 fills refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  createStandInMatchProver,
  isStandInMatchProof,
  loadNoteHasher,
  MATCH_FILLS_MAX,
  MatchProvingError,
  matchWidthOfStatement,
  sampleMatchBatch,
  settleLeg,
} from '../src/index.ts';

const hasher = await loadNoteHasher();
const prover = createStandInMatchProver(hasher);

test('the stand-in proves a leg of 1 to 16 fills with the reference statement of its width, and refuses 17', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: MATCH_FILLS_MAX + 1 }), async (fills) => {
      const sample = sampleMatchBatch(hasher, 1, BigInt(fills), fills);
      const [bid] = sample.legs;
      assert.ok(bid);
      if (fills > MATCH_FILLS_MAX) {
        await assert.rejects(prover.prove(sample.header, bid), MatchProvingError);
        return;
      }
      const { statement, proof } = await prover.prove(sample.header, bid);
      assert.deepEqual(statement, settleLeg(hasher, sample.header, bid).statement);
      assert.equal(matchWidthOfStatement(statement), fills <= 4 ? 4 : 16);
      assert.ok(isStandInMatchProof(statement, proof));
      const [first, ...rest] = statement.fillTags;
      assert.ok(first !== undefined);
      assert.ok(!isStandInMatchProof({ ...statement, fillTags: [first + 1n, ...rest] }, proof));
    }),
    { numRuns: 20 },
  );
});
