/**
 * The adversarial suite (issue 11 item 3): one named test per attack, each over the real HTTPS and
 * WebSocket servers of a TestVenue, each asserting what the venue promises in docs/security.md
 * ("Adversarial cases"). Refusals must change nothing: the core's stateHash() is compared before
 * and after wherever an attack could have booked, cancelled or moved something.
 *
 * Some cases are also covered by the feature tests (rest-orders, rest-auth, stream); here each is
 * stated from the attacker's side, in one place. A proof for another note needs the real prover
 * and verifier, so it lives in proofs.test.ts beside the proof-byte fuzzing.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import { CONNECTIONS_MAX, REQUEST_TIMEOUT_MS } from '@venue/adapters';
import {
  CancelParamsSchema,
  generateTradingKey,
  JSON_DEPTH_MAX,
  type PlaceOrder,
  PlaceOrderSchema,
  signCancel,
  signPlaceOrder,
  toWire,
  wireJsonText,
} from '@venue/protocol';
import { type Exchange, envelopeOf, TestVenue, type Trader } from '@venue/testing';
import { captureLogs } from './venue-logs.ts';

let venue: TestVenue;
let alice: Trader & { apiSecret: string; passphrase: string };
let mallory: Trader & { apiSecret: string; passphrase: string };
let nextId = 1;
let nextNonce = 1n;
const id = () => 900_000 + nextId++;
const nonce = () => nextNonce++;

function expectRefusal(exchange: Exchange, status: number, code: number): void {
  assert.equal(exchange.status, status, exchange.text);
  assert.equal(envelopeOf(exchange).code, code, exchange.text);
}

/** Runs `attack` and checks that the core's state is exactly what it was before. */
async function changesNothing(attack: () => Promise<void>): Promise<void> {
  const before = venue.server.engine.core.stateHash();
  await attack();
  assert.equal(venue.server.engine.core.stateHash(), before, 'the refused request changed the venue');
}

async function placed(trader: Trader, order: PlaceOrder): Promise<void> {
  const answer = await venue.place(trader, order);
  assert.equal(answer.status, 200, answer.text);
}

async function orderState(trader: Trader, orderId: string): Promise<string> {
  const read = await venue.call(`/orders/${orderId}`, { token: trader.token });
  assert.equal(read.status, 200, read.text);
  return String((JSON.parse(read.text) as { state: string }).state);
}

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

before(async () => {
  venue = await TestVenue.start();
  alice = await venue.trader('alice');
  mallory = await venue.trader('mallory');
});
after(() => venue.stop());

describe('adversarial: order ownership and replay', { concurrency: false }, () => {
  test("another key's order: another account cannot read, cancel or modify it; another key of the same account gets 403", async () => {
    const order = venue.order({ id: id(), nonce: nonce() }, alice.key);
    await placed(alice, order);
    await changesNothing(async () => {
      const read = await venue.call(`/orders/${order.order_id}`, { token: mallory.token });
      expectRefusal(read, 404, 1300);
      const cancel = venue.cancelParams(order.order_id, 1n, mallory.key);
      expectRefusal(await venue.cancel(mallory, order.order_id, cancel), 404, 1300);
      const replacement = venue.order({ id: id(), nonce: nonce() }, mallory.key);
      const modify = venue.modifyRequest(order.order_id, 2n, replacement, mallory.key);
      expectRefusal(await venue.modify(mallory, order.order_id, modify), 404, 1300);
      // The same account's bearer token with a key that did not sign the order.
      const otherKey = generateTradingKey();
      const own = venue.cancelParams(order.order_id, 3n, otherKey);
      expectRefusal(await venue.cancel(alice, order.order_id, own), 403, 1107);
      // On the stream too (spec 4.8 rule 1).
      const stream = await venue.stream();
      await stream.login(mallory.token);
      const reply = await stream.request({
        op: 'order.cancel',
        order_id: order.order_id,
        params: toWire(CancelParamsSchema, venue.cancelParams(order.order_id, 4n, mallory.key)),
      });
      assert.equal(reply['op'], 'error');
      assert.equal(reply['code'], 1300);
      await stream.close();
    });
    assert.equal(await orderState(alice, order.order_id), 'resting');
  });

  test('a replayed signed order books once: the owner gets the first answer, another account gets nothing', async () => {
    const order = venue.order({ id: id(), nonce: nonce() }, alice.key);
    const first = await venue.place(alice, order);
    assert.equal(first.status, 200, first.text);
    await changesNothing(async () => {
      const again = await venue.place(alice, order);
      assert.equal(again.text, first.text, 'an exact repeat answers as the first time');
      // Captured in transit and replayed under another account's token: never a second order, and
      // never an order (or its events) for the replaying account.
      const stolen = await venue.place(mallory, order);
      assert.ok(stolen.status >= 400 && stolen.status < 500, stolen.text);
      expectRefusal(await venue.call(`/orders/${order.order_id}`, { token: mallory.token }), 404, 1300);
    });
    // After the order is gone the same body is refused (1211): answering `accepted` would claim a
    // booking that no longer exists (issue 20 finding 6a).
    const cancelled = await venue.cancel(
      alice,
      order.order_id,
      venue.cancelParams(order.order_id, nonce(), alice.key),
    );
    assert.equal(cancelled.status, 200, cancelled.text);
    await changesNothing(async () => {
      expectRefusal(await venue.place(alice, order), 409, 1211);
      assert.equal(await orderState(alice, order.order_id), 'cancelled');
    });
  });

  test('a reused arrival nonce is 409 1201 and a reused cancel nonce 409 1202', async () => {
    const key = generateTradingKey();
    const first = venue.order({ id: id(), nonce: 50n }, key);
    await placed(alice, first);
    await changesNothing(async () => {
      expectRefusal(await venue.place(alice, venue.order({ id: id(), nonce: 50n }, key)), 409, 1201);
      expectRefusal(await venue.place(alice, venue.order({ id: id(), nonce: 49n }, key)), 409, 1201);
    });
    const second = venue.order({ id: id(), nonce: 51n }, key);
    await placed(alice, second);
    const cancel = await venue.cancel(alice, first.order_id, venue.cancelParams(first.order_id, 7n, key));
    assert.equal(cancel.status, 200, cancel.text);
    await changesNothing(async () => {
      const reused = venue.cancelParams(second.order_id, 7n, key);
      expectRefusal(await venue.cancel(alice, second.order_id, reused), 409, 1202);
    });
  });

  test('a stale session: orders and cancels signed for another boot are 409 1203', async () => {
    const key = generateTradingKey();
    const current = venue.order({ id: id(), nonce: 1n }, key);
    await placed(alice, current);
    await changesNothing(async () => {
      const old = signPlaceOrder(
        { ...venue.order({ id: id(), nonce: 2n }, key), session_id: 'ee'.repeat(32) },
        key,
      );
      expectRefusal(await venue.place(alice, old), 409, 1203);
      const cancel = { ...venue.cancelParams(current.order_id, 1n, key), session_id: 'ee'.repeat(32) };
      // Re-signed for the old session, so only the session is wrong.
      const resigned = {
        ...cancel,
        trading_key_signature: signCancel(
          {
            order_id: current.order_id,
            trading_key: key.publicKey,
            cancel_nonce: 1n,
            session_id: 'ee'.repeat(32),
          },
          key,
        ),
      };
      expectRefusal(await venue.cancel(alice, current.order_id, resigned), 409, 1203);
    });
  });

  test('a note reused across orders is 409 1204 while the first order lives, for any key or account', async () => {
    const shared = { note: 'shared-collateral', key: 'note-owner' };
    const first = venue.order({ id: id(), nonce: nonce(), ...shared }, alice.key);
    await placed(alice, first);
    await changesNothing(async () => {
      const sameKey = venue.order({ id: id(), nonce: nonce(), ...shared }, alice.key);
      expectRefusal(await venue.place(alice, sameKey), 409, 1204);
      const otherAccount = venue.order({ id: id(), nonce: 1n, ...shared }, mallory.key);
      expectRefusal(await venue.place(mallory, otherAccount), 409, 1204);
    });
    // Once the order is cancelled the note backs nothing and may back a new order.
    const cancel = venue.cancelParams(first.order_id, nonce(), alice.key);
    assert.equal((await venue.cancel(alice, first.order_id, cancel)).status, 200);
    await placed(alice, venue.order({ id: id(), nonce: nonce(), ...shared }, alice.key));
  });

  test('cross-market modify is 400 1037 and leaves the order as it was', async () => {
    const order = venue.order({ id: id(), nonce: nonce() }, alice.key);
    await placed(alice, order);
    await changesNothing(async () => {
      const replacement = venue.order({ id: id(), nonce: nonce(), symbol: 'ETH-USDC' }, alice.key);
      const request = venue.modifyRequest(order.order_id, nonce(), replacement, alice.key);
      expectRefusal(await venue.modify(alice, order.order_id, request), 400, 1037);
      // Reprice in place with another symbol, same id: refused just the same.
      const inPlace = venue.order({ id: 0, nonce: nonce(), symbol: 'ETH-USDC' }, alice.key);
      const samePlace = signPlaceOrder({ ...inPlace, order_id: order.order_id }, alice.key);
      const repriced = venue.modifyRequest(order.order_id, nonce(), samePlace, alice.key);
      expectRefusal(await venue.modify(alice, order.order_id, repriced), 400, 1037);
    });
    assert.equal(await orderState(alice, order.order_id), 'resting');
  });

  test('a low-order X25519 viewing key is 400 1035, in every encoding of the bad points', async () => {
    const p = 2n ** 255n - 19n;
    const le = (u: bigint) => Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse().toString('hex');
    const lowOrder = [
      le(0n),
      le(1n),
      le(p - 1n),
      'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
      '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
      le(p), // 0 written as p
      le(p + 1n), // 1 written as p + 1
      le(2n ** 255n), // the ignored top bit set on 0
    ];
    await changesNothing(async () => {
      for (const viewing of lowOrder) {
        const order = signPlaceOrder(
          { ...venue.order({ id: id(), nonce: nonce() }, alice.key), viewing_pubkey: viewing },
          alice.key,
        );
        expectRefusal(await venue.place(alice, order), 400, 1035);
      }
    });
  });
});

describe('adversarial: tokens and accounts', { concurrency: false }, () => {
  test('a stolen token after revocation is 401 1104 on REST and refused at stream login', async () => {
    const victim = await venue.trader('victim');
    const stolen = victim.token;
    const revoked = await venue.call('/auth/token', { method: 'DELETE', token: stolen });
    assert.equal(revoked.status, 200, revoked.text);
    expectRefusal(await venue.call('/account', { token: stolen }), 401, 1104);
    await changesNothing(async () => {
      const order = venue.order({ id: id(), nonce: 1n }, victim.key);
      expectRefusal(await venue.place({ ...victim, token: stolen }, order), 401, 1104);
    });
    const stream = await venue.stream();
    const login = await stream.login(stolen);
    assert.equal(login['op'], 'error');
    assert.equal(login['code'], 1104);
    await stream.close();
  });

  test('a suspended account is 403 on REST, its stream is closed, and it cannot log in again', async () => {
    const suspect = await venue.trader('suspect');
    const stream = await venue.stream();
    await stream.login(suspect.token);
    const disabled = await venue.call(`/admin/accounts/${suspect.apiKey}/disable`, {
      method: 'POST',
      token: venue.adminToken,
    });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal((await stream.closed).code, 1008, 'the open socket is closed at once');
    await changesNothing(async () => {
      expectRefusal(await venue.call('/account', { token: suspect.token }), 403, 1106);
      const order = venue.order({ id: id(), nonce: 1n }, suspect.key);
      expectRefusal(await venue.place(suspect, order), 403, 1106);
    });
    const again = await venue.stream();
    assert.equal((await again.login(suspect.token))['code'], 1106);
    await again.close();
    const relogin = await venue.call('/auth/token', {
      method: 'POST',
      body: JSON.stringify({
        api_key: suspect.apiKey,
        api_secret: suspect.apiSecret,
        passphrase: suspect.passphrase,
      }),
    });
    expectRefusal(relogin, 403, 1106);
    assert.equal(envelopeOf(relogin).message, 'account disabled');
  });

  test('alg confusion and forged JWTs: none, another algorithm, a guessed key, edited claims are all 401', async () => {
    const [header, payload, signature] = alice.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const admin = base64url(JSON.stringify({ ...claims, aud: 'admin' }));
    const later = base64url(JSON.stringify({ ...claims, exp: Number(claims['exp']) + 86_400 }));
    const hs256 = (body: string, key: string) =>
      `${header}.${body}.${createHmac('sha256', key).update(`${header}.${body}`).digest('base64url')}`;
    const forged: Record<string, string> = {
      'alg none, no signature': `${base64url('{"alg":"none","typ":"JWT"}')}.${payload}.`,
      'alg none, original signature': `${base64url('{"alg":"none"}')}.${payload}.${signature}`,
      'alg RS256, original signature': `${base64url('{"alg":"RS256","typ":"JWT"}')}.${payload}.${signature}`,
      'alg HS512, original signature': `${base64url('{"alg":"HS512","typ":"JWT"}')}.${payload}.${signature}`,
      'HS256 under an empty key': hs256(payload, ''),
      'HS256 under "secret"': hs256(payload, 'secret'),
      'HS256 under the session id': hs256(payload, venue.identity.sessionId),
      'aud changed to admin': `${header}.${admin}.${signature}`,
      'exp extended a day': `${header}.${later}.${signature}`,
      'signature dropped': `${header}.${payload}.`,
      'signature of another token': `${header}.${payload}.${mallory.token.split('.')[2]}`,
    };
    await changesNothing(async () => {
      for (const [what, token] of Object.entries(forged)) {
        const answer = await venue.call('/account', { token });
        assert.equal(answer.status, 401, `${what}: ${answer.text}`);
        assert.equal(envelopeOf(answer).code, 1101, what);
        const onAdmin = await venue.call('/admin/drain', { token });
        assert.equal(onAdmin.status, 401, `${what} on an admin route: ${onAdmin.text}`);
      }
    });
    // The stream refuses each at login: as an invalid token, or as a malformed frame when the text
    // is not even shaped like a JWT.
    const stream = await venue.stream();
    for (const [what, token] of Object.entries(forged)) {
      const login = await stream.login(token);
      assert.ok(login['code'] === 1101 || login['code'] === 1009, `${what}: ${JSON.stringify(login)}`);
    }
    await stream.close();
  });

  test('a flood of logins cannot lock an owner out: guesses cost the guessing address, never the account', async () => {
    const target = await venue.trader('flood-target');
    const bystander = await venue.trader('bystander');
    const fresh = await venue.server.provision('trader', 'flood-fresh');
    const guess = (apiKey: string, i: number) =>
      venue.call('/auth/token', {
        method: 'POST',
        body: JSON.stringify({
          api_key: apiKey,
          api_secret: `guess-${i}-${'x'.repeat(30)}`,
          passphrase: 'guessing!!',
        }),
        localAddress: '127.0.0.9',
      });
    const runs = venue.server.auth.verificationsRun;
    // Unknown keys: refused before any hashing, so they cannot exhaust the verification capacity.
    const unknown = await Promise.all(Array.from({ length: 40 }, (_, i) => guess('u'.repeat(24), i)));
    for (const answer of unknown) expectRefusal(answer, 401, 1105);
    // A known key whose owner has logged in: every guess is told wrong from memory, no hashing.
    const known = await Promise.all(Array.from({ length: 150 }, (_, i) => guess(target.apiKey, i)));
    for (const answer of known) expectRefusal(answer, 401, 1105);
    assert.equal(venue.server.auth.verificationsRun, runs, 'no scrypt run for unknown or proven keys');
    // A known key not logged in yet: this address's failures are verified, then 429 1405 (or 503
    // 1402 while hashes are busy, which costs nothing).
    const flood = await Promise.all(Array.from({ length: 60 }, (_, i) => guess(fresh.api_key, i)));
    // Then one at a time, so each is verified rather than refused at capacity, until cut off.
    for (let i = 0; i < 20; i += 1) flood.push(await guess(fresh.api_key, 60 + i));
    const codes = flood.map((answer) => envelopeOf(answer).code);
    assert.ok(
      codes.every((code) => [1105, 1402, 1405].includes(code)),
      codes.join(','),
    );
    assert.ok(codes.includes(1405), 'the address ran out of failures');
    assert.ok(venue.server.auth.verificationsRun - runs <= 10, 'at most the address allowance was hashed');
    const cutOff = flood.find((answer) => envelopeOf(answer).code === 1405);
    assert.match(envelopeOf(cutOff as Exchange).message, /\d+ ?s/, 'the 429 says how long to wait');
    // Every owner still gets in: held tokens work, and fresh logins succeed from the owners' address.
    assert.equal((await venue.call('/account', { token: target.token })).status, 200);
    for (const owner of [
      { apiKey: target.apiKey, apiSecret: target.apiSecret, passphrase: target.passphrase },
      { apiKey: fresh.api_key, apiSecret: fresh.api_secret, passphrase: fresh.passphrase },
      bystander,
    ]) {
      const login = await venue.login(owner.apiKey, owner.apiSecret, owner.passphrase);
      assert.ok(login.access_token.length > 0);
    }
  });
});

describe('adversarial: resource exhaustion', { concurrency: false }, () => {
  test('an oversized or deeply nested body is refused (413 1008, 400 1010) and changes nothing', async () => {
    await changesNothing(async () => {
      const order = wireJsonText(PlaceOrderSchema, venue.order({ id: id(), nonce: nonce() }, alice.key));
      const padded = `${order.slice(0, -1)},"pad":"${'x'.repeat(64 * 1024)}"}`;
      const big = await venue.call('/orders', { method: 'POST', token: alice.token, body: padded });
      expectRefusal(big, 413, 1008);
      // The message names the limit of this route, not the server-wide one.
      assert.match(envelopeOf(big).message, /limit of 4096 bytes/);
      const justOver = `${order.slice(0, -1)},"pad":"${'x'.repeat(4096 - order.length)}"}`;
      const over = await venue.call('/orders', { method: 'POST', token: alice.token, body: justOver });
      expectRefusal(over, 413, 1008);
      assert.match(envelopeOf(over).message, /limit of 4096 bytes/);
      const deep = `${'{"a":'.repeat(JSON_DEPTH_MAX + 1)}1${'}'.repeat(JSON_DEPTH_MAX + 1)}`;
      expectRefusal(
        await venue.call('/orders', { method: 'POST', token: alice.token, body: deep }),
        400,
        1010,
      );
      // Nesting is refused by a flat scan before any recursive parser could overflow its stack.
      const veryDeep = '['.repeat(4000);
      expectRefusal(
        await venue.call('/orders', { method: 'POST', token: alice.token, body: veryDeep }),
        400,
        1010,
      );
      // The stream: the same rules per frame.
      const stream = await venue.stream();
      await stream.login(alice.token);
      // Refused before the frame is read, so the error frames cannot echo a request_id: by seq.
      stream.send(`{"op":"ping","x":${deep}}`);
      assert.equal((await stream.next((f) => f['seq'] === 2))['code'], 1010);
      stream.send(`{"op":"ping","pad":"${'x'.repeat(20 * 1024)}"}`);
      assert.equal((await stream.next((f) => f['seq'] === 3))['code'], 1008);
      assert.equal((await stream.request({ op: 'ping' }))['op'], 'pong', 'the socket survives');
      await stream.close();
    });
  });

  test('slow-loris connections trickling a request head do not stop others being served', async () => {
    // The server's own bound on a request that never completes (limits.ts), and on connections.
    const server = venue.server.http.app.server;
    // requestTimeout covers the head too, whatever headersTimeout says.
    assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
    assert.equal(server.maxConnections, CONNECTIONS_MAX);
    const slow: tls.TLSSocket[] = [];
    const timers: NodeJS.Timeout[] = [];
    try {
      for (let i = 0; i < 32; i++) {
        const socket = tls.connect({
          host: '127.0.0.1',
          port: venue.port,
          ca: venue.identity.certPem,
          servername: 'localhost',
        });
        socket.on('error', () => {});
        await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
        const head =
          i % 2 === 0
            ? 'GET /health HTTP/1.1\r\nhost: venue\r\nx-slow: '
            : `POST /orders HTTP/1.1\r\nhost: venue\r\ncontent-type: application/json\r\ncontent-length: 5000\r\nauthorization: Bearer ${alice.token}\r\n\r\n{`;
        socket.write(head);
        timers.push(setInterval(() => socket.write('a'), 20));
        slow.push(socket);
      }
      // Meanwhile every honest request is answered.
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          venue.call(i % 2 === 0 ? '/health' : '/account', { token: alice.token }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    } finally {
      for (const timer of timers) clearInterval(timer);
      for (const socket of slow) socket.destroy();
    }
  });
});

describe('adversarial: secrets in logs', () => {
  test('no secret or order field appears in the server log, even when a request fails inside the venue', async () => {
    const logged = await TestVenue.start({
      // A dependency that fails on every proof: the fault path logs, and must log no order content.
      proofs: {
        check: async () => {
          throw new TypeError('verifier dependency failed');
        },
      },
    });
    try {
      const log = captureLogs(logged);
      const trader = await logged.trader('logged');
      const order = logged.order(
        { id: 424_242, nonce: 1n, amount: 7_777_123n, price: 9_191_910n },
        trader.key,
      );
      const failed = await logged.place(trader, order);
      expectRefusal(failed, 500, 5000);
      assert.doesNotMatch(failed.text, /verifier dependency/, 'the client sees a generic message');
      const stream = await logged.stream();
      await stream.login(trader.token);
      const reply = await stream.request({
        op: 'order.place',
        params: JSON.parse(wireJsonText(PlaceOrderSchema, order)),
      });
      assert.equal(reply['code'], 5000);
      await stream.close();
      assert.ok(log.lines.length >= 2, 'both faults were logged');
      const secrets = [
        trader.token,
        trader.apiSecret,
        trader.passphrase,
        order.order_id,
        order.note_commitment,
        order.owner_commitment,
        order.note_inner_hash,
        order.viewing_pubkey,
        order.trading_key_signature,
        '7777123',
        '9191910',
      ];
      for (const line of log.lines) {
        for (const secret of secrets) assert.ok(!line.includes(secret), `the log carries ${secret}: ${line}`);
      }
    } finally {
      await logged.stop();
    }
  });
});
