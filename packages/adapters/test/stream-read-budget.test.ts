// Issue 20, `/health` under a flood: the venue reads each stream socket at most at its read budget
// (STREAM_READ_BUCKET per account once logged in, shared by its sockets; STREAM_LOGIN_READ_BUCKET
// per socket before). A socket that sends faster
// is paused and its frames wait in TCP; they are answered later, every one and in order, never
// refused or dropped. A socket within its trading limit is never paused. Real TLS sockets.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { STREAM_LOGIN_READ_BUCKET, STREAM_READ_BUCKET } from '@venue/adapters';
import { type StreamClient, TestVenue } from '@venue/testing';

/** Every frame's reply arrived, in the order sent, with gapless seq. */
function assertAllAnsweredInOrder(client: StreamClient, prefix: string, count: number): void {
  const replies = client.frames.filter((f) => String(f['request_id'] ?? '').startsWith(prefix));
  assert.deepEqual(
    replies.map((f) => f['request_id']),
    Array.from({ length: count }, (_, i) => `${prefix}${i}`),
  );
  client.frames.forEach((f, i) => {
    assert.equal(f['seq'], i + 1, 'seq has a gap or a repeat');
  });
}

describe('stream read budget', () => {
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start();
  });
  after(async () => {
    await venue.stop();
  });

  test('a logged-in socket sending far above its budget is paused, and every frame is still answered in order', async () => {
    const trader = await venue.trader('burst');
    const client = await venue.stream();
    await client.login(trader.token);
    const pausesBefore = venue.server.stream.readPauses;
    const count = STREAM_READ_BUCKET.capacity + 300;
    for (let i = 0; i < count; i += 1) client.send({ op: 'ping', request_id: `p${i}` });
    await client.next((f) => f['request_id'] === `p${count - 1}`, 30_000);
    assert.ok(venue.server.stream.readPauses > pausesBefore, 'the socket was never paused');
    assertAllAnsweredInOrder(client, 'p', count);
    assert.ok(
      client.frames.every((f) => f['op'] === 'login' || f['op'] === 'pong'),
      'a frame was refused instead of waiting',
    );
    await client.close();
  });

  test('before login the budget is smaller; the frames still all get their answers', async () => {
    const client = await venue.stream();
    const pausesBefore = venue.server.stream.readPauses;
    const count = STREAM_LOGIN_READ_BUCKET.capacity + 8;
    for (let i = 0; i < count; i += 1) client.send({ op: 'ping', request_id: `q${i}` });
    await client.next((f) => f['request_id'] === `q${count - 1}`, 30_000);
    assert.ok(venue.server.stream.readPauses > pausesBefore, 'the socket was never paused');
    assertAllAnsweredInOrder(client, 'q', count);
    await client.close();
  });

  test('the sockets of one account share its budget: two bursts that fit it alone do not together', async () => {
    // The shipped budget with a fifth of its refill: at 200 a second, a starved machine sent these
    // 1.5 budgets slowly enough to be refilled on the way, and nothing was paused. At 40 a second
    // the outcome no longer depends on the host, and the excess drains in about five seconds.
    const slow = await TestVenue.start({
      streamReadBucket: { capacity: STREAM_READ_BUCKET.capacity, refillPerSecond: 40 },
    });
    try {
      const trader = await slow.trader('pair');
      const [a, b] = [await slow.stream(), await slow.stream()];
      await a.login(trader.token);
      await b.login(trader.token);
      const pausesBefore = slow.server.stream.readPauses;
      const count = Math.ceil(STREAM_READ_BUCKET.capacity * 0.75);
      for (let i = 0; i < count; i += 1) {
        a.send({ op: 'ping', request_id: `a${i}` });
        b.send({ op: 'ping', request_id: `b${i}` });
      }
      await a.next((f) => f['request_id'] === `a${count - 1}`, 30_000);
      await b.next((f) => f['request_id'] === `b${count - 1}`, 30_000);
      assert.ok(slow.server.stream.readPauses > pausesBefore, 'the account read faster than its budget');
      assertAllAnsweredInOrder(a, 'a', count);
      assertAllAnsweredInOrder(b, 'b', count);
      await a.close();
      await b.close();
    } finally {
      await slow.stop();
    }
  });

  test('a burst within the trading limit is never paused', async () => {
    const trader = await venue.trader('steady');
    const client = await venue.stream();
    await client.login(trader.token);
    const pausesBefore = venue.server.stream.readPauses;
    // A full trading bucket's worth of one-unit requests at once (limits.ts TRADING_BUCKET).
    const count = STREAM_READ_BUCKET.capacity - 1;
    for (let i = 0; i < count; i += 1) client.send({ op: 'ping', request_id: `s${i}` });
    await client.next((f) => f['request_id'] === `s${count - 1}`, 30_000);
    assert.equal(venue.server.stream.readPauses, pausesBefore);
    assertAllAnsweredInOrder(client, 's', count);
    await client.close();
  });
});
