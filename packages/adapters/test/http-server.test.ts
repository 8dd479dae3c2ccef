import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { after, before, describe, test } from 'node:test';
import tls, { type TLSSocket } from 'node:tls';
import { inspect } from 'node:util';
import {
  decodeJsonText,
  HealthResponseSchema,
  InfoResponseSchema,
  SystemStatusResponseSchema,
  TimeResponseSchema,
  VenueError,
} from '@venue/protocol';
import {
  BODY_BYTES_MAX,
  type BootIdentity,
  createBootIdentity,
  createHttpServer,
  createWallSlotClock,
  DEV_TREE_COUNT,
  HEADER_BYTES_MAX,
  KEEP_ALIVE_TIMEOUT_MS,
  SETTLEMENT_BUFFER_SLOTS,
  type VenueHttpServer,
} from '../src/index.ts';

/** What a client sees of one HTTPS exchange. */
interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  peerSha256: string;
}

interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with chunked encoding, so the server cannot know its size up front. */
  chunked?: boolean;
}

/** One request over real TLS, trusting only `ca`. */
function call(port: number, ca: string, path: string, options: CallOptions = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        ca,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const peer = (response.socket as TLSSocket).getPeerCertificate();
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            peerSha256: peer.fingerprint256.replaceAll(':', '').toLowerCase(),
          });
        });
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) {
      if (options.chunked) request.setHeader('transfer-encoding', 'chunked');
      else request.setHeader('content-length', Buffer.byteLength(options.body));
      request.write(options.body);
    }
    request.end();
  });
}

function envelopeOf(exchange: Exchange): { code: number; message: string } {
  assert.match(String(exchange.headers['content-type']), /^application\/json/);
  const body: unknown = JSON.parse(exchange.text);
  assert.ok(typeof body === 'object' && body !== null);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
  const { code, message } = body as { code: unknown; message: unknown };
  assert.ok(typeof code === 'number' && typeof message === 'string');
  return { code, message };
}

const GENERATED_ID = /^[A-Za-z0-9._:-]{1,64}$/;

async function startVenue(
  identity: BootIdentity,
  logLines: string[] = [],
): Promise<{ server: VenueHttpServer; port: number }> {
  const server = createHttpServer({
    identity,
    clock: createWallSlotClock(),
    parameters: {
      settlementEnabled: false,
      proofMode: 'stub',
      settlementBufferSlots: SETTLEMENT_BUFFER_SLOTS,
      treeCount: DEV_TREE_COUNT,
    },
    // Extra routes exercise the error paths that the public reads cannot reach.
    routes: [
      (app) => {
        app.get('/test/fault', async () => {
          throw new Error('disk sector 7 unreadable');
        });
        app.get('/test/venue-error', async () => {
          throw new VenueError('ORDER_NOT_FOUND', 'no order 00ff is known');
        });
        app.post('/test/echo', async (request) => ({ received: request.body }));
      },
    ],
    log: { level: 'error', stream: { write: (line: string) => logLines.push(line) } },
  });
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  return { server, port };
}

describe('HTTPS server', () => {
  let identity: BootIdentity;
  let server: VenueHttpServer;
  let port: number;
  const logLines: string[] = [];

  before(async () => {
    identity = await createBootIdentity();
    ({ server, port } = await startVenue(identity, logLines));
  });
  after(() => server.close());

  test('GET /health, /time, /info and /system/status decode with the protocol schemas', async () => {
    const health = await call(port, identity.certPem, '/health');
    assert.equal(health.status, 200);
    assert.match(String(health.headers['content-type']), /^application\/json/);
    assert.deepEqual(decodeJsonText(HealthResponseSchema, health.text), { status: 'ok' });

    // The decoder refuses a u64 sent as a string, so this also checks bigints leave as integers.
    const time = decodeJsonText(TimeResponseSchema, (await call(port, identity.certPem, '/time')).text);
    assert.equal(time.slot_duration_ms, 400);
    assert.ok(time.finalized_slot <= time.slot);
    assert.ok(Math.abs(time.server_time_ms - Date.now()) < 5_000);

    const info = decodeJsonText(InfoResponseSchema, (await call(port, identity.certPem, '/info')).text);
    assert.equal(info.session_id, identity.sessionId);
    assert.equal(info.boot_time_ms, identity.bootTimeMs);
    assert.equal(info.order_lifetime_slots_max, 4500n);
    assert.equal(info.settlement_buffer_slots, SETTLEMENT_BUFFER_SLOTS);
    assert.equal(info.stream_path, '/v1/stream');

    const statusText = (await call(port, identity.certPem, '/system/status')).text;
    const status = decodeJsonText(SystemStatusResponseSchema, statusText);
    assert.equal(status.status, 'trading');
    assert.equal(status.session_id, identity.sessionId);
  });

  test('the certificate served is the boot identity the client pins', async () => {
    const exchange = await call(port, identity.certPem, '/health');
    assert.equal(exchange.peerSha256, identity.certSha256);
  });

  test('x-request-id echoes a well-formed client id and replaces any other', async () => {
    const echoed = await call(port, identity.certPem, '/health', {
      headers: { 'x-request-id': 'bot-7:order.42_a' },
    });
    assert.equal(echoed.headers['x-request-id'], 'bot-7:order.42_a');

    for (const offered of ['has space', 'x'.repeat(65), 'quote"d']) {
      const replaced = await call(port, identity.certPem, '/health', {
        headers: { 'x-request-id': offered },
      });
      const id = String(replaced.headers['x-request-id']);
      assert.match(id, GENERATED_ID);
      assert.notEqual(id, offered);
    }
    const first = await call(port, identity.certPem, '/health');
    const second = await call(port, identity.certPem, '/health');
    assert.match(String(first.headers['x-request-id']), GENERATED_ID);
    assert.notEqual(first.headers['x-request-id'], second.headers['x-request-id']);
  });

  test('an unknown path is 404 with code 1302, carrying x-request-id', async () => {
    const exchange = await call(port, identity.certPem, '/v2/nothing-here', {
      headers: { 'x-request-id': 'r-404' },
    });
    assert.equal(exchange.status, 404);
    assert.equal(envelopeOf(exchange).code, 1302);
    assert.equal(exchange.headers['x-request-id'], 'r-404');
  });

  test('a known path with the wrong method is 405 with code 1303 and an Allow header', async () => {
    for (const method of ['POST', 'DELETE', 'PUT']) {
      const exchange = await call(port, identity.certPem, '/info', {
        method,
        headers: { 'x-request-id': 'r-405' },
      });
      assert.equal(exchange.status, 405);
      assert.equal(envelopeOf(exchange).code, 1303);
      assert.equal(exchange.headers.allow, 'GET, HEAD');
      assert.equal(exchange.headers['x-request-id'], 'r-405');
    }
  });

  test('a body over BODY_BYTES_MAX is 413 with code 1008, declared or streamed', async () => {
    const body = `"${'a'.repeat(BODY_BYTES_MAX)}"`;
    const declared = await call(port, identity.certPem, '/test/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'r-413' },
      body,
    });
    assert.equal(declared.status, 413);
    assert.equal(envelopeOf(declared).code, 1008);
    assert.equal(declared.headers['x-request-id'], 'r-413');
    assert.equal(declared.headers.connection, 'close');

    const streamed = await call(port, identity.certPem, '/test/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      chunked: true,
    });
    assert.equal(streamed.status, 413);
    assert.equal(envelopeOf(streamed).code, 1008);

    const small = await call(port, identity.certPem, '/test/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":18446744073709551615}',
    });
    assert.equal(small.status, 200);
    assert.equal(small.text, '{"received":{"amount":18446744073709551615}}');
  });

  test('bodies other than strict JSON are refused with catalogue codes', async () => {
    const post = (body: string, contentType: string) =>
      call(port, identity.certPem, '/test/echo', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
    const text = await post('hello', 'text/plain');
    assert.equal(text.status, 415);
    assert.equal(envelopeOf(text).code, 1011);
    const repeated = await post('{"a":1,"a":2}', 'application/json');
    assert.equal(repeated.status, 400);
    assert.equal(envelopeOf(repeated).code, 1000);
  });

  test('a thrown VenueError leaves as its status and envelope', async () => {
    const exchange = await call(port, identity.certPem, '/test/venue-error');
    assert.equal(exchange.status, 404);
    assert.deepEqual(envelopeOf(exchange), { code: 1300, message: 'no order 00ff is known' });
  });

  test('any other fault is 500 with code 5000 and a generic message; the log has no payload', async () => {
    logLines.length = 0;
    const exchange = await call(port, identity.certPem, '/test/fault', {
      headers: { 'x-request-id': 'r-500' },
    });
    assert.equal(exchange.status, 500);
    const envelope = envelopeOf(exchange);
    assert.equal(envelope.code, 5000);
    assert.doesNotMatch(exchange.text, /sector|unreadable|at .*\.ts/);
    assert.equal(exchange.headers['x-request-id'], 'r-500');
    const logged = logLines.join('');
    assert.match(logged, /disk sector 7 unreadable/);
    assert.match(logged, /"request_id":"r-500"/);
  });

  /** Sends raw bytes over TLS (trusting this boot only) and returns the head and body of the answer. */
  function rawExchange(request: string): Promise<{ head: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: identity.certPem }, () =>
        socket.write(request),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      socket.on('end', () => {
        const [head = '', body = ''] = text.split('\r\n\r\n');
        resolve({ head, body });
      });
      socket.on('error', reject);
    });
  }

  test('a malformed HTTP request gets the envelope straight from the socket', async () => {
    const { head, body } = await rawExchange('NOT A REQUEST LINE\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.match(head, /x-request-id: [A-Za-z0-9._:-]+/);
    assert.equal(JSON.parse(body).code, 1014);
  });

  test('a request head over the header limit gets 431 with code 1015 and the connection closes', async () => {
    const filler = 'a'.repeat(HEADER_BYTES_MAX + 1);
    const { head, body } = await rawExchange(
      `GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-filler: ${filler}\r\n\r\n`,
    );
    assert.match(head, /^HTTP\/1\.1 431 /);
    assert.equal(JSON.parse(body).code, 1015);
  });

  test('a client that trusts another certificate is refused at the TLS handshake', async () => {
    const stranger = await createBootIdentity();
    await assert.rejects(call(port, stranger.certPem, '/health'), (error: NodeJS.ErrnoException) => {
      assert.match(String(error.code), /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
      return true;
    });
  });
});

test('close() lets an in-flight request finish, closes its connection and does not wait for keep-alive', async () => {
  const identity = await createBootIdentity();
  let markEntered: () => void = () => {};
  const entered = new Promise<void>((resolveEntered) => {
    markEntered = resolveEntered;
  });
  let release: () => void = () => {};
  const held = new Promise<{ done: boolean }>((resolveBody) => {
    release = () => resolveBody({ done: true });
  });
  const server = createHttpServer({
    identity,
    clock: createWallSlotClock(),
    parameters: { settlementEnabled: false, proofMode: 'stub', settlementBufferSlots: 150n, treeCount: 1 },
    routes: [
      (app) =>
        app.get('/test/slow', () => {
          markEntered();
          return held;
        }),
    ],
    log: { level: 'silent' },
  });
  const { port } = await server.listen({ host: '127.0.0.1', port: 0 });
  const agent = new https.Agent({ keepAlive: true, ca: identity.certPem });
  try {
    const slow = new Promise<{ status: number; connection: string | undefined }>((resolveSlow, reject) => {
      https
        .get({ host: '127.0.0.1', port, path: '/test/slow', agent }, (response) => {
          response.resume();
          response.on('end', () =>
            resolveSlow({ status: response.statusCode ?? 0, connection: response.headers.connection }),
          );
        })
        .on('error', reject);
    });
    await entered;
    const startedMs = performance.now();
    const closed = server.close();
    release();
    const answer = await slow;
    await closed;
    assert.equal(answer.status, 200);
    assert.equal(answer.connection, 'close');
    assert.ok(
      performance.now() - startedMs < KEEP_ALIVE_TIMEOUT_MS,
      'close waited for the keep-alive timeout',
    );
  } finally {
    release();
    agent.destroy();
    await server.close();
  }
});

describe('boot identity', () => {
  test('two boots have different session ids, certificates and keys', async () => {
    const [a, b] = await Promise.all([createBootIdentity(), createBootIdentity()]);
    assert.match(a.sessionId, /^[0-9a-f]{64}$/);
    assert.notEqual(a.sessionId, b.sessionId);
    assert.notEqual(a.certPem, b.certPem);
    assert.notEqual(a.certSha256, b.certSha256);
    assert.notEqual(a.spkiSha256, b.spkiSha256);
  });

  test('the certificate is ECDSA P-256 for loopback, valid for days, with matching fingerprints', async () => {
    const nowMs = Date.now();
    const identity = await createBootIdentity({ nowMs });
    const cert = new X509Certificate(identity.certPem);
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.ok(cert.checkIP('127.0.0.1'));
    assert.ok(cert.checkHost('localhost'));
    assert.equal(cert.ca, false);
    const validMs = Date.parse(cert.validTo) - nowMs;
    assert.ok(validMs > 24 * 3600_000 && validMs <= 7 * 24 * 3600_000, `valid for ${validMs} ms`);
    assert.equal(identity.certSha256, cert.fingerprint256.replaceAll(':', '').toLowerCase());
    const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
    assert.equal(identity.spkiSha256, createHash('sha256').update(spki).digest('hex'));
  });

  test('the private key never shows in JSON or inspection of the identity', async () => {
    const identity = await createBootIdentity();
    assert.doesNotMatch(JSON.stringify(identity), /PRIVATE KEY/);
    assert.doesNotMatch(inspect(identity, { depth: 5, showHidden: true }), /PRIVATE KEY/);
    assert.match(identity.tlsCredentials().key, /PRIVATE KEY/);
  });
});
