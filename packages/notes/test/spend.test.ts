// VALID_SPEND (withdraw and merge) against its TypeScript reference: an honest spend satisfies the
// circuit with the reference's statement; the circuit accepts a mutated (statement, witness) exactly
// when the reference relation holds, and refuses created value, another owner, another asset and a
// wrong tag. Then a few real proofs: honest spends verify; a proof replayed into another request
// (another recipient or action), another amount or another tag does not.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import {
  artifactPath,
  assetIdOfMint,
  createSpendProver,
  createSpendVerifier,
  isStandInSpendProof,
  loadArtifact,
  loadNoteHasher,
  planSpend,
  SPEND_INPUTS_MAX,
  type SpendProver,
  type SpendRequest,
  SpendRuleError,
  type SpendStatement,
  type SpendVerifier,
  type SpendWitness,
  spendCircuitInput,
  spendPublicInputs,
  spendRelationHolds,
  spendRequestBinding,
  standInSpendProof,
} from '../src/index.ts';

const hasher = await loadNoteHasher();
const RUNS = 20;
const U64_MAX = (1n << 64n) - 1n;
const MINT = 'So11111111111111111111111111111111111111112';
const OTHER_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

interface WitnessCalculator {
  calculateWitness(input: object, sanityCheck: boolean): Promise<bigint[]>;
}
const witness = await (async () => {
  const wasm = await loadArtifact('spendWasm');
  await loadArtifact('witnessCalculator');
  const builder = createRequire(import.meta.url)(artifactPath('witnessCalculator')) as (
    code: Uint8Array,
  ) => Promise<WitnessCalculator>;
  return builder(wasm);
})();

async function circuitAccepts(statement: SpendStatement, w: SpendWitness): Promise<boolean> {
  try {
    await witness.calculateWitness(spendCircuitInput(statement, w), true);
    return true;
  } catch {
    return false;
  }
}

const field = fc.bigInt({ min: 1n, max: (1n << 253n) - 1n });
const value = fc.oneof(fc.bigInt({ min: 0n, max: 1_000_000n }), fc.bigInt({ min: 0n, max: U64_MAX >> 3n }));

/** An honest spend: 1 to 8 notes, some of their total leaving the pool, the rest to the output. */
const honestSpend = fc
  .record({
    spendingKey: field,
    inputs: fc.array(fc.record({ blinding: field, value }), { minLength: 1, maxLength: SPEND_INPUTS_MAX }),
    outputBlinding: field,
    share: fc.bigInt({ min: 0n, max: 1000n }),
    merge: fc.boolean(),
    recipient: fc.constantFrom('4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T', 'recipient-b'),
  })
  .filter(({ inputs }) => new Set(inputs.map((i) => i.blinding)).size === inputs.length)
  .map(({ spendingKey, inputs, outputBlinding, share, merge, recipient }): SpendRequest => {
    const total = inputs.reduce((sum, input) => sum + input.value, 0n);
    return {
      spendingKey,
      assetId: assetIdOfMint(MINT),
      inputs,
      publicValue: merge ? 0n : (total * share) / 1000n,
      outputBlinding,
      request: {
        action: merge ? 'merge' : 'withdraw',
        inputTreeIds: inputs.map((_, i) => i % 4),
        outputTreeId: 1,
        recipient: merge ? '' : recipient,
      },
    };
  });

test('an honest spend satisfies the circuit, whose public signals are the reference statement', async () => {
  await fc.assert(
    fc.asyncProperty(honestSpend, async (request) => {
      const plan = planSpend(hasher, request);
      assert.ok(spendRelationHolds(hasher, plan.statement, plan.witness));
      const signals = await witness.calculateWitness(spendCircuitInput(plan.statement, plan.witness), true);
      // circom's witness: 1, then the public inputs in declaration order.
      const expected = spendPublicInputs(plan.statement);
      assert.deepEqual(signals.slice(1, 1 + expected.length), expected);
      // Nothing is created: what the inputs held is what leaves plus what stays.
      const total = request.inputs.reduce((sum, input) => sum + input.value, 0n);
      assert.equal((plan.output?.value ?? 0n) + request.publicValue, total);
      assert.equal(plan.statement.outputCommitment === 0n, plan.output === null);
    }),
    { numRuns: RUNS },
  );
});

type Mutation = (s: SpendStatement, w: SpendWitness) => [SpendStatement, SpendWitness];
const setAt = (row: readonly bigint[], k: number, v: bigint): bigint[] =>
  row.map((x, i) => (i === k ? v : x));

/** Ways to break a spend, each a single change; the first five always break it. */
const MUTATIONS: Record<string, Mutation> = {
  'value created: one more unit leaves the pool': (s, w) => [{ ...s, publicValue: s.publicValue + 1n }, w],
  'value created: the output claims one more unit': (s, w) => [s, { ...w, outputValue: w.outputValue + 1n }],
  'another owner: a different spending key': (s, w) => [s, { ...w, spendingKey: w.spendingKey + 1n }],
  'another asset': (s, w) => [{ ...s, assetId: assetIdOfMint(OTHER_MINT) }, w],
  'a wrong tag in slot 0': (s, w) => [
    { ...s, noteUseTags: setAt(s.noteUseTags, 0, (s.noteUseTags[0] ?? 0n) + 1n) },
    w,
  ],
  'an unused slot holding value': (s, w) => [
    s,
    {
      ...w,
      used: setAt(w.used, SPEND_INPUTS_MAX - 1, 0n),
      values: setAt(w.values, SPEND_INPUTS_MAX - 1, 1n),
    },
  ],
  'an input beyond u64 (wrapped by a negative output)': (s, w) => [
    s,
    {
      ...w,
      values: setAt(w.values, 0, (w.values[0] ?? 0n) + (1n << 64n)),
      outputValue: w.outputValue + (1n << 64n),
    },
  ],
  'the binding of another request (kept: the binding is bound by the proof, not the witness)': (s, w) => [
    { ...s, requestBinding: s.requestBinding + 1n },
    w,
  ],
};

test('the circuit accepts a changed spend exactly when the reference relation holds', async () => {
  const names = Object.keys(MUTATIONS);
  await fc.assert(
    fc.asyncProperty(honestSpend, fc.constantFrom(...names), async (request, name) => {
      const plan = planSpend(hasher, request);
      const [statement, w] = (MUTATIONS[name] as Mutation)(plan.statement, plan.witness);
      const reference = spendRelationHolds(hasher, statement, w);
      assert.equal(await circuitAccepts(statement, w), reference, name);
      // Only the binding change leaves a satisfiable witness: the proof, not the witness, binds it.
      assert.equal(reference, name.startsWith('the binding'), name);
    }),
    { numRuns: RUNS * 3 },
  );
});

test('a spend that breaks a rule is refused before proving, naming the rule', () => {
  const request: SpendRequest = {
    spendingKey: 7n,
    assetId: assetIdOfMint(MINT),
    inputs: [{ blinding: 11n, value: 5n }],
    publicValue: 6n,
    outputBlinding: 13n,
    request: { action: 'withdraw', inputTreeIds: [0], outputTreeId: null, recipient: 'r' },
  };
  assert.throws(
    () => planSpend(hasher, request),
    (e: unknown) => e instanceof SpendRuleError && e.rules.includes('value_created'),
  );
  assert.throws(
    () => planSpend(hasher, { ...request, inputs: [], publicValue: 0n }),
    (e: unknown) => e instanceof SpendRuleError && e.rules.includes('inputs_count'),
  );
  const nine = Array.from({ length: SPEND_INPUTS_MAX + 1 }, (_, i) => ({
    blinding: BigInt(i + 1),
    value: 1n,
  }));
  assert.throws(
    () => planSpend(hasher, { ...request, inputs: nine, publicValue: 0n }),
    (e: unknown) => e instanceof SpendRuleError && e.rules.includes('inputs_count'),
  );
});

test('the request binding changes with every field it covers', () => {
  const base = { action: 'withdraw', inputTreeIds: [0], outputTreeId: 1, recipient: 'alice' } as const;
  const variants = [
    base,
    { ...base, action: 'merge' as const },
    { ...base, inputTreeIds: [1] },
    { ...base, outputTreeId: null },
    { ...base, outputTreeId: 0 },
    { ...base, recipient: 'bob' },
  ];
  assert.equal(new Set(variants.map(spendRequestBinding)).size, variants.length);
});

test('the stand-in proof is the statement hash: any change of the statement breaks it', () => {
  const plan = planSpend(hasher, {
    spendingKey: 7n,
    assetId: assetIdOfMint(MINT),
    inputs: [{ blinding: 11n, value: 5n }],
    publicValue: 2n,
    outputBlinding: 13n,
    request: { action: 'withdraw', inputTreeIds: [0], outputTreeId: 0, recipient: 'r' },
  });
  const proof = standInSpendProof(plan.statement);
  assert.ok(isStandInSpendProof(plan.statement, proof));
  assert.ok(!isStandInSpendProof({ ...plan.statement, publicValue: 3n }, proof));
});

describeRealProofs();

function describeRealProofs(): void {
  let prover: SpendProver;
  let verifier: SpendVerifier;
  before(async () => {
    [prover, verifier] = await Promise.all([createSpendProver(), createSpendVerifier()]);
  });
  after(async () => {
    await prover.close();
    await verifier.close();
  });
  const assetId = assetIdOfMint(MINT);
  const withdrawal: SpendRequest = {
    spendingKey: 1234n,
    assetId,
    inputs: [{ blinding: 99n, value: 1000n }],
    publicValue: 600n,
    outputBlinding: 77n,
    request: { action: 'withdraw', inputTreeIds: [2], outputTreeId: 3, recipient: 'alice' },
  };

  test('a withdraw with change proves and verifies; replayed into another request it does not', async () => {
    const proved = await prover.prove(withdrawal);
    assert.equal(proved.output?.value, 400n);
    assert.ok(verifier.verifyNow(proved));
    const other = (fields: Partial<SpendRequest['request']>) => ({
      ...proved,
      statement: {
        ...proved.statement,
        requestBinding: spendRequestBinding({ ...withdrawal.request, ...fields }),
      },
    });
    assert.equal(verifier.verifyNow(other({ recipient: 'mallory' })), false, 'another recipient');
    assert.equal(verifier.verifyNow(other({ action: 'merge', recipient: '' })), false, 'another action');
    assert.equal(verifier.verifyNow(other({ outputTreeId: 0 })), false, 'another shard');
    const statement = proved.statement;
    assert.equal(verifier.verifyNow({ ...proved, statement: { ...statement, publicValue: 601n } }), false);
    assert.equal(verifier.verifyNow({ ...proved, statement: { ...statement, outputCommitment: 0n } }), false);
    const tags = setAt(statement.noteUseTags, 0, 5n);
    assert.equal(verifier.verifyNow({ ...proved, statement: { ...statement, noteUseTags: tags } }), false);
    assert.equal(verifier.verifyNow({ ...proved, proof: '00'.repeat(256) }), false, 'a malformed proof');
  });

  test('a merge of three notes proves and verifies, its output holding their sum', async () => {
    const proved = await prover.prove({
      ...withdrawal,
      inputs: [
        { blinding: 1n, value: 10n },
        { blinding: 2n, value: 20n },
        { blinding: 3n, value: 30n },
      ],
      publicValue: 0n,
      request: { action: 'merge', inputTreeIds: [0, 0, 1], outputTreeId: 0, recipient: '' },
    });
    assert.equal(proved.output?.value, 60n);
    assert.equal(proved.statement.publicValue, 0n);
    assert.ok(verifier.verifyNow(proved));
  });

  test('a spend that breaks a rule is never proved', async () => {
    await assert.rejects(prover.prove({ ...withdrawal, publicValue: 1001n }), SpendRuleError);
  });
}
