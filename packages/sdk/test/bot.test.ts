// The SDK's "done when" bot (issue 10): a bot written only against '@venue/sdk' trades random
// orders over REST and the stream, disconnects (its stream orders are swept, some others expire
// while it is away), starts again from its state folder, trades more, and ends with its local view
// of every order equal to the venue's records, and its open orders equal to GET /account.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadNoteHasher } from '@venue/notes';
import type { OrderRecord } from '@venue/protocol';
import { TEST_CORE_CONFIG, TEST_ROOT, TestVenue } from '@venue/testing';
import { isTerminal, KeyFile } from '../src/index.ts';
import { type BotConfig, BotSession, seededRandom } from './bot/random-bot.ts';
import { credentials, trustOf } from './helpers.ts';

let venue: TestVenue;
let dir: string;

before(async () => {
  const hasher = await loadNoteHasher();
  venue = await TestVenue.start({
    enclave: true,
    core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
  });
  dir = mkdtempSync(join(tmpdir(), 'venue-bot-'));
});
after(async () => {
  await venue.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a random bot ends with its local view of its orders equal to the venue, across a disconnect', async () => {
  const seed = Number(process.env['BOT_SEED'] ?? 20_251_122);
  const random = seededRandom(seed);
  const keyFile = join(dir, 'key.json');
  await KeyFile.create(keyFile);
  const config: BotConfig = {
    url: `https://127.0.0.1:${venue.port}`,
    trust: trustOf(venue),
    credentials: await credentials(venue, 'bot'),
    keyFile,
    stateDir: join(dir, 'state'),
    merkleRoot: TEST_ROOT,
    symbols: ['SOL-USDC', 'ETH-USDC'],
  };

  const first = await BotSession.start(config);
  let beforeStop = 0;
  try {
    await first.trade(random, 40);
    beforeStop = first.trader.orders.open().length;
  } finally {
    await first.stop();
  }
  // While the bot is away, 150 slots pass: orders with a short lifetime expire unseen.
  venue.clock.advanceSlots(150n);

  const second = await BotSession.start(config);
  try {
    await checkSecondSession(second, random, seed, beforeStop);
  } finally {
    await second.stop();
  }
});

async function checkSecondSession(
  second: BotSession,
  random: () => number,
  seed: number,
  beforeStop: number,
) {
  await second.trade(random, 40);
  await second.trader.reconcile();

  const local = second.trader.orders.all();
  assert.ok(local.length >= 30, `the bot placed orders (seed ${seed})`);
  assert.ok(beforeStop > 0);
  const records = new Map<string, OrderRecord | null>();
  for (let i = 0; i < local.length; i += 200) {
    for (const [id, record] of await second.client.reconcile(
      local.slice(i, i + 200).map((o) => o.order_id),
    )) {
      records.set(id, record);
    }
  }
  let forgotten = 0;
  for (const order of local) {
    const record = records.get(order.order_id);
    if (record === null || record === undefined) {
      // The venue keeps a finished order's record for a retention window only (spec 6.1: a notifier).
      assert.ok(isTerminal(order.state), `forgotten order ${order.order_id} must be finished locally`);
      forgotten += 1;
      continue;
    }
    assert.deepEqual(
      {
        state: order.state,
        amount: order.amount,
        price: order.price_limit,
        filled: order.filled_quantity,
        remaining: order.remaining_amount,
        note: order.note_commitment,
      },
      {
        state: record.state,
        amount: record.amount,
        price: record.price_limit,
        filled: record.filled_quantity,
        remaining: record.remaining_amount,
        note: record.note_commitment,
      },
      `order ${order.order_id} (seed ${seed})`,
    );
  }
  const open = (await second.client.account()).open_orders.map((o) => o.order_id).sort();
  assert.deepEqual(
    second.trader.orders
      .open()
      .map((o) => o.order_id)
      .sort(),
    open,
    `open orders (seed ${seed})`,
  );
  assert.ok(forgotten < local.length);
  const states = new Set(local.map((o) => o.state));
  assert.ok(
    states.has('cancelled') && states.has('resting') && states.has('expired'),
    `a varied run: ${[...states]}`,
  );
}
