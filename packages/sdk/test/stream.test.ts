// The stream client (spec 4.8, 6): login and subscribe over a pinned socket, place and cancel by
// frame with replies matched by request_id, the cancelled event delivered, a seq gap reported and
// reconciled through GET /orders/{id}, auth_expired answered by a fresh login, and a dropped
// connection replaced with backoff, reported as a gap.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { createBootIdentity } from '@venue/adapters';
import type { TestVenue } from '@venue/testing';
import { type StreamGap, TradingKeys, VenueApiError, type VenueClient } from '../src/index.ts';
import { connectedClient, credentials, draft, startLoggedIn } from './helpers.ts';
import { startProxy } from './proxies.ts';

let venue: TestVenue;
let client: VenueClient;

let stop: () => Promise<void>;

before(async () => {
  ({ venue, client, stop } = await startLoggedIn());
});
after(() => stop());

describe('stream', () => {
  test('subscribe, place and cancel by frame; the cancelled event arrives; errors reject with the code', async () => {
    const stream = await client.openStream({ channels: ['orders'] });
    const keys = TradingKeys.generate();
    try {
      assert.deepEqual(await stream.subscribe(['tree']), ['orders', 'tree']);
      const order = keys.signOrder(draft(venue, { id: 1 }), client.sessionId);
      const placed = await stream.place(order);
      assert.equal(placed.status, 'accepted');
      const event = new Promise((resolve) =>
        stream.on('order', (e) => e.kind === 'cancelled' && e.order_id === order.order_id && resolve(e)),
      );
      const cancelled = await stream.cancel(
        order.order_id,
        keys.signCancel(order.order_id, client.sessionId),
      );
      assert.equal(cancelled.status, 'cancelled');
      await event;
      // A refused frame rejects its own promise; the socket stays usable.
      await assert.rejects(
        stream.cancel(order.order_id, keys.signCancel(order.order_id, client.sessionId)),
        (error) => error instanceof VenueApiError && error.code !== 0 && error.requestId !== undefined,
      );
      await stream.ping();
    } finally {
      await stream.close();
    }
  });

  test('a missing seq raises gap, and reconcile tells the truth the lost event carried', async () => {
    let dropped = false;
    const lossy = await client.openStream({
      channels: ['orders'],
      hooks: {
        // Lose the first orders event, as a network or buffer would.
        dropIncoming: (_seq, frame) => {
          if (dropped || frame['channel'] !== 'orders') return false;
          dropped = true;
          return true;
        },
      },
    });
    const keys = TradingKeys.generate();
    try {
      const gaps: StreamGap[] = [];
      lossy.on('gap', (gap) => gaps.push(gap));
      const order = keys.signOrder(draft(venue, { id: 2 }), client.sessionId);
      await lossy.place(order);
      await lossy.cancel(order.order_id, keys.signCancel(order.order_id, client.sessionId));
      // Whichever came last of the cancel reply and the event, the pong comes after both.
      await lossy.ping();
      assert.ok(dropped);
      assert.equal(gaps.length, 1);
      const [gap] = gaps;
      assert.equal(gap?.reason, 'seq');
      assert.equal(gap?.receivedSeq, (gap?.expectedSeq ?? 0) + 1);
      // The stream is a notifier: the order record says what the lost event said.
      const records = await client.reconcile([order.order_id]);
      assert.equal(records.get(order.order_id)?.state, 'cancelled');
    } finally {
      await lossy.close();
    }
  });

  test('auth_expired is answered with a fresh token on the same socket; trading continues past the old expiry', async () => {
    const own = await connectedClient(venue);
    const first = await own.login(await credentials(venue, 'expiring'));
    const stream = await own.openStream();
    const keys = TradingKeys.generate();
    try {
      const relogin = once(stream, 'login');
      const warned = once(stream, 'authExpired');
      // 30 s before the exact expiry: the venue warns on its next slot tick.
      venue.clock.setNowMs(first.expiresAtMs - 30_000);
      const [warning] = await warned;
      assert.equal(warning.expiresAtMs, first.expiresAtMs);
      const [login] = await relogin;
      assert.ok(login.expires_at > first.expiresAtMs);
      venue.clock.setNowMs(first.expiresAtMs + 1000);
      const order = keys.signOrder(draft(venue, { id: 3 }), own.sessionId);
      assert.equal((await stream.place(order)).status, 'accepted');
      await stream.cancel(order.order_id, keys.signCancel(order.order_id, own.sessionId));
    } finally {
      await own.close();
    }
  });

  test('a dropped connection is replaced with backoff and reported as a gap; subscriptions come back', async () => {
    const proxy = await startProxy(venue.port, (await createBootIdentity()).tlsCredentials(), () => 'pass');
    const own = await connectedClient(venue, proxy.port);
    await own.login(await credentials(venue, 'reconnect'));
    const stream = await own.openStream({ channels: ['orders'] });
    const keys = TradingKeys.generate();
    try {
      const gap = once(stream, 'gap');
      const back = once(stream, 'reconnected');
      proxy.dropAll();
      assert.equal((await gap)[0].reason, 'reconnect');
      await back;
      const order = keys.signOrder(draft(venue, { id: 4 }), own.sessionId);
      await stream.place(order);
      const event = new Promise((resolve) =>
        stream.on('order', (e) => e.order_id === order.order_id && resolve(e)),
      );
      await stream.cancel(order.order_id, keys.signCancel(order.order_id, own.sessionId));
      await event;
    } finally {
      await own.close();
      await proxy.close();
    }
  });
});
