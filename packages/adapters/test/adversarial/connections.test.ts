/**
 * Hostile connections (issue 20 findings 2 and 3), over the real TLS server of a TestVenue: every
 * timeout of a connection's life is the documented one (docs/security.md "Connection timeouts"),
 * one address cannot hold more than its share of connections, and a client that aborts mid-body is
 * a quiet, counted outcome rather than an internal error. Timeouts are shortened per venue so the
 * tests run fast; each only asserts that a connection is cut well before Node's own defaults would
 * cut it (60 s for a head, 120 s for a handshake), never how soon.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import tls from 'node:tls';
import {
  addressKey,
  HEADERS_TIMEOUT_MS,
  isLoopback,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
} from '@venue/adapters';
import { TestVenue } from '@venue/testing';
import { captureLogs } from './venue-logs.ts';

/** Far below Node's 60 s headers default, far above any timeout these venues configure. */
const CUT_DEADLINE_MS = 30_000;

function openTls(venue: TestVenue, localAddress?: string): Promise<tls.TLSSocket> {
  const socket = tls.connect({
    host: '127.0.0.1',
    port: venue.port,
    ca: venue.identity.certPem,
    servername: 'localhost',
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  socket.on('error', () => {});
  return new Promise((resolve, reject) => {
    socket.once('secureConnect', () => resolve(socket));
    socket.once('close', () => reject(new Error('closed before the TLS handshake completed')));
  });
}

/** Resolves once `socket` closes; fails if it is still open after CUT_DEADLINE_MS. */
function closedBeforeDeadline(socket: net.Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`still open after ${CUT_DEADLINE_MS} ms: the timeout did not hold`)),
      CUT_DEADLINE_MS,
    );
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** One GET on an open TLS connection; resolves with the status of the answer. */
function statusOver(socket: tls.TLSSocket, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status?.[1] !== undefined && text.includes('\r\n\r\n')) {
        socket.off('data', onData);
        resolve(Number(status[1]));
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error('closed before answering')));
    socket.write(`GET ${path} HTTP/1.1\r\nhost: venue\r\n\r\n`);
  });
}

/** Resolves once the venue has started reading the body of the next request it receives. */
function bodyBeingRead(venue: TestVenue): Promise<void> {
  return new Promise((resolve) => {
    venue.server.http.app.server.once('request', (request: IncomingMessage) => {
      const check = () => (request.readableFlowing === true ? resolve() : setTimeout(check, 5));
      check();
    });
  });
}

const STALLED_LOGIN =
  'POST /auth/token HTTP/1.1\r\nhost: venue\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n{';

describe('adversarial: connection timeouts', { concurrency: false }, () => {
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start({
      transport: { tlsHandshakeTimeoutMs: 1_000, headersTimeoutMs: 1_000, requestTimeoutMs: 1_000 },
    });
  });
  after(() => venue.stop());

  test('as shipped, the headers timeout is at most the request timeout, so neither outlives the other', async () => {
    const shipped = await TestVenue.start();
    try {
      const server = shipped.server.http.app.server;
      // Node 20 swaps the two when headersTimeout is larger: a body then lived 60 s, not 10 s.
      assert.equal(server.headersTimeout, HEADERS_TIMEOUT_MS);
      assert.equal(server.requestTimeout, REQUEST_TIMEOUT_MS);
      assert.ok(server.headersTimeout <= server.requestTimeout);
      assert.equal(server.keepAliveTimeout, KEEP_ALIVE_TIMEOUT_MS);
    } finally {
      await shipped.stop();
    }
  });

  test('a login body that stalls after one byte is cut at the request timeout, and others log in meanwhile', async () => {
    const log = captureLogs(venue);
    const before = venue.server.http.requestTimeouts;
    const stalled = await Promise.all(Array.from({ length: 8 }, () => openTls(venue)));
    for (const socket of stalled) socket.write(STALLED_LOGIN);
    const admin = await venue.call('/health');
    assert.equal(admin.status, 200);
    await Promise.all(stalled.map(closedBeforeDeadline));
    assert.equal(venue.server.http.requestTimeouts - before, stalled.length, 'each cut is counted');
    // A timeout is the client's doing: no error line, no stack.
    for (const line of log.lines) {
      const entry = JSON.parse(line) as { level: string };
      assert.ok(['trace', 'debug', 'info'].includes(entry.level), `logged at warn or worse: ${line}`);
      assert.doesNotMatch(line, /stack/);
    }
    assert.equal((await venue.call('/health')).status, 200, 'the venue keeps serving');
  });

  test('a connection that sends no request head is cut at the headers timeout', async () => {
    const idle = await openTls(venue);
    const trickle = await openTls(venue);
    trickle.write('GET /health HTTP/1.1\r\nhost: venue\r\nx-slow: ');
    const timer = setInterval(() => trickle.write('a'), 100);
    try {
      await Promise.all([closedBeforeDeadline(idle), closedBeforeDeadline(trickle)]);
    } finally {
      clearInterval(timer);
    }
  });

  test('a TCP connection that never starts TLS is cut at the handshake timeout', async () => {
    const raw = net.connect({ host: '127.0.0.1', port: venue.port });
    raw.on('error', () => {});
    await new Promise<void>((resolve) => raw.once('connect', () => resolve()));
    await closedBeforeDeadline(raw);
  });
});

describe('adversarial: connections per address', { concurrency: false }, () => {
  const CAP = 4;
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start({ transport: { connectionsPerAddressMax: CAP, loopbackCounted: true } });
  });
  after(() => venue.stop());

  test('the connection past the cap is refused before TLS; the first ones and other addresses still work', async () => {
    const held = await Promise.all(Array.from({ length: CAP }, () => openTls(venue)));
    const others: tls.TLSSocket[] = [];
    try {
      await assert.rejects(openTls(venue), /closed before the TLS handshake/);
      assert.equal(venue.server.http.connectionsRefusedPerAddress, 1);
      // The held connections are served as before.
      for (const socket of held) assert.equal(await statusOver(socket, '/health'), 200);
      // Another address (all of 127/8 is loopback on Linux) has its own allowance.
      others.push(await openTls(venue, '127.0.0.2'));
      assert.equal(await statusOver(others[0] as tls.TLSSocket, '/health'), 200);
      // A closed connection frees its slot.
      const first = held.shift() as tls.TLSSocket;
      first.destroy();
      await closedBeforeDeadline(first);
      let again: tls.TLSSocket | undefined;
      // The server sees the close a moment after the client: retry until the slot is free.
      while (again === undefined) again = await openTls(venue).catch(() => undefined);
      others.push(again);
      assert.equal(await statusOver(again, '/health'), 200);
    } finally {
      for (const socket of [...held, ...others]) socket.destroy();
    }
  });

  test('by default loopback peers are not counted: more than the shipped cap connect from 127.0.0.1', async () => {
    const shipped = await TestVenue.start();
    const sockets: tls.TLSSocket[] = [];
    try {
      for (let i = 0; i < 65; i++) sockets.push(await openTls(shipped));
      assert.equal(shipped.server.http.connectionsRefusedPerAddress, 0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await shipped.stop();
    }
  });

  test('addresses are counted by host: IPv4 as is, IPv4-mapped IPv6 as its IPv4, other IPv6 by /64', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:0db8:0001:0002::9%eth0'), '2001:db8:1:2::/64');
    assert.notEqual(addressKey('2001:db8:1:3::1'), addressKey('2001:db8:1:2::1'));
    assert.equal(addressKey('::1'), '0:0:0:0::/64');
    for (const loopback of ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) {
      assert.ok(isLoopback(loopback), loopback);
    }
    for (const remote of ['203.0.113.7', '::ffff:10.0.0.1', '::2', '2001:db8::1', '128.0.0.1']) {
      assert.ok(!isLoopback(remote), remote);
    }
  });
});

describe('adversarial: a client aborting mid-body', () => {
  test('is no internal error: no error line, no stack, counted, and the venue keeps serving', async () => {
    const venue = await TestVenue.start();
    try {
      const log = captureLogs(venue);
      const trader = await venue.trader('aborter');
      const heads = [
        STALLED_LOGIN,
        `POST /orders HTTP/1.1\r\nhost: venue\r\ncontent-type: application/json\r\ncontent-length: 900\r\nauthorization: Bearer ${trader.token}\r\n\r\n{"order_id":`,
      ];
      for (const head of heads) {
        const reading = bodyBeingRead(venue);
        const socket = await openTls(venue);
        socket.write(head);
        // Once the venue is reading the body, the client goes away.
        await reading;
        socket.destroy();
      }
      // Each abort leaves exactly one log line (a debug one now; an error with a stack before).
      while (log.lines.length < heads.length) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const line of log.lines) {
        const entry = JSON.parse(line) as { level: string; outcome?: string };
        assert.ok(['trace', 'debug', 'info'].includes(entry.level), `logged at warn or worse: ${line}`);
        assert.equal(entry.outcome, 'client_aborted', line);
        assert.doesNotMatch(line, /stack|fault|internal/i);
      }
      assert.equal(venue.server.http.clientAborts, heads.length);
      assert.equal((await venue.call('/health')).status, 200);
      assert.equal((await venue.call('/account', { token: trader.token })).status, 200);
    } finally {
      await venue.stop();
    }
  });
});
