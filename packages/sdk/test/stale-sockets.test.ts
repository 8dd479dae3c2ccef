// Keep-alive sockets that the venue no longer serves (after a restart, or a middlebox's idle
// timeout): the SDK sends a request that met one again exactly once, on a new connection, even when
// the pool holds several dead sockets; a request that failed on a new connection is not sent twice.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createBootIdentity } from '@venue/adapters';
import { httpExchange } from '../src/http.ts';
import { SpkiAgent } from '../src/pinning.ts';

const POOLED = 4;

/**
 * An HTTPS server whose connections belong to a generation. `restart()` starts a new one: a request
 * that arrives on a socket of an earlier generation is dropped unanswered, as a restarted venue's
 * kernel would reset it. `hold` keeps answers back until that many requests are in, so the client
 * has to open that many sockets.
 */
class GenerationServer {
  readonly server: https.Server;
  generation = 0;
  dropped = 0;
  answered = 0;
  dropNew = false;
  readonly #generationOf = new WeakMap<Socket, number>();
  #held: Array<() => void> = [];
  #hold = 0;

  constructor(credentials: { key: string; cert: string }) {
    this.server = https.createServer({ ...credentials, keepAlive: true }, (request, response) => {
      const socket = request.socket;
      if ((this.#generationOf.get(socket) ?? -1) < this.generation || this.dropNew) {
        this.dropped += 1;
        socket.destroy();
        return;
      }
      const answer = () => {
        this.answered += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      };
      this.#held.push(answer);
      if (this.#held.length >= this.#hold) {
        const ready = this.#held;
        this.#held = [];
        this.#hold = 0;
        for (const release of ready) release();
      }
    });
    this.server.on('secureConnection', (socket) => this.#generationOf.set(socket, this.generation));
  }

  holdUntil(count: number): void {
    this.#hold = count;
  }

  restart(): void {
    this.generation += 1;
  }
}

let server: GenerationServer;
let origin: URL;
let pin: string;

before(async () => {
  const identity = await createBootIdentity();
  pin = identity.spkiSha256;
  server = new GenerationServer(identity.tlsCredentials());
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  origin = new URL(`https://127.0.0.1:${address.port}`);
});
after(() => new Promise<void>((resolve) => server.server.close(() => resolve())));

const get = (agent: SpkiAgent) =>
  httpExchange(agent, origin, { method: 'GET', path: '/x', timeoutMs: 5_000 });

/** An agent with POOLED idle keep-alive sockets, all of the server's current generation. */
async function agentWithPool(): Promise<SpkiAgent> {
  const agent = new SpkiAgent({ pin, keepAlive: true, socketsMax: 8 });
  server.holdUntil(POOLED);
  const exchanges = await Promise.all(Array.from({ length: POOLED }, () => get(agent)));
  assert.ok(exchanges.every((exchange) => exchange.status === 200));
  const idle = Object.values(agent.freeSockets).reduce((sum, sockets) => sum + (sockets?.length ?? 0), 0);
  assert.equal(idle, POOLED, 'the agent pools one idle socket per concurrent request');
  return agent;
}

describe('stale keep-alive sockets', () => {
  test('after a restart, a pool of dead sockets costs one dropped copy and the request is answered', async () => {
    const agent = await agentWithPool();
    server.restart();
    const droppedBefore = server.dropped;
    const answeredBefore = server.answered;
    const exchange = await get(agent);
    assert.equal(exchange.status, 200);
    assert.equal(exchange.spkiSha256, pin, 'the new connection was checked against the pin');
    assert.equal(server.dropped - droppedBefore, 1, 'only the first copy met a dead socket');
    assert.equal(server.answered - answeredBefore, 1);
    // The dead sockets are gone from the pool: the next request goes straight through.
    assert.equal((await get(agent)).status, 200);
    assert.equal(server.dropped - droppedBefore, 1);
    agent.destroy();
  });

  test('a request that fails on a new connection is not sent again (the venue may have read it)', async () => {
    const agent = new SpkiAgent({ pin, keepAlive: true, socketsMax: 8 });
    server.dropNew = true;
    const droppedBefore = server.dropped;
    try {
      await assert.rejects(get(agent), (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET');
      assert.equal(server.dropped - droppedBefore, 1, 'one copy only');
    } finally {
      server.dropNew = false;
      agent.destroy();
    }
  });

  test('dropIdleSockets closes idle sockets and leaves the agent usable', async () => {
    const agent = await agentWithPool();
    agent.dropIdleSockets();
    // A destroyed socket leaves the pool when its close event comes; until then Node skips it.
    const live = Object.values(agent.freeSockets)
      .flatMap((sockets) => sockets ?? [])
      .filter((s) => !s.destroyed);
    assert.equal(live.length, 0);
    assert.equal((await get(agent)).status, 200);
    agent.destroy();
  });
});
