// The order routes of spec 4.1 and 4.3 over real HTTPS: place, read, cancel and modify with real
// Ed25519 signatures, each precondition of spec 4.1 (nothing changes when one fails), the trading
// rate limit, and the account reads.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SignatureChecks } from '@venue/adapters';
import { inlineSignatureChecks } from '@venue/adapters';
import { generateTradingKey, signPlaceOrder } from '@venue/protocol';
import { bodyOf, envelopeOf, TestVenue, type Trader } from '@venue/testing';

describe('order routes', () => {
  let venue: TestVenue;
  let alice: Trader;
  let bob: Trader;
  let nextId = 1;
  const id = () => nextId++;

  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    bob = await venue.trader('bob');
  });
  after(() => venue.stop());

  test('POST /orders accepts a signed order and GET /orders/{id} reports it resting', async () => {
    const order = venue.order({ id: id(), nonce: 1n }, alice.key);
    const placed = await venue.place(alice, order);
    assert.equal(placed.status, 200, placed.text);
    assert.match(String(placed.headers['x-request-id']), /.+/);
    const body = bodyOf(placed);
    assert.deepEqual(body, {
      order_id: order.order_id,
      status: 'accepted',
      arrival_slot: Number(venue.clock.slot()),
    });

    const read = await venue.call(`/orders/${order.order_id}`, { token: alice.token });
    assert.equal(read.status, 200, read.text);
    const record = bodyOf(read);
    assert.equal(record['state'], 'resting');
    assert.equal(record['order_id'], order.order_id);
    assert.equal(record['trading_key'], alice.key.publicKey);
  });

  test('another account cannot read the order: 404, as if it did not exist', async () => {
    const order = venue.order({ id: id(), nonce: 2n }, alice.key);
    assert.equal((await venue.place(alice, order)).status, 200);
    const read = await venue.call(`/orders/${order.order_id}`, { token: bob.token });
    assert.equal(read.status, 404);
    assert.equal(envelopeOf(read).code, 1300);
  });

  test('the same signed body sent twice returns the first result and books one order', async () => {
    const order = venue.order({ id: id(), nonce: 3n }, alice.key);
    const first = await venue.place(alice, order);
    const again = await venue.place(alice, order);
    assert.equal(first.status, 200);
    assert.equal(again.text, first.text);
    const open = bodyOf(await venue.call('/account', { token: alice.token }))['open_orders'] as unknown[];
    assert.equal(open.filter((o) => (o as { order_id: string }).order_id === order.order_id).length, 1);
  });

  test('a body signed by another key is refused with 403 1102 and books nothing', async () => {
    const order = venue.order({ id: id(), nonce: 4n }, alice.key);
    const forged = {
      ...order,
      trading_key_signature: venue.order({ id: id(), nonce: 4n }, alice.key).trading_key_signature,
    };
    const before = venue.server.engine.core.stateHash();
    const refused = await venue.place(alice, forged);
    assert.equal(refused.status, 403);
    assert.equal(envelopeOf(refused).code, 1102);
    assert.equal(venue.server.engine.core.stateHash(), before);
  });

  test('a stale arrival nonce is 409 1201; a stale session is 409 1203', async () => {
    const stale = venue.order({ id: id(), nonce: 1n }, alice.key);
    const refused = await venue.place(alice, stale);
    assert.equal(refused.status, 409);
    assert.equal(envelopeOf(refused).code, 1201);

    const carol = await venue.trader('carol');
    const body = venue.order({ id: id(), nonce: 1n }, carol.key);
    const oldSession = signPlaceOrder({ ...body, session_id: 'ee'.repeat(32) }, carol.key);
    const refusedSession = await venue.place(carol, oldSession);
    assert.equal(refusedSession.status, 409);
    assert.equal(envelopeOf(refusedSession).code, 1203);
  });

  test('DELETE /orders/{id} cancels with a signed cancel; a replayed nonce is 409 1202', async () => {
    const order = venue.order({ id: id(), nonce: 10n }, alice.key);
    assert.equal((await venue.place(alice, order)).status, 200);
    const params = venue.cancelParams(order.order_id, 1n, alice.key);
    const cancelled = await venue.cancel(alice, order.order_id, params);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(bodyOf(cancelled)['status'], 'cancelled');
    const record = bodyOf(await venue.call(`/orders/${order.order_id}`, { token: alice.token }));
    assert.equal(record['state'], 'cancelled');

    const other = venue.order({ id: id(), nonce: 11n }, alice.key);
    assert.equal((await venue.place(alice, other)).status, 200);
    const replay = await venue.cancel(
      alice,
      other.order_id,
      venue.cancelParams(other.order_id, 1n, alice.key),
    );
    assert.equal(replay.status, 409);
    assert.equal(envelopeOf(replay).code, 1202);
  });

  test('a cancel signed by another key of the account is 403 1107; by another account, 404', async () => {
    const order = venue.order({ id: id(), nonce: 20n }, alice.key);
    assert.equal((await venue.place(alice, order)).status, 200);
    const secondKey = generateTradingKey();
    const refused = await venue.cancel(
      alice,
      order.order_id,
      venue.cancelParams(order.order_id, 1n, secondKey),
    );
    assert.equal(refused.status, 403);
    assert.equal(envelopeOf(refused).code, 1107);
    // Another account's orders are invisible to it, so their ids are not revealed (docs/api.md).
    const hidden = await venue.cancel(bob, order.order_id, venue.cancelParams(order.order_id, 1n, bob.key));
    assert.equal(hidden.status, 404);
    assert.equal(envelopeOf(hidden).code, 1300);
    assert.equal(
      bodyOf(await venue.call(`/orders/${order.order_id}`, { token: alice.token }))['state'],
      'resting',
    );
  });

  describe('PUT /orders/{id} (spec 4.1)', () => {
    test('reprice in place keeps the id; a new id retires the old one as cancelled', async () => {
      const order = venue.order({ id: id(), nonce: 30n, price: 1000n }, alice.key);
      assert.equal((await venue.place(alice, order)).status, 200);
      const repriced = venue.order({ id: 0, nonce: 31n, price: 990n }, alice.key);
      const inPlace = { ...repriced, order_id: order.order_id };
      const signedInPlace = signPlaceOrder(inPlace, alice.key);
      const modified = await venue.modify(
        alice,
        order.order_id,
        venue.modifyRequest(order.order_id, 30n, signedInPlace, alice.key),
      );
      assert.equal(modified.status, 200, modified.text);
      assert.deepEqual(bodyOf(modified), {
        old_order_id: order.order_id,
        order_id: order.order_id,
        status: 'modified',
        arrival_slot: Number(venue.clock.slot()),
      });
      assert.equal(
        bodyOf(await venue.call(`/orders/${order.order_id}`, { token: alice.token }))['price_limit'],
        990,
      );

      const replacement = venue.order({ id: id(), nonce: 32n, price: 980n, note: 'other-note' }, alice.key);
      const renamed = await venue.modify(
        alice,
        order.order_id,
        venue.modifyRequest(order.order_id, 31n, replacement, alice.key),
      );
      assert.equal(renamed.status, 200, renamed.text);
      const old = bodyOf(await venue.call(`/orders/${order.order_id}`, { token: alice.token }));
      assert.equal(old['state'], 'cancelled');
      assert.equal(old['cancel_reason'], 'modify');
      assert.equal(
        bodyOf(await venue.call(`/orders/${replacement.order_id}`, { token: alice.token }))['state'],
        'resting',
      );
    });

    test('each failed precondition answers its status and changes nothing', async () => {
      const order = venue.order({ id: id(), nonce: 40n }, alice.key);
      const booked = venue.order({ id: id(), nonce: 41n, note: 'booked-note' }, alice.key);
      assert.equal((await venue.place(alice, order)).status, 200);
      assert.equal((await venue.place(alice, booked)).status, 200);
      const unchanged = async (exchange: { status: number; text: string }, status: number, code: number) => {
        const before = venue.server.engine.core.stateHash();
        assert.equal(exchange.status, status, exchange.text);
        assert.equal(envelopeOf(exchange as never).code, code);
        assert.equal(venue.server.engine.core.stateHash(), before);
      };
      const unknownId = 'ab'.repeat(16);
      const fresh = venue.order({ id: id(), nonce: 42n, note: 'n42' }, alice.key);
      // 404: the old order does not exist.
      await unchanged(
        await venue.modify(alice, unknownId, venue.modifyRequest(unknownId, 50n, fresh, alice.key)),
        404,
        1300,
      );
      // 403: the old order belongs to another trading key of the account (that key signs both halves).
      const secondKey = generateTradingKey();
      const other = venue.order({ id: id(), nonce: 1n, note: 'k2-note' }, secondKey);
      await unchanged(
        await venue.modify(alice, order.order_id, venue.modifyRequest(order.order_id, 1n, other, secondKey)),
        403,
        1107,
      );
      // 409: the replacement's id is already booked.
      const clash = {
        ...venue.order({ id: 0, nonce: 43n, note: 'n43' }, alice.key),
        order_id: booked.order_id,
      };
      const signedClash = signPlaceOrder(clash, alice.key);
      await unchanged(
        await venue.modify(
          alice,
          order.order_id,
          venue.modifyRequest(order.order_id, 51n, signedClash, alice.key),
        ),
        409,
        1200,
      );
      // 400: the replacement names another market.
      const cross = venue.order({ id: id(), nonce: 44n, note: 'n44', symbol: 'ETH-USDC' }, alice.key);
      await unchanged(
        await venue.modify(alice, order.order_id, venue.modifyRequest(order.order_id, 52n, cross, alice.key)),
        400,
        1037,
      );
      assert.equal(
        bodyOf(await venue.call(`/orders/${order.order_id}`, { token: alice.token }))['state'],
        'resting',
      );
    });
  });

  test('GET /account lists exactly the open orders; settings round-trip through PUT', async () => {
    const dave = await venue.trader('dave');
    const a = venue.order({ id: id(), nonce: 1n, note: 'd1' }, dave.key);
    const b = venue.order({ id: id(), nonce: 2n, note: 'd2' }, dave.key);
    assert.equal((await venue.place(dave, a)).status, 200);
    assert.equal((await venue.place(dave, b)).status, 200);
    assert.equal(
      (await venue.cancel(dave, a.order_id, venue.cancelParams(a.order_id, 1n, dave.key))).status,
      200,
    );
    const account = bodyOf(await venue.call('/account', { token: dave.token }));
    assert.equal(account['account_id'], dave.accountId);
    assert.deepEqual(
      (account['open_orders'] as { order_id: string }[]).map((o) => o.order_id),
      [b.order_id],
    );
    assert.deepEqual(account['settings'], { cancel_on_disconnect_default: false });

    const put = await venue.call('/account/settings', {
      method: 'PUT',
      token: dave.token,
      body: JSON.stringify({ cancel_on_disconnect_default: true }),
    });
    assert.deepEqual(bodyOf(put), { cancel_on_disconnect_default: true });
    assert.deepEqual(bodyOf(await venue.call('/account/settings', { token: dave.token })), {
      cancel_on_disconnect_default: true,
    });
    const partial = await venue.call('/account/settings', { method: 'PUT', token: dave.token, body: '{}' });
    assert.equal(partial.status, 400);
    assert.equal(envelopeOf(partial).code, 1002);
  });
});

describe('a pause that begins while a replacement is verified (spec 4.1 rule 8)', () => {
  test('answers 503 and leaves the original order unchanged', async () => {
    let pauseDuringVerification: (() => void) | null = null;
    const signatures: SignatureChecks = {
      ...inlineSignatureChecks,
      async modify(oldOrderId, request) {
        const digest = await inlineSignatureChecks.modify(oldOrderId, request);
        pauseDuringVerification?.();
        return digest;
      },
    };
    const venue = await TestVenue.start({ signatures });
    try {
      const erin = await venue.trader('erin');
      const order = venue.order({ id: 900, nonce: 1n }, erin.key);
      assert.equal((await venue.place(erin, order)).status, 200);
      const before = bodyOf(await venue.call(`/orders/${order.order_id}`, { token: erin.token }));
      pauseDuringVerification = () => venue.server.gates.set('attestation_mismatch', true);
      const replacement = venue.order({ id: 901, nonce: 2n, note: 'n901' }, erin.key);
      const refused = await venue.modify(
        erin,
        order.order_id,
        venue.modifyRequest(order.order_id, 1n, replacement, erin.key),
      );
      assert.equal(refused.status, 503, refused.text);
      assert.equal(envelopeOf(refused).code, 5001);
      assert.deepEqual(bodyOf(await venue.call(`/orders/${order.order_id}`, { token: erin.token })), before);
      // Cancels keep working during the pause (spec 1 item 7).
      const cancelled = await venue.cancel(
        erin,
        order.order_id,
        venue.cancelParams(order.order_id, 2n, erin.key),
      );
      assert.equal(cancelled.status, 200, cancelled.text);
    } finally {
      await venue.stop();
    }
  });
});
