// Clearing a trader can read, over real TLS: the owner of an order that sat out a batch reads why on
// GET /orders/{id} (`last_unfilled`) and, for an ioc, on its `cancelled` event (`unfilled_reason`);
// another account learns nothing of it; an auditor reads the batch on GET /admin/auctions/... with
// counts by reason and no order id, key or account anywhere in it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bodyOf, envelopeOf, type Frame, hex32, TestVenue, type Trader, testMarket } from '@venue/testing';

const MARKET = testMarket('SOL-USDC');

describe('clearing explanations over REST and the stream', () => {
  let venue: TestVenue;
  let alice: Trader;
  let bob: Trader;
  let carol: Trader;
  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    bob = await venue.trader('bob');
    carol = await venue.trader('carol');
    venue.server.engine.record({ type: 'oracle_price', marketId: MARKET.marketId, price: 1000n });
    await venue.server.engine.settled();
  });
  after(() => venue.stop());

  test('the owner reads why; other accounts cannot; the auditor reads the batch without identities', async () => {
    const mine = venue.order(
      { id: 1, nonce: 1n, side: 'bid', price: 950n, owner: hex32('owner-alice') },
      alice.key,
    );
    const bobs = venue.order(
      { id: 2, nonce: 1n, side: 'bid', price: 1000n, owner: hex32('owner-bob') },
      bob.key,
    );
    const carols = venue.order(
      { id: 3, nonce: 1n, side: 'ask', price: 1000n, owner: hex32('owner-carol') },
      carol.key,
    );
    for (const [trader, order] of [
      [alice, mine],
      [bob, bobs],
      [carol, carols],
    ] as const) {
      assert.equal((await venue.place(trader, order)).status, 200);
    }
    venue.advanceSlots(1);
    const record = bodyOf(await venue.call(`/orders/${mine.order_id}`, { token: alice.token }));
    assert.equal(record['state'], 'resting');
    const unfilled = record['last_unfilled'] as Frame;
    assert.deepEqual(Object.keys(unfilled).sort(), ['batch', 'reason', 'slot']);
    assert.equal(unfilled['reason'], 'limit', 'the batch cleared above the bid’s limit');
    assert.equal(unfilled['slot'], Number(venue.clock.slot()));

    // Bob's order filled: his record has no unfilled batch; Alice cannot read it at all.
    assert.equal(
      bodyOf(await venue.call(`/orders/${bobs.order_id}`, { token: bob.token }))['last_unfilled'],
      undefined,
    );
    const foreign = await venue.call(`/orders/${bobs.order_id}`, { token: alice.token });
    assert.equal(envelopeOf(foreign).code, 1300);

    const path = `/admin/auctions/${MARKET.marketId}/${unfilled['batch']}`;
    const audit = await venue.call(path, { token: venue.adminToken });
    assert.equal(audit.status, 200, audit.text);
    const explained = bodyOf(audit);
    assert.equal(explained['participants'], 3);
    assert.equal(explained['clearing_price'], 1000);
    assert.equal(explained['fills'], 1);
    assert.deepEqual(explained['unfilled'], [{ reason: 'limit', orders: 1 }]);
    for (const secret of [
      mine.order_id,
      bobs.order_id,
      carols.order_id,
      mine.trading_key,
      bobs.trading_key,
      carols.trading_key,
      mine.owner_commitment,
      alice.accountId,
      bob.accountId,
      carol.accountId,
      mine.note_commitment,
    ]) {
      assert.ok(!audit.text.includes(secret), 'the audit view names no order, key, note or account');
    }
    assert.equal(envelopeOf(await venue.call(path, { token: alice.token })).code, 1108, 'admins only');
    const unknown = await venue.call(`/admin/auctions/${MARKET.marketId}/999999`, {
      token: venue.adminToken,
    });
    assert.equal(unknown.status, 404);
    assert.equal(envelopeOf(unknown).code, 1307);
    const malformed = await venue.call(`/admin/auctions/${MARKET.marketId}/x1`, { token: venue.adminToken });
    assert.equal(malformed.status, 400);
  });

  test('an ioc that got nothing says why on its cancelled event', async () => {
    const client = await venue.stream();
    await client.login(alice.token);
    await client.request({ op: 'subscribe', channels: ['orders'] });
    const ioc = venue.order(
      { id: 4, nonce: 4n, side: 'bid', type: 'ioc', price: 950n, owner: hex32('owner-alice') },
      alice.key,
    );
    assert.equal(
      (
        await venue.place(
          bob,
          venue.order({ id: 5, nonce: 5n, side: 'bid', price: 1000n, owner: hex32('owner-bob') }, bob.key),
        )
      ).status,
      200,
    );
    assert.equal(
      (
        await venue.place(
          carol,
          venue.order(
            { id: 6, nonce: 6n, side: 'ask', price: 1000n, owner: hex32('owner-carol') },
            carol.key,
          ),
        )
      ).status,
      200,
    );
    assert.equal((await client.request({ op: 'order.place', params: ioc }))['op'], 'order.place');
    venue.advanceSlots(1);
    await client.request({ op: 'ping' });
    await venue.call(`/orders/${ioc.order_id}`, { token: alice.token });
    const event = await client.next((f) => f['channel'] === 'orders' && f['order_id'] === ioc.order_id);
    assert.equal(event['kind'], 'cancelled');
    assert.equal(event['unfilled_reason'], 'limit');
    await client.close();
  });
});
