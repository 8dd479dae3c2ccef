// The REST client over the pinned connection (spec 4, 5): login, signed place/modify/cancel with
// the SDK's keys and nonces, strict decoding of answers, errors as VenueApiError with code, status
// and request id, token renewal ahead of expiry and after revocation, and gap reconciliation reads.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestVenue } from '@venue/testing';
import { NonceCounter, TradingKeys, VenueApiError, type VenueClient } from '../src/index.ts';
import { connectedClient, credentials, draft, startLoggedIn } from './helpers.ts';

let venue: TestVenue;
let client: VenueClient;

let stop: () => Promise<void>;

before(async () => {
  ({ venue, client, stop } = await startLoggedIn());
});
after(() => stop());

describe('REST client', () => {
  test('public reads decode strictly: time, instruments, info', async () => {
    assert.equal((await client.time()).slot, venue.clock.slot());
    const symbols = (await client.instruments()).map((i) => i.symbol);
    assert.deepEqual(symbols, ['ETH-USDC', 'SOL-USDC']);
    assert.equal((await client.instrument('SOL-USDC')).tick_size, 10n);
    assert.equal((await client.refreshInfo()).session_id, venue.identity.sessionId);
  });

  test('place, read, modify and cancel an order signed by TradingKeys; the account lists it while open', async () => {
    const keys = TradingKeys.generate();
    const order = keys.signOrder(draft(venue, { id: 1 }), client.sessionId);
    const placed = await client.place(order);
    assert.deepEqual(placed, {
      order_id: order.order_id,
      status: 'accepted',
      arrival_slot: venue.clock.slot(),
    });
    // A lost answer is retried with the same body: the venue returns the first result.
    assert.deepEqual(await client.place(order), placed);
    assert.equal((await client.order(order.order_id)).state, 'resting');
    assert.deepEqual(
      (await client.account()).open_orders.map((o) => o.order_id),
      [order.order_id],
    );
    const modified = await client.modify(
      order.order_id,
      keys.signModify(order.order_id, { ...draft(venue, { id: 1, price: 990n }) }, client.sessionId),
    );
    assert.equal(modified.status, 'modified');
    assert.equal((await client.order(order.order_id)).price_limit, 990n);
    const cancelled = await client.cancel(order.order_id, keys.signCancel(order.order_id, client.sessionId));
    assert.equal(cancelled.status, 'cancelled');
    const record = await client.order(order.order_id);
    assert.equal(record.state, 'cancelled');
    assert.equal(record.cancel_reason, 'owner');
    assert.deepEqual((await client.account()).open_orders, []);
  });

  test('dead-man timer: arm, refresh and disarm over REST and the stream; a bad timeout is a VenueApiError', async () => {
    const slot = venue.clock.slot();
    assert.deepEqual(await client.armDeadMan(20n), {
      armed: true,
      timeout_slots: 20n,
      armed_slot: slot,
      deadline_slot: slot + 20n,
    });
    assert.equal((await client.deadMan()).deadline_slot, slot + 20n);
    await assert.rejects(client.armDeadMan(0n), (error: unknown) => {
      assert.ok(error instanceof VenueApiError);
      assert.equal(error.code, 1039);
      assert.equal(error.status, 400);
      return true;
    });
    const stream = await client.openStream();
    assert.equal((await stream.armDeadMan(30n)).deadline_slot, slot + 30n, 'a refresh over the stream');
    assert.deepEqual(await stream.disarmDeadMan(), { armed: false });
    await stream.close();
    assert.deepEqual(await client.disarmDeadMan(), { armed: false });
    assert.deepEqual(await client.deadMan(), { armed: false });
  });

  test('settings are read and replaced whole', async () => {
    assert.deepEqual(await client.settings(), { cancel_on_disconnect_default: false });
    assert.deepEqual(await client.updateSettings({ cancel_on_disconnect_default: true }), {
      cancel_on_disconnect_default: true,
    });
    await client.updateSettings({ cancel_on_disconnect_default: false });
  });

  test('venue errors become VenueApiError with status, code, message and request id', async () => {
    const keys = TradingKeys.generate();
    const missing = 'ab'.repeat(16);
    await assert.rejects(client.cancel(missing, keys.signCancel(missing, client.sessionId)), (error) => {
      assert.ok(error instanceof VenueApiError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 1300);
      assert.equal(typeof error.requestId, 'string');
      assert.match(error.message, /.+/);
      return true;
    });
    const stale = keys.signOrder(draft(venue, { id: 2 }), 'cd'.repeat(32));
    await assert.rejects(
      client.place(stale),
      (error) => error instanceof VenueApiError && error.code === 1203,
    );
    await assert.rejects(
      client.login({ apiKey: 'x'.repeat(20), apiSecret: 'y'.repeat(40), passphrase: 'zzzzzzzz' }),
      (error) => error instanceof VenueApiError && error.status === 401 && error.code === 1105,
    );
  });

  test('reconcile reads each order; an unknown id maps to null', async () => {
    const keys = TradingKeys.generate();
    const order = keys.signOrder(draft(venue, { id: 3 }), client.sessionId);
    await client.place(order);
    const unknown = 'ef'.repeat(16);
    const records = await client.reconcile([order.order_id, unknown]);
    assert.equal(records.get(order.order_id)?.state, 'resting');
    assert.equal(records.get(unknown), null);
    await client.cancel(order.order_id, keys.signCancel(order.order_id, client.sessionId));
  });
});

describe('tokens', () => {
  test('the token is renewed a margin before its expiry, and replaced once after a revocation', async () => {
    const own = await connectedClient(venue);
    try {
      const login = await credentials(venue, 'renewal');
      const first = await own.login(login);
      await own.account();
      assert.equal(own.token?.token, first.token, 'no renewal while far from expiry');
      // Bulk invalidation: the next call gets 401 (1104), renews and succeeds in one go.
      const revoked = await venue.call(`/admin/accounts/${login.apiKey}/revoke-tokens`, {
        method: 'POST',
        token: venue.adminToken,
      });
      assert.equal(revoked.status, 200, revoked.text);
      await own.account();
      const second = own.token;
      assert.ok(second !== null && second.token !== first.token, 'replaced after the 401');
      // One minute before the exact expiry: inside the two-minute margin, renewed before use.
      venue.clock.setNowMs(second.expiresAtMs - 60_000);
      await own.account();
      const third = own.token;
      assert.ok(third !== null && third.token !== second.token && third.expiresAtMs > second.expiresAtMs);
      // Past the second token's exact expiry the renewed one works.
      venue.clock.setNowMs(second.expiresAtMs + 1000);
      await own.account();
      assert.equal(own.token?.token, third.token);
    } finally {
      await own.close();
    }
  });
});

describe('nonces', () => {
  test('are strictly increasing, at least now_ms x 1000, and a restart starts above the last run', () => {
    let now = 1_700_000_000_000;
    const clock = { nowMs: () => now };
    const counter = new NonceCounter(clock);
    const a = counter.next();
    const b = counter.next();
    assert.equal(a, 1_700_000_000_000_000n);
    assert.equal(b, a + 1n);
    now += 1;
    const restarted = new NonceCounter(clock);
    assert.ok(restarted.next() > b, 'a new process one millisecond later is already above');
    const floored = new NonceCounter({ nowMs: () => 0 }, 41n);
    assert.equal(floored.next(), 42n);
  });

  test('TradingKeys round-trips its seed and never prints it', () => {
    const keys = TradingKeys.generate();
    const again = TradingKeys.fromSeed(keys.exportSeed());
    assert.equal(again.publicKey, keys.publicKey);
    const seedHex = Buffer.from(keys.exportSeed()).toString('hex');
    assert.ok(!JSON.stringify(keys).includes(seedHex));
    assert.match(String(JSON.stringify(keys)), new RegExp(keys.publicKey));
  });
});
