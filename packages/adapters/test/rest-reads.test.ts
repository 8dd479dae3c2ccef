// The remaining routes of spec 4.4, 4.5 and 4.7 over HTTPS: every catalogue route is served with
// its declared auth, markets and their gates, the parts not attached yet answer 503 naming what is
// missing, the served OpenAPI document is the generated one, the drain lifecycle, settlement
// telemetry, query validation, and the trading rate limit with its cancel reserve.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TRADING_BUCKET, TRADING_COST, TRADING_RESERVE_UNITS } from '@venue/adapters';
import { openApiDocument, ROUTES } from '@venue/protocol';
import { bodyOf, type Exchange, envelopeOf, TestVenue, type Trader, withTempDir } from '@venue/testing';

function expectError(exchange: Exchange, status: number, code: number): string {
  assert.equal(exchange.status, status, exchange.text);
  const envelope = envelopeOf(exchange);
  assert.equal(envelope.code, code, envelope.message);
  return envelope.message;
}

/** A concrete URL for a catalogue path. */
function concrete(path: string): string {
  return path
    .replace(':order_id', '12'.repeat(16))
    .replace(':symbol', 'SOL-USDC')
    .replace(':api_key', 'vk_doesnotexistdoesnotexist');
}

describe('route catalogue over the wire', () => {
  let venue: TestVenue;
  let trader: Trader;
  before(async () => {
    venue = await TestVenue.start();
    trader = await venue.trader();
  });
  after(() => venue.stop());

  test('every route of the catalogue is served and enforces its auth before anything else', async () => {
    for (const route of ROUTES) {
      const url = concrete(route.path);
      const where = `${route.method} ${route.path}`;
      const anonymous = await venue.call(url, { method: route.method });
      assert.ok(anonymous.headers['x-request-id'], `${where}: no x-request-id`);
      if (route.auth === 'none') {
        assert.notEqual(anonymous.status, 404, `${where}: not served`);
        assert.notEqual(anonymous.status, 405, `${where}: not served`);
        continue;
      }
      expectError(anonymous, 401, 1100);
      if (route.auth === 'admin') {
        expectError(await venue.call(url, { method: route.method, token: trader.token }), 403, 1108);
      }
      if (route.auth === 'bearer') {
        expectError(await venue.call(url, { method: route.method, token: venue.adminToken }), 403, 1111);
      }
    }
  });

  test('GET /openapi.json serves exactly the generated document', async () => {
    assert.deepEqual(JSON.parse((await venue.call('/openapi.json')).text), openApiDocument());
  });

  test('GET /instruments lists each market with its gate; one market by symbol; unknown is 404 1301', async () => {
    const list = bodyOf(await venue.call('/instruments'))['instruments'] as Record<string, unknown>[];
    assert.deepEqual(
      list.map((i) => i['symbol']),
      ['ETH-USDC', 'SOL-USDC'],
    );
    for (const instrument of list) {
      assert.equal(instrument['trading_enabled'], true);
      assert.equal(instrument['paused_reason'], undefined);
    }
    const one = bodyOf(await venue.call('/instruments/SOL-USDC'));
    assert.equal(one['tick_size'], 10);
    expectError(await venue.call('/instruments/DOGE-USDC'), 404, 1301);
    expectError(await venue.call('/instruments/not-a-symbol'), 400, 1009);
  });

  test('chain reads answer 503 5004 and attestation reads 503 5006 while those parts are not attached', async () => {
    expectError(await venue.call('/tree/root'), 503, 5004);
    expectError(
      await venue.call(`/tree/inclusion?tree_id=0&commitment=${'ab'.repeat(32)}`, { token: trader.token }),
      503,
      5004,
    );
    expectError(
      await venue.call(`/settlement/status?tx_id=${'ab'.repeat(32)}`, { token: trader.token }),
      503,
      5004,
    );
    expectError(await venue.call('/attestation'), 503, 5006);
    expectError(await venue.call('/transport-attestation'), 503, 5006);
  });

  test('queries are decoded strictly: unknown, repeated, malformed and either/or rules', async () => {
    const token = trader.token;
    expectError(await venue.call('/tree/leaves?tree_id=0&from=0&extra=1', { token }), 400, 1001);
    expectError(await venue.call('/tree/leaves?tree_id=0&from=0&from=1', { token }), 400, 1012);
    expectError(await venue.call('/tree/leaves?tree_id=0&from=01', { token }), 400, 1006);
    expectError(await venue.call('/tree/leaves?tree_id=0', { token }), 400, 1002);
    expectError(
      await venue.call(`/settlement/status?tx_id=${'ab'.repeat(32)}&batch_seq=1`, { token }),
      400,
      1012,
    );
    expectError(await venue.call('/transparency?limit=abc'), 400, 1006);
    expectError(await venue.call('/health?x=1'), 400, 1001);
  });

  test('a route that takes no body refuses any body with 1014, even an empty object', async () => {
    expectError(
      await venue.call('/admin/drain', { method: 'POST', token: venue.adminToken, body: '{"force":true}' }),
      400,
      1014,
    );
    expectError(await venue.call('/instruments', { method: 'GET', body: '{}' }), 400, 1014);
  });

  test('GET /admin/metrics/settlement has one entry per market and nothing per order', async () => {
    const metrics = bodyOf(await venue.call('/admin/metrics/settlement', { token: venue.adminToken }));
    const markets = metrics['markets'] as Record<string, unknown>[];
    assert.deepEqual(markets.map((m) => m['symbol']).sort(), ['ETH-USDC', 'SOL-USDC']);
    for (const market of markets) assert.equal(market['queue_depth'], 0);
  });
});

describe('the planned-stop drain (spec 4.7)', () => {
  test('begin closes new trading but not cancels; cancel reopens; each conflict is 409 1208', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const admin = { token: venue.adminToken };
      const resting = venue.order({ id: 1, nonce: 1n }, trader.key);
      assert.equal((await venue.place(trader, resting)).status, 200);
      assert.deepEqual(bodyOf(await venue.call('/admin/drain', admin)), {
        state: 'open',
        trading_closed: false,
        journal_records_in_flight: 0,
      });
      const begun = bodyOf(await venue.call('/admin/drain', { ...admin, method: 'POST' }));
      assert.equal(begun['state'], 'safe_to_stop');
      assert.equal(begun['trading_closed'], true);
      expectError(await venue.call('/admin/drain', { ...admin, method: 'POST' }), 409, 1208);
      expectError(await venue.place(trader, venue.order({ id: 2, nonce: 2n }, trader.key)), 503, 5001);
      const status = bodyOf(await venue.call('/system/status'));
      assert.deepEqual(status['pause_reasons'], ['draining']);
      const instruments = bodyOf(await venue.call('/instruments'))['instruments'] as Record<
        string,
        unknown
      >[];
      assert.ok(
        instruments.every((i) => i['trading_enabled'] === false && i['paused_reason'] === 'venue_paused'),
      );
      assert.equal(
        (await venue.cancel(trader, resting.order_id, venue.cancelParams(resting.order_id, 1n, trader.key)))
          .status,
        200,
      );
      assert.equal(bodyOf(await venue.call('/admin/drain', { ...admin, method: 'DELETE' }))['state'], 'open');
      expectError(await venue.call('/admin/drain', { ...admin, method: 'DELETE' }), 409, 1208);
      assert.equal((await venue.place(trader, venue.order({ id: 3, nonce: 3n }, trader.key))).status, 200);
    } finally {
      await venue.stop();
    }
  });
});

describe('a drain belongs to the boot that began it', () => {
  test('a venue stopped while draining trades again after a restart from its state directory', async () => {
    await withTempDir(async (directory) => {
      const state = { directory, sealingKey: randomBytes(32) };
      const first = await TestVenue.start({ state });
      try {
        const admin = { token: first.adminToken, method: 'POST' };
        assert.equal(bodyOf(await first.call('/admin/drain', admin))['trading_closed'], true);
      } finally {
        await first.stop();
      }
      const second = await TestVenue.start({ state });
      try {
        const trader = await second.trader();
        assert.deepEqual(bodyOf(await second.call('/system/status'))['pause_reasons'], []);
        assert.equal(
          (await second.place(trader, second.order({ id: 1, nonce: 1n }, trader.key))).status,
          200,
        );
      } finally {
        await second.stop();
      }
    });
  });
});

describe('trading rate limit', () => {
  test('GET /account draws from the same read limit as GET /orders/{id} (issue 20 finding 6b)', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const readsAllowed = Math.floor((TRADING_BUCKET.capacity - TRADING_RESERVE_UNITS) / TRADING_COST.read);
      for (let read = 0; read < readsAllowed; read += 1) {
        const exchange = await venue.call('/account', { token: trader.token });
        assert.equal(exchange.status, 200, exchange.text);
      }
      expectError(await venue.call('/account', { token: trader.token }), 429, 1401);
      expectError(await venue.call(`/orders/${'12'.repeat(16)}`, { token: trader.token }), 429, 1401);
      venue.clock.advanceMs(1000);
      assert.equal((await venue.call('/account', { token: trader.token })).status, 200);
    } finally {
      await venue.stop();
    }
  });

  test('places stop at the cancel reserve with 429 1401 and a delay; cancels still pass; time refills', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const placesAllowed = Math.floor(
        (TRADING_BUCKET.capacity - TRADING_RESERVE_UNITS) / TRADING_COST.place,
      );
      const placed: string[] = [];
      let id = 1;
      for (; id <= placesAllowed; id += 1) {
        const order = venue.order({ id, nonce: BigInt(id) }, trader.key);
        const exchange = await venue.place(trader, order);
        assert.equal(exchange.status, 200, exchange.text);
        placed.push(order.order_id);
      }
      const refused = await venue.place(trader, venue.order({ id, nonce: BigInt(id) }, trader.key));
      const message = expectError(refused, 429, 1401);
      assert.match(message, /retry in \d+ ms/);
      // The same wait for programs: Retry-After in whole seconds (at least the message's delay),
      // and the allowance it ran out of.
      const waitMs = Number(/retry in (\d+) ms/.exec(message)?.[1]);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter * 1000 >= waitMs,
        String(retryAfter),
      );
      assert.equal(refused.headers['x-ratelimit-limit'], String(TRADING_BUCKET.capacity));
      assert.ok(
        Number(refused.headers['x-ratelimit-remaining']) < TRADING_COST.place + TRADING_RESERVE_UNITS,
      );
      assert.equal(refused.headers['x-ratelimit-reset'], String(retryAfter));
      // The reserve is for getting out of the market: every cancel it covers goes through.
      for (const [index, orderId] of placed.slice(0, TRADING_RESERVE_UNITS / TRADING_COST.cancel).entries()) {
        const exchange = await venue.cancel(
          trader,
          orderId,
          venue.cancelParams(orderId, BigInt(index + 1), trader.key),
        );
        assert.equal(exchange.status, 200, exchange.text);
      }
      venue.clock.advanceMs(1000);
      assert.equal(
        (await venue.place(trader, venue.order({ id: id + 1, nonce: BigInt(id + 1) }, trader.key))).status,
        200,
      );
    } finally {
      await venue.stop();
    }
  });
});
