// A 'groth16' chain (the default) lands a batch with real VALID_MATCH proofs and refuses one whose
// proof or binding is wrong, naming the leg. Proving costs about 1.5 s of CPU per leg, so one trade
// is proved once and reused by every test here; the other settlement tests use stand-in proofs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMatchProver, type MatchProof, type MatchProver } from '@venue/notes';
import { outputsOf, type TradePlan, type World, world } from './fixtures.ts';

let prover: MatchProver;
let w: World;
let plan: TradePlan;
let proofs: MatchProof[];

before(async () => {
  prover = createMatchProver({ workers: 2 });
  w = await world({ matchProofs: 'groth16' });
  const bid = w.deposit(w.wallet(1), 'quote', 500n);
  const ask = w.deposit(w.wallet(2), 'base', 5n);
  w.lock([bid, ask], w.chain.slot + 50n);
  plan = w.plan(bid, ask, 2n, 15_000n, { deadline: w.chain.slot + 40n });
  proofs = await prover.proveBatch(plan.header, plan.legs);
});

after(async () => {
  await prover.close();
});

test('the chain says it checks real proofs', () => {
  assert.equal(w.chain.info().match_proofs, 'groth16');
});

test('stand-in proofs, a flipped proof byte or a replayed binding are proof_invalid on a groth16 chain', () => {
  const standIn = w.chain.submitSettlement(w.batchOf(plan));
  assert.equal(standIn.reason, 'proof_invalid');
  assert.match(standIn.message ?? '', /legs\[0\], legs\[1\]/);
  const [bidProof, askProof] = proofs;
  assert.ok(bidProof && askProof);
  const flipped = {
    ...askProof,
    proof: `${askProof.proof.slice(0, 100)}${askProof.proof[100] === '0' ? '1' : '0'}${askProof.proof.slice(101)}`,
  };
  const tampered = w.chain.submitSettlement(w.batchOf(plan, [bidProof, flipped]));
  assert.equal(tampered.reason, 'proof_invalid');
  assert.match(tampered.message ?? '', /legs\[1\] do not verify/);
  const replayed = w.chain.submitSettlement(
    w.batchOf(plan, proofs, { deadline: plan.header.deadlineSlot - 1n }),
  );
  assert.equal(replayed.reason, 'proof_invalid');
});

test('a batch of real proofs lands and appends the outputs the proofs commit to', () => {
  const record = w.chain.submitSettlement(w.batchOf(plan, proofs));
  assert.equal(record.state, 'landed', record.message);
  assert.deepEqual(
    record.appended?.map((leaf) => leaf.commitment),
    outputsOf(plan).map((held) => held.note.hex.commitment),
  );
});
