// A stream connection pipelines its frames through the journal's group commit: a reply leaves once
// its command is durable, in frame order. Regression (found by the simulator): a frame refused at
// sequencing while an earlier frame's reply still waited for the fsync left a rejected promise
// without a handler for that moment, and Node ended the whole venue process. Here the disk is made
// slow on purpose, so the refusal always comes while the first reply waits.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type JournalFiles, NODE_JOURNAL_FILES } from '@venue/adapters';
import { TestVenue, withTempDir } from '@venue/testing';

const SYNC_DELAY_MS = 150;

/** Real files, real fdatasync, only later: every commit waits SYNC_DELAY_MS before its sync. */
const slowDisk: JournalFiles = {
  ...NODE_JOURNAL_FILES,
  create: async (path) => {
    const file = await NODE_JOURNAL_FILES.create(path);
    return {
      write: (bytes) => file.write(bytes),
      datasync: async () => {
        await sleep(SYNC_DELAY_MS);
        await file.datasync();
      },
      close: () => file.close(),
    };
  },
};

test('a refusal pipelined behind a reply that waits for the disk is answered in turn; the venue lives', async () => {
  await withTempDir(async (directory) => {
    const venue = await TestVenue.start({
      state: { directory, sealingKey: randomBytes(32), files: slowDisk },
    });
    try {
      const trader = await venue.trader('pipelining');
      const client = await venue.stream();
      await client.login(trader.token);
      const first = venue.order({ id: 1, nonce: 1n }, trader.key);
      // The same order id under another body: refused by the core at sequencing, while `first`'s
      // reply is still waiting for its fsync.
      const clash = venue.order({ id: 1, nonce: 2n, price: 1010n }, trader.key);
      client.send({ op: 'order.place', request_id: 'first', params: first });
      client.send({ op: 'order.place', request_id: 'clash', params: clash });
      const placed = await client.next((f) => f['request_id'] === 'first');
      const refused = await client.next((f) => f['request_id'] === 'clash');
      assert.equal((placed['result'] as Record<string, unknown>)['order_id'], first.order_id);
      assert.equal(refused['code'], 1200, JSON.stringify(refused));
      assert.ok(client.frames.indexOf(placed) < client.frames.indexOf(refused), 'replies in frame order');
      assert.equal((await venue.call('/system/status')).status, 200, 'the venue still answers');
    } finally {
      await venue.stop();
    }
  });
});
