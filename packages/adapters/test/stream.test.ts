// The session stream of spec 4.8 and 6 with real `ws` clients over TLS: frames and replies, seq
// without gaps, errors that keep the socket alive, login refresh and expiry, suspension and
// revocation mid-session, per-account routing of order events, cancel-on-disconnect, and upgrade
// refusals.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CancelParamsSchema, toWire } from '@venue/protocol';
import { type Frame, StreamClient, TestVenue, type Trader } from '@venue/testing';

const SLOW_CHILD = fileURLToPath(new URL('../../testing/src/stream-child.mjs', import.meta.url));

/**
 * How long the tests with a reader in another process wait for a step before calling it lost: the
 * waits poll and end as soon as the step is done, so a generous bound costs nothing when the machine
 * is idle and keeps a step that a loaded machine slows (a child's start took over 10 s at load 15)
 * from failing the test.
 */
const LOADED_WAIT_MS = 120_000;
/** A heartbeat interval that never comes within a test (the largest a timer takes). */
const HEARTBEAT_NEVER_MS = 2 ** 31 - 1;

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function assertGapless(frames: readonly Frame[]): void {
  for (const [index, frame] of frames.entries()) {
    assert.equal(frame['seq'], index + 1, `frame ${index} has seq ${frame['seq']}`);
  }
}

describe('stream frames', () => {
  let venue: TestVenue;
  let alice: Trader;
  let bob: Trader;
  before(async () => {
    venue = await TestVenue.start();
    alice = await venue.trader('alice');
    bob = await venue.trader('bob');
  });
  after(() => venue.stop());

  test('before login only ping, login and logout work; others get 1109 and the socket lives', async () => {
    const client = await venue.stream();
    assert.deepEqual(await client.request({ op: 'ping' }), { op: 'pong', seq: 1, request_id: 'r1' });
    const refused = await client.request({ op: 'subscribe', channels: ['orders'] });
    assert.equal(refused['op'], 'error');
    assert.equal(refused['code'], 1109);
    const place = await client.request({
      op: 'order.place',
      params: venue.order({ id: 1, nonce: 1n }, alice.key),
    });
    assert.equal(place['code'], 1109);
    const logout = await client.request({ op: 'logout' });
    assert.deepEqual(logout, { op: 'logout', seq: 4, request_id: 'r4', result: {} });
    assert.equal((await client.closed).code, 1000);
  });

  test('malformed JSON, unknown op, bad fields and oversized frames are error frames; the socket lives', async () => {
    const client = await venue.stream();
    client.send('{"op": "ping",');
    assert.equal((await client.next((f) => f['seq'] === 1))['code'], 1000);
    client.send({ op: 'dance', request_id: 'x1' });
    const unknown = await client.next((f) => f['request_id'] === 'x1');
    assert.equal(unknown['code'], 1013);
    client.send({ op: 'ping', request_id: 'x2', extra: true });
    assert.equal((await client.next((f) => f['request_id'] === 'x2'))['code'], 1001);
    client.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(20_000) }));
    assert.equal((await client.next((f) => f['seq'] === 4))['code'], 1008);
    client.socket.send(Buffer.from('{"op":"ping"}'), { binary: true });
    assert.equal((await client.next((f) => f['seq'] === 5))['code'], 1000);
    assert.equal((await client.request({ op: 'ping' }))['op'], 'pong');
    assertGapless(client.frames);
    await client.close();
  });

  test('a frame above the hard cap closes the socket with 1009', async () => {
    const client = await venue.stream();
    client.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(70_000) }));
    assert.equal((await client.closed).code, 1009);
  });

  test('login, subscribe, place and cancel over the stream; events reach only the owner, all gapless', async () => {
    const mine = await venue.stream();
    const theirs = await venue.stream();
    const login = (await mine.login(alice.token))['result'] as Frame;
    assert.equal(login['account_id'], alice.accountId);
    assert.equal(login['cancel_on_disconnect'], false);
    assert.equal(login['expires_at'], (Math.floor(venue.clock.nowMs() / 1000) + 3600) * 1000);
    await theirs.login(bob.token);
    assert.deepEqual((await mine.request({ op: 'subscribe', channels: ['orders'] }))['result'], {
      channels: ['orders'],
    });
    await theirs.request({ op: 'subscribe', channels: ['orders', 'tree'] });

    const order = venue.order({ id: 10, nonce: 10n }, alice.key);
    const placed = await mine.request({ op: 'order.place', params: order });
    assert.deepEqual(placed['result'], {
      order_id: order.order_id,
      status: 'accepted',
      arrival_slot: Number(venue.clock.slot()),
    });
    const cancel = await mine.request({
      op: 'order.cancel',
      order_id: order.order_id,
      params: toWire(CancelParamsSchema, venue.cancelParams(order.order_id, 1n, alice.key)),
    });
    assert.equal((cancel['result'] as Frame)['status'], 'cancelled');
    const event = await mine.next((f) => f['channel'] === 'orders' && f['kind'] === 'cancelled');
    assert.equal(event['order_id'], order.order_id);
    assert.equal(typeof event['market_id'], 'string');
    assert.equal(typeof event['server_time_ms'], 'number');
    // REST writes and stream writes land on the same session.
    const viaRest = venue.order({ id: 11, nonce: 11n }, alice.key);
    assert.equal((await venue.place(alice, viaRest)).status, 200);
    assert.equal(
      (await venue.cancel(alice, viaRest.order_id, venue.cancelParams(viaRest.order_id, 2n, alice.key)))
        .status,
      200,
    );
    await mine.next((f) => f['kind'] === 'cancelled' && f['order_id'] === viaRest.order_id);
    assertGapless(mine.frames);
    assert.equal(theirs.frames.filter((f) => f['channel'] === 'orders').length, 0);
    await mine.close();
    await theirs.close();
  });

  test('frames pipelined behind a login act for that login, in order', async () => {
    const dave = await venue.trader('dave');
    const client = await venue.stream();
    const order = venue.order({ id: 14, nonce: 1n }, dave.key);
    client.send({ op: 'login', request_id: 'a', token: dave.token });
    client.send({ op: 'subscribe', request_id: 'b', channels: ['orders'] });
    client.send({ op: 'order.place', request_id: 'c', params: order });
    const placed = await client.next((f) => f['request_id'] === 'c');
    assert.deepEqual(
      client.frames.map((f) => [f['op'], f['request_id']]),
      [
        ['login', 'a'],
        ['subscribe', 'b'],
        ['order.place', 'c'],
      ],
    );
    assert.equal((placed['result'] as Frame)['order_id'], order.order_id);
    await client.close();
  });

  test('an order frame with a bad signature gets the REST code and message', async () => {
    const client = await venue.stream();
    await client.login(alice.token);
    const order = venue.order({ id: 12, nonce: 12n }, alice.key);
    const forged = {
      ...order,
      trading_key_signature: venue.order({ id: 13, nonce: 12n }, alice.key).trading_key_signature,
    };
    const refused = await client.request({ op: 'order.place', params: forged });
    assert.equal(refused['code'], 1102);
    const rest = await venue.place(alice, forged);
    assert.equal(JSON.parse(rest.text).message, refused['message']);
    await client.close();
  });

  test('thousands of events arrive in order with no seq gap', async () => {
    const carol = await venue.trader('carol');
    const client = await venue.stream();
    await client.login(carol.token);
    await client.request({ op: 'subscribe', channels: ['orders'] });
    // Three rounds of 1,000 orders (the most an account may hold open), each expiring together.
    const count = 3000;
    for (let round = 0; round < 3; round += 1) {
      const expiry = venue.clock.slot() + 20n;
      for (let i = 0; i < 1000; i += 1) {
        const n = round * 1000 + i;
        // Orders enter through the sequencer directly (signatures are the intake's, tested elsewhere).
        const order = venue.order(
          { id: 100_000 + n, nonce: BigInt(n + 1), expiry, note: `c${n}` },
          carol.key,
        );
        venue.server.engine.submit({
          type: 'place',
          order,
          bodyDigest: `${n}`.padStart(64, '0'),
          accountId: carol.accountId,
          connectionId: null,
        });
      }
      venue.clock.advanceSlots(21n);
      venue.server.engine.catchUp();
    }
    await client.next((f) => f['seq'] === 2 + count, 20_000);
    const expired = client.frames.filter((f) => f['kind'] === 'expired');
    assert.equal(expired.length, count);
    assertGapless(client.frames);
    await client.close();
  });
});

describe('stream sessions and accounts', () => {
  test('a new login refreshes the token and keeps subscriptions; auth_expired warns; expiry stops acting', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const client = await venue.stream();
      await client.login(trader.token);
      await client.request({ op: 'subscribe', channels: ['orders'] });
      const expiresAtMs = (Math.floor(venue.clock.nowMs() / 1000) + 3600) * 1000;
      venue.clock.setNowMs(expiresAtMs - 30_000);
      const warning = await client.next((f) => f['op'] === 'auth_expired', 3000);
      assert.equal(warning['expires_at'], expiresAtMs);
      venue.clock.setNowMs(expiresAtMs);
      const refused = await client.request({
        op: 'order.place',
        params: venue.order({ id: 1, nonce: 1n }, trader.key),
      });
      // spec 7: the code REST gives for this token (401 1103), with REST's message.
      assert.equal(refused['code'], 1103);
      const rest = await venue.call('/account', { token: trader.token });
      assert.equal(JSON.parse(rest.text).code, 1103);
      assert.equal(refused['message'], JSON.parse(rest.text).message);
      // A fresh token on the same socket: subscriptions are still there.
      const fresh = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
      await client.login(fresh.access_token);
      const order = venue.order({ id: 2, nonce: 2n }, trader.key);
      await client.request({ op: 'order.place', params: order });
      await client.request({
        op: 'order.cancel',
        order_id: order.order_id,
        params: toWire(CancelParamsSchema, venue.cancelParams(order.order_id, 1n, trader.key)),
      });
      await client.next((f) => f['kind'] === 'cancelled');
      assertGapless(client.frames);
      await client.close();
    } finally {
      await venue.stop();
    }
  });

  test("suspension closes the account's sockets at once; revocation stops the session until a new login", async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const client = await venue.stream();
      await client.login(trader.token);
      await venue.call(`/admin/accounts/${trader.apiKey}/revoke-tokens`, {
        method: 'POST',
        token: venue.adminToken,
      });
      const revoked = await client.next((f) => f['op'] === 'error');
      assert.equal(revoked['code'], 1104);
      assert.equal((await client.request({ op: 'subscribe', channels: ['orders'] }))['code'], 1104);
      const fresh = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
      assert.equal((await client.login(fresh.access_token))['op'], 'login');

      await venue.call(`/admin/accounts/${trader.apiKey}/disable`, {
        method: 'POST',
        token: venue.adminToken,
      });
      const disabled = await client.next((f) => f['code'] === 1106);
      assert.equal(disabled['message'], 'account disabled');
      assert.equal((await client.closed).code, 1008);
      const again = await venue.stream();
      assert.equal((await again.login(fresh.access_token))['code'], 1106);
      await again.close();
    } finally {
      await venue.stop();
    }
  });

  test("a revoked session gets REST's 1104 on every frame, no events, and a later disable still closes it", async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const watcher = await venue.stream();
      await watcher.login(trader.token);
      await watcher.request({ op: 'subscribe', channels: ['orders'] });
      const idle = await venue.stream(); // logged in, never re-logs in after the revocation
      await idle.login(trader.token);
      await venue.call(`/admin/accounts/${trader.apiKey}/revoke-tokens`, {
        method: 'POST',
        token: venue.adminToken,
      });
      for (const client of [watcher, idle]) {
        const told = await client.next((f) => f['op'] === 'error');
        assert.equal(told['code'], 1104);
      }
      const rest = JSON.parse((await venue.call('/account', { token: trader.token })).text);
      assert.equal(rest.code, 1104);
      const order = venue.order({ id: 1, nonce: 1n }, trader.key);
      for (const frame of [
        { op: 'subscribe', channels: ['fills'] },
        { op: 'order.place', params: order },
        {
          op: 'order.cancel',
          order_id: order.order_id,
          params: toWire(CancelParamsSchema, venue.cancelParams(order.order_id, 1n, trader.key)),
        },
      ]) {
        const refused = await watcher.request(frame);
        assert.equal(refused['code'], 1104, JSON.stringify(refused));
        assert.equal(refused['message'], rest.message);
      }
      // An order placed over REST with a fresh token: the revoked session gets no event of it.
      const fresh = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
      const placed = await venue.place(
        { ...trader, token: fresh.access_token },
        venue.order({ id: 2, nonce: 2n }, trader.key),
      );
      assert.equal(placed.status, 200, placed.text);
      assert.equal((await watcher.request({ op: 'ping' }))['op'], 'pong');
      assert.ok(
        !watcher.frames.some((f) => f['channel'] === 'orders'),
        'no event reached the revoked session',
      );

      // The disable reaches both sockets, though neither holds a valid token.
      await venue.call(`/admin/accounts/${trader.apiKey}/disable`, {
        method: 'POST',
        token: venue.adminToken,
      });
      for (const client of [watcher, idle]) {
        const disabled = await client.next((f) => f['code'] === 1106);
        assert.equal(disabled['message'], 'account disabled');
        assert.equal((await client.closed).code, 1008);
      }
      assertGapless(watcher.frames);
    } finally {
      await venue.stop();
    }
  });

  test('a session revoked by its own DELETE /auth/token gets 1104; other sessions of the account act on', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const other = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
      const revokedClient = await venue.stream();
      await revokedClient.login(trader.token);
      const otherClient = await venue.stream();
      await otherClient.login(other.access_token);
      assert.equal((await venue.call('/auth/token', { method: 'DELETE', token: trader.token })).status, 200);
      assert.equal((await revokedClient.next((f) => f['op'] === 'error'))['code'], 1104);
      const refused = await revokedClient.request({ op: 'subscribe', channels: ['orders'] });
      assert.equal(refused['code'], 1104);
      const fine = await otherClient.request({ op: 'subscribe', channels: ['orders'] });
      assert.equal(fine['op'], 'subscribe');
      assert.ok(
        !otherClient.frames.some((f) => f['op'] === 'error'),
        'the other session was not told anything',
      );
      // A session whose token expired is closed by a disable too.
      const expiresAtMs = (Math.floor(venue.clock.nowMs() / 1000) + 3600) * 1000;
      venue.clock.setNowMs(expiresAtMs + 1);
      assert.equal((await otherClient.request({ op: 'subscribe', channels: ['fills'] }))['code'], 1103);
      // The admin token expired with the clock jump too: the route's own service call suspends.
      await venue.server.auth.disable(trader.apiKey);
      for (const client of [revokedClient, otherClient]) assert.equal((await client.closed).code, 1008);
    } finally {
      await venue.stop();
    }
  });

  test("cancel-on-disconnect cancels only this socket's resting orders; the login value overrides the default", async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const watcher = await venue.stream();
      await watcher.login(trader.token, false);
      await watcher.request({ op: 'subscribe', channels: ['orders'] });

      const sweeping = await venue.stream();
      assert.equal(
        ((await sweeping.login(trader.token, true))['result'] as Frame)['cancel_on_disconnect'],
        true,
      );
      const a = venue.order({ id: 1, nonce: 1n }, trader.key);
      const b = venue.order({ id: 2, nonce: 2n }, trader.key);
      const viaRest = venue.order({ id: 3, nonce: 3n }, trader.key);
      await sweeping.request({ op: 'order.place', params: a });
      await sweeping.request({ op: 'order.place', params: b });
      assert.equal((await venue.place(trader, viaRest)).status, 200);
      await sweeping.request({
        op: 'order.cancel',
        order_id: b.order_id,
        params: toWire(CancelParamsSchema, venue.cancelParams(b.order_id, 1n, trader.key)),
      });
      await sweeping.close();
      const swept = await watcher.next((f) => f['kind'] === 'cancelled' && f['order_id'] === a.order_id);
      assert.equal(swept['channel'], 'orders');
      const record = JSON.parse((await venue.call(`/orders/${a.order_id}`, { token: trader.token })).text);
      assert.equal(record.cancel_reason, 'disconnect');
      const rest = JSON.parse(
        (await venue.call(`/orders/${viaRest.order_id}`, { token: trader.token })).text,
      );
      assert.equal(rest.state, 'resting');

      // Account default true, login silent: applies. Explicit false: overrides.
      await venue.call('/account/settings', {
        method: 'PUT',
        token: trader.token,
        body: JSON.stringify({ cancel_on_disconnect_default: true }),
      });
      const byDefault = await venue.stream();
      assert.equal(((await byDefault.login(trader.token))['result'] as Frame)['cancel_on_disconnect'], true);
      const overridden = await venue.stream();
      assert.equal(
        ((await overridden.login(trader.token, false))['result'] as Frame)['cancel_on_disconnect'],
        false,
      );
      const kept = venue.order({ id: 4, nonce: 4n }, trader.key);
      await overridden.request({ op: 'order.place', params: kept });
      await overridden.close();
      await byDefault.close();
      const keptRecord = JSON.parse(
        (await venue.call(`/orders/${kept.order_id}`, { token: trader.token })).text,
      );
      assert.equal(keptRecord.state, 'resting');
      await watcher.close();
    } finally {
      await venue.stop();
    }
  });

  test('a slow reader is closed with 1011 while a fast one keeps receiving', async () => {
    // No heartbeat: under heavy load the bursts can outlast two ping intervals, and the frozen reader
    // would then be dropped as a dead peer before its buffer fills (the next test covers that drop).
    const venue = await TestVenue.start({
      streamAccountBufferBytesMax: 256 * 1024,
      streamHeartbeatIntervalMs: HEARTBEAT_NEVER_MS,
    });
    const slowTrader = await venue.trader('slow');
    const fastTrader = await venue.trader('fast');
    // The slow reader is a separate process that the test freezes, so nothing drains its socket.
    const child = spawn(process.execPath, [SLOW_CHILD, String(venue.port), slowTrader.token], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      child.stdin.end(venue.identity.certPem);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      await waitFor(() => output.includes('READY'), LOADED_WAIT_MS);
      child.kill('SIGSTOP');
      const fast = await venue.stream();
      await fast.request({ op: 'login', token: fastTrader.token }, LOADED_WAIT_MS);
      await fast.request({ op: 'subscribe', channels: ['orders'] }, LOADED_WAIT_MS);
      let nonce = 1n;
      let expected = 0;
      // Bursts of 900 expiries per account, until the frozen reader's account exceeds its buffer.
      for (let burst = 0; burst < 400 && venue.server.stream.slowConsumersClosed === 0; burst += 1) {
        const expiry = venue.clock.slot() + 12n;
        for (let i = 0; i < 900; i += 1) {
          for (const [side, trader] of [
            [0, slowTrader],
            [1, fastTrader],
          ] as const) {
            const order = venue.order(
              { id: Number(nonce) * 2 + side, nonce, expiry, note: `${side}-${nonce}` },
              trader.key,
            );
            venue.server.engine.submit({
              type: 'place',
              order,
              bodyDigest: `${nonce}`.padStart(63, '0') + side,
              accountId: trader.accountId,
              connectionId: null,
            });
          }
          nonce += 1n;
        }
        venue.clock.advanceSlots(13n);
        venue.server.engine.catchUp();
        expected += 900;
        await fast.next((f) => f['seq'] === 2 + expected, LOADED_WAIT_MS);
      }
      assert.equal(venue.server.stream.slowConsumersClosed, 1, 'the frozen reader was never closed');
      // Thawed, the reader drains its backlog and then finds the venue's close frame.
      child.kill('SIGCONT');
      await waitFor(() => output.includes('CLOSED'), LOADED_WAIT_MS);
      assert.match(output, /CLOSED 1011/);
      assert.equal(fast.frames.filter((f) => f['kind'] === 'expired').length, expected);
      assertGapless(fast.frames);
      await fast.close();
    } finally {
      child.kill('SIGKILL');
      await venue.stop();
    }
  });

  test('transport pings are answered; a peer that stops answering pings is dropped', async () => {
    const venue = await TestVenue.start({ streamHeartbeatIntervalMs: 200 });
    const trader = await venue.trader('frozen');
    const child = spawn(process.execPath, [SLOW_CHILD, String(venue.port), trader.token], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const live = await venue.stream();
      const pong = new Promise<Buffer>((resolve) => live.socket.once('pong', resolve));
      live.socket.ping(Buffer.from('are you there'));
      assert.equal((await pong).toString(), 'are you there');

      child.stdin.end(venue.identity.certPem);
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      await waitFor(() => output.includes('READY'), LOADED_WAIT_MS);
      assert.equal(venue.server.stream.sessionCount, 2);
      child.kill('SIGSTOP'); // half-open from the venue's side: nobody answers its pings
      await waitFor(() => venue.server.stream.sessionCount === 1, LOADED_WAIT_MS);
      assert.equal(venue.server.stream.deadPeersDropped, 1);
      // The live client answered every ping (ws does it for it) and is still served.
      assert.equal((await live.request({ op: 'ping' }))['op'], 'pong');
      await live.close();
    } finally {
      child.kill('SIGKILL');
      await venue.stop();
    }
  });

  test('upgrades elsewhere than /v1/stream, or with a query string, are refused with an envelope', async () => {
    const venue = await TestVenue.start();
    try {
      await assert.rejects(StreamClient.connect(venue.port, venue.identity.certPem, '/v1/other'), /HTTP 404/);
      await assert.rejects(
        StreamClient.connect(venue.port, venue.identity.certPem, '/v1/stream?token=abc'),
        /HTTP 400/,
      );
    } finally {
      await venue.stop();
    }
  });
});
