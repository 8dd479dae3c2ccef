// The dead-man timer end to end over real TLS: POST, GET and DELETE /account/dead-man and the
// stream's dead_man.arm / dead_man.disarm frames against a running venue. A bot that stops refreshing
// loses its resting orders at the deadline (cancel_reason dead_man, a `cancelled` event on the
// stream); another account's orders stay; bad timeouts get the error envelope with their own codes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bodyOf, envelopeOf, type Frame, TestVenue, type Trader } from '@venue/testing';

describe('dead-man timer over REST and the stream', () => {
  let venue: TestVenue;
  let alice: Trader;
  let bob: Trader;
  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    bob = await venue.trader('bob');
  });
  after(() => venue.stop());

  const deadMan = (trader: Trader, method: string, body?: unknown) =>
    venue.call('/account/dead-man', {
      method,
      token: trader.token,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const record = async (trader: Trader, orderId: string) =>
    bodyOf(await venue.call(`/orders/${orderId}`, { token: trader.token }));

  test('REST: arm, refresh, disarm, re-arm and fire; other accounts untouched', async () => {
    const mine = venue.order({ id: 1, nonce: 1n }, alice.key);
    const theirs = venue.order({ id: 2, nonce: 1n }, bob.key);
    assert.equal((await venue.place(alice, mine)).status, 200);
    assert.equal((await venue.place(bob, theirs)).status, 200);
    const start = Number(venue.clock.slot());

    const armed = await deadMan(alice, 'POST', { timeout_slots: 3 });
    assert.equal(armed.status, 200, armed.text);
    assert.deepEqual(bodyOf(armed), {
      armed: true,
      timeout_slots: 3,
      armed_slot: start,
      deadline_slot: start + 3,
    });
    assert.deepEqual(bodyOf(await deadMan(alice, 'GET')), bodyOf(armed));
    assert.deepEqual(bodyOf(await deadMan(bob, 'GET')), { armed: false }, 'a timer is per account');

    venue.advanceSlots(2);
    assert.equal((await record(alice, mine.order_id))['state'], 'resting', 'before the deadline');
    const refreshed = bodyOf(await deadMan(alice, 'POST', { timeout_slots: 3 }));
    assert.equal(refreshed['deadline_slot'], start + 5, 'a refresh moves the deadline');
    venue.advanceSlots(2);
    assert.equal((await record(alice, mine.order_id))['state'], 'resting', 'refreshed in time');

    assert.deepEqual(bodyOf(await deadMan(alice, 'DELETE')), { armed: false });
    venue.advanceSlots(10);
    assert.equal((await record(alice, mine.order_id))['state'], 'resting', 'disarmed: nothing fires');

    await deadMan(alice, 'POST', { timeout_slots: 1 });
    venue.advanceSlots(1);
    const swept = await record(alice, mine.order_id);
    assert.equal(swept['state'], 'cancelled');
    assert.equal(swept['cancel_reason'], 'dead_man');
    assert.equal((await record(bob, theirs.order_id))['state'], 'resting');
    assert.deepEqual(bodyOf(await deadMan(alice, 'GET')), { armed: false }, 'a fired timer is off');
  });

  test('REST: bad timeouts get the envelope with a precise code and arm nothing', async () => {
    const cases: [string, number][] = [
      ['{"timeout_slots":0}', 1039],
      ['{"timeout_slots":4501}', 1040],
      ['{"timeout_slots":"5"}', 1003],
      ['{"timeout_slots":-1}', 1005],
      ['{"timeout_slots":5.0}', 1006],
      ['{}', 1002],
      ['{"timeout_slots":5,"deadline":9}', 1001],
    ];
    for (const [body, code] of cases) {
      const refused = await venue.call('/account/dead-man', { method: 'POST', token: alice.token, body });
      assert.equal(envelopeOf(refused).code, code, `${body}: ${refused.text}`);
      assert.equal(refused.status, 400);
    }
    assert.deepEqual(bodyOf(await deadMan(alice, 'GET')), { armed: false });
    const tooLong = envelopeOf(await deadMan(alice, 'POST', { timeout_slots: 4501 }));
    assert.match(tooLong.message, /4500/, 'the message says what would be accepted');
  });

  test('stream: dead_man.arm, the cancelled event at the deadline, dead_man.disarm', async () => {
    const client = await venue.stream();
    await client.login(alice.token);
    await client.request({ op: 'subscribe', channels: ['orders'] });
    const order = venue.order({ id: 3, nonce: 3n }, alice.key);
    await client.request({ op: 'order.place', params: order });

    const refused = await client.request({ op: 'dead_man.arm', params: { timeout_slots: 0 } });
    assert.equal(refused['op'], 'error');
    assert.equal(refused['code'], 1039);

    const slot = Number(venue.clock.slot());
    const armed = await client.request({ op: 'dead_man.arm', params: { timeout_slots: 2 } });
    assert.equal(armed['op'], 'dead_man.arm');
    assert.deepEqual(armed['result'], {
      armed: true,
      timeout_slots: 2,
      armed_slot: slot,
      deadline_slot: slot + 2,
    });
    const disarmed = await client.request({ op: 'dead_man.disarm' });
    assert.deepEqual(disarmed['result'], { armed: false });
    await client.request({ op: 'dead_man.arm', params: { timeout_slots: 2 } });

    venue.advanceSlots(2);
    // Any request catches the venue up to the clock; the sweep's event then reaches the stream.
    await client.request({ op: 'ping' });
    await record(alice, order.order_id);
    const event: Frame = await client.next((f) => f['channel'] === 'orders' && f['kind'] === 'cancelled');
    assert.equal(event['order_id'], order.order_id);
    assert.equal((await record(alice, order.order_id))['cancel_reason'], 'dead_man');
    await client.close();
  });
});
