// The bot's local state: nonces that survive a restart even when the clock steps back, one process
// per trading key, a sealed log that no other key can open and that survives a torn last write,
// and a key file that is refused when others can read it.
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { KeyFile, NONCE_RESERVE_BLOCK, NonceFile, SealedLog } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'venue-sdk-state-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('nonces keep increasing across restarts, even with a clock that steps back', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 2500 }), { minLength: 1, maxLength: 5 }), (runs) => {
      const stateDir = mkdtempSync(join(dir, 'nonces-'));
      let last = 0n;
      for (const count of runs) {
        const file = NonceFile.open(stateDir, 'ab'.repeat(32), { nowMs: () => 1 }); // a clock stuck in 1970
        for (let i = 0; i < count; i += 1) {
          const nonce = i % 3 === 0 ? file.cancel.next() : file.arrival.next();
          if (i % 3 !== 0) {
            assert.ok(nonce > last, `arrival nonce ${nonce} after ${last}`);
            last = nonce;
          }
        }
        assert.ok(file.arrival.reservedThrough >= last);
        assert.ok(file.arrival.reservedThrough - last < NONCE_RESERVE_BLOCK);
        file.close();
      }
    }),
    { numRuns: 20 },
  );
});

test('a trading key is used by one nonce file at a time', () => {
  const first = NonceFile.open(dir, 'cd'.repeat(32));
  assert.throws(() => NonceFile.open(dir, 'cd'.repeat(32)), /already open/);
  first.close();
  NonceFile.open(dir, 'cd'.repeat(32)).close();
});

test('a sealed log keeps records exactly, drops a torn last line, and opens only with its key', () => {
  const file = join(dir, 'sealed.log');
  const key = Buffer.alloc(32, 7);
  const log = new SealedLog<{ n: bigint; s: string }>(file, key, 'test');
  log.append({ n: 2n ** 64n - 1n, s: 'first' });
  log.append({ n: 0n, s: 'second' });
  log.close();
  assert.ok(!readFileSync(file, 'utf8').includes('first'), 'records are not on disk in clear');
  appendFileSync(file, 'deadbeef'); // a crash in the middle of an append
  assert.deepEqual(new SealedLog(file, key, 'test').readAll(), [
    { n: 2n ** 64n - 1n, s: 'first' },
    { n: 0n, s: 'second' },
  ]);
  assert.throws(() => new SealedLog(file, Buffer.alloc(32, 8), 'test').readAll(), /does not open/);
  assert.throws(() => new SealedLog(file, key, 'other-log').readAll(), /does not open/);
});

test('a key file readable by others is refused', async () => {
  const file = join(dir, 'key.json');
  const created = await KeyFile.create(file);
  assert.equal((await KeyFile.load(file)).publicParts.trading_key, created.publicParts.trading_key);
  chmodSync(file, 0o644);
  await assert.rejects(KeyFile.load(file), /chmod 600/);
});
