// The worker pool that takes Ed25519 verification off the sequencer: it must give exactly the
// answers of the protocol's inline rule for every triple, in any interleaving, and stop cleanly.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { SignaturePool } from '@venue/adapters';
import { generateTradingKey, signDigest, verifyDigest } from '@venue/protocol';
import fc from 'fast-check';

const pool = new SignaturePool(2);
after(() => pool.close());

const keys = [generateTradingKey(), generateTradingKey()] as const;
const keyOf = (index: number) => (index === 0 ? keys[0] : keys[1]);

test('a burst of mixed valid and invalid signatures gets the inline answer for each', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          signer: fc.integer({ min: 0, max: 1 }),
          claimed: fc.integer({ min: 0, max: 1 }),
          tamper: fc.boolean(),
          digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
        }),
        { minLength: 1, maxLength: 300 },
      ),
      async (cases) => {
        const triples = cases.map(({ signer, claimed, tamper, digest }) => {
          const signature = signDigest(keyOf(signer), digest);
          const sent = tamper
            ? `${signature.slice(0, 126)}${signature.slice(126) === '00' ? '01' : '00'}`
            : signature;
          return { publicKey: keyOf(claimed).publicKey, digest, signature: sent };
        });
        const pooled = await Promise.all(triples.map((t) => pool.verify(t.publicKey, t.digest, t.signature)));
        assert.deepEqual(
          pooled,
          triples.map((t) => verifyDigest(t.publicKey, t.digest, t.signature)),
        );
      },
    ),
    { numRuns: 20, seed: 20261122 },
  );
});

test('malformed keys and signatures are refused, not thrown', async () => {
  const digest = randomBytes(32);
  assert.equal(await pool.verify('00'.repeat(32), digest, '11'.repeat(64)), false);
  assert.equal(await pool.verify(keys[0].publicKey, digest, 'zz'), false);
});

test('a closed pool refuses new work with SHUTTING_DOWN', async () => {
  const closing = new SignaturePool(1);
  await closing.close();
  await assert.rejects(closing.verify(keys[0].publicKey, randomBytes(32), '00'.repeat(64)), {
    name: 'VenueError',
  });
});
