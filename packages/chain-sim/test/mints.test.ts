// The chain's identity and its token metadata: every chain started from genesis reports its own
// genesis_id (so a wallet can tell its chain was reset), and mints are described once, with
// decimals a wallet can rely on; a bad or repeated description is refused and changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createChainSimulator } from '../src/index.ts';

const SOL = 'So11111111111111111111111111111111111111112';

test('each chain started from genesis has its own genesis_id; a given one is reported as given', async () => {
  const [a, b] = await Promise.all([
    createChainSimulator({ matchProofs: 'stand-in' }),
    createChainSimulator({ matchProofs: 'stand-in' }),
  ]);
  assert.match(a.info().genesis_id, /^[0-9a-f]{32}$/);
  assert.notEqual(a.info().genesis_id, b.info().genesis_id);
  const fixed = await createChainSimulator({ matchProofs: 'stand-in', genesisId: 'ab'.repeat(16) });
  assert.equal(fixed.info().genesis_id, 'ab'.repeat(16));
  await assert.rejects(createChainSimulator({ matchProofs: 'stand-in', genesisId: 'xyz' }), /genesisId/);
});

test('a mint is described once; bad decimals or symbols are refused and change nothing', async () => {
  const chain = await createChainSimulator({ matchProofs: 'stand-in' });
  assert.deepEqual(chain.mints(), []);
  chain.createMint({ mint: SOL, symbol: 'SOL', decimals: 9 });
  assert.throws(() => chain.createMint({ mint: SOL, symbol: 'SOL', decimals: 6 }), /already described/);
  const other = '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs';
  for (const bad of [
    { mint: other, symbol: 'ETH', decimals: 19 },
    { mint: other, symbol: 'ETH', decimals: -1 },
    { mint: other, symbol: 'ETH', decimals: 1.5 },
    { mint: other, symbol: 'E-T', decimals: 9 },
    { mint: other, symbol: '', decimals: 9 },
    { mint: 'not base58 0OIl', symbol: 'ETH', decimals: 9 },
  ]) {
    assert.throws(() => chain.createMint(bad), Error, JSON.stringify(bad));
  }
  assert.deepEqual(chain.mints(), [{ mint: SOL, symbol: 'SOL', decimals: 9 }]);
});
