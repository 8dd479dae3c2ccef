// The table of valid claims behind the verifier's reuse: keys that tell every field apart, and a
// bounded least-recently-used table, checked against a plain model.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { AssetClaim } from '../src/claims.ts';
import { VerifiedClaims } from '../src/verified-claims.ts';

const CLAIM: AssetClaim = {
  note_commitment: 'aa'.repeat(32),
  merkle_root: 'bb'.repeat(32),
  owner_commitment: 'cc'.repeat(32),
  note_inner_hash: 'dd'.repeat(32),
  trading_key: '5'.repeat(44),
  valid_input_proof: 'ee'.repeat(256),
  assetId: 7n,
};

test('every field the verdict depends on changes the key; field boundaries cannot be shifted', () => {
  const table = new VerifiedClaims(8);
  const base = table.keyOf(CLAIM);
  const variants: AssetClaim[] = [
    { ...CLAIM, note_commitment: 'ab'.repeat(32) },
    { ...CLAIM, merkle_root: 'ab'.repeat(32) },
    { ...CLAIM, tree_id: 0 },
    { ...CLAIM, tree_id: 1 },
    { ...CLAIM, owner_commitment: 'ab'.repeat(32) },
    { ...CLAIM, note_inner_hash: 'ab'.repeat(32) },
    { ...CLAIM, trading_key: '6'.repeat(44) },
    { ...CLAIM, valid_input_proof: `ef${'ee'.repeat(255)}` },
    { ...CLAIM, assetId: 8n },
    { ...CLAIM, noteValue: 1000n },
    // Moving characters from one field to the next must not give the same key.
    { ...CLAIM, note_commitment: `${CLAIM.note_commitment}b`, merkle_root: CLAIM.merkle_root.slice(1) },
  ];
  const keys = new Set([base, ...variants.map((claim) => table.keyOf(claim))]);
  assert.equal(keys.size, variants.length + 1);
  assert.equal(table.keyOf({ ...CLAIM }), base, 'the same fields give the same key');
  assert.equal(new VerifiedClaims(0).keyOf(CLAIM), null, 'a table of size 0 keys nothing');
});

test('the table behaves as a bounded least-recently-used map of valid verdicts', () => {
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('remember' as const),
      key: fc.integer({ min: 0, max: 6 }),
      commitment: fc.option(fc.constantFrom('c1', 'c2', 'c3')),
    }),
    fc.record({ kind: fc.constant('reuse' as const), key: fc.integer({ min: 0, max: 6 }) }),
  );
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
      const table = new VerifiedClaims(max);
      // The model: keys in recency order, oldest first.
      const model = new Map<string, string | null>();
      let reused = 0;
      for (const step of ops) {
        const key = `k${step.key}`;
        if (step.kind === 'remember') {
          table.remember(key, step.commitment);
          model.delete(key);
          model.set(key, step.commitment);
          if (model.size > max) model.delete(model.keys().next().value as string);
        } else {
          const expected = model.get(key);
          assert.equal(table.knows(key), expected !== undefined);
          const got = table.reuse(key);
          if (expected === undefined) assert.equal(got, undefined);
          else {
            assert.deepEqual(got, { valid: true, commitment: expected });
            reused += 1;
            model.delete(key);
            model.set(key, expected);
          }
        }
      }
      assert.deepEqual(table.stats(), { reused, kept: model.size });
    }),
  );
});
