// A process may stop a prover pool and start another (a venue restarting its settlement, the bench
// measuring one worker count after another): every pool proves, and the process survives. Before
// the fix of docs/notes.md section 10.6 this aborted the process with a corrupted heap in most runs
// (blake-hash's native addon, loaded by every thread through circomlibjs's entry point).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import {
  createMatchProver,
  createMatchVerifier,
  loadNoteHasher,
  type MatchVerifier,
  sampleMatchBatch,
} from '../src/index.ts';

const POOLS = 4;

const hasher = await loadNoteHasher();
let verifier: MatchVerifier;

before(async () => {
  verifier = await createMatchVerifier();
});

after(async () => {
  await verifier.close();
});

test('loading the package and its hasher loads no native addon (none is safe across threads here)', () => {
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  assert.deepEqual(
    loaded.filter((path) => path.endsWith('.node') || path.includes('/blake-hash/')),
    [],
  );
});

test('pools started and stopped in turn in one process each prove a batch that verifies', async () => {
  for (let pool = 0; pool < POOLS; pool += 1) {
    const sample = sampleMatchBatch(hasher, 1, BigInt(pool + 1));
    const prover = createMatchProver({ workers: 2 });
    try {
      const proofs = await prover.proveBatch(sample.header, sample.legs);
      assert.deepEqual(await verifier.verifyBatch(proofs), { ok: true }, `pool ${pool}`);
    } finally {
      await prover.close();
    }
  }
});
