// Issue 20 finding 1: every byte the venue queues for a stream socket counts against its bounds.
// A client that floods tiny frames and never reads draws an error reply for each; those replies
// used to pile up in the venue without limit. Here such a client, logged in or not, is closed with
// 1011 once its replies exceed the socket's bound, and the venue never held more than that bound
// (plus the one frame that crossed it) for it. Real TLS sockets through TestVenue; the flooding
// client pauses its socket, so the kernel's buffers fill and the backlog builds in the venue.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STREAM_LOGIN_BUFFER_BYTES_MAX, STREAM_SOCKET_BUFFER_BYTES_MAX } from '@venue/adapters';
import { STREAM_FRAME_BYTES_MAX } from '@venue/protocol';
import { TestVenue } from '@venue/testing';
import WebSocket from 'ws';

/** Far more frames than it takes to fill the kernel's buffers and then the venue's bound. */
const FLOOD_FRAMES_MAX = 200_000;
/**
 * Not JSON, so each draws an error reply. A kilobyte rather than one byte: the venue reads one frame
 * per socket per turn of its event loop, and tiny frames would mostly wait in the kernel's buffers,
 * so the client would run out of frames before the venue had answered enough of them.
 */
const FLOOD_FRAME = 'x'.repeat(1024);

/**
 * The read budget (ReadBudget) lifted: at the shipped 200 frames a second, replies build up too
 * slowly to reach a send bound within a test. The bounds must hold whatever the read rate.
 */
const FLOOD_READ_BUCKET = { capacity: 1_000_000, refillPerSecond: 1_000_000 };

/** A raw ws client: counts what it reads without parsing it, so draining a backlog is cheap. */
async function rawClient(venue: TestVenue, token?: string) {
  const socket = new WebSocket(`wss://127.0.0.1:${venue.port}/v1/stream`, {
    ca: venue.identity.certPem,
    perMessageDeflate: false,
  });
  let received = 0;
  socket.on('message', () => {
    received += 1;
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
  );
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  if (token !== undefined) {
    const login = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send(JSON.stringify({ op: 'login', request_id: 'login', token }));
    assert.match(await login, /"op":"login"/);
  }
  return { socket, closed, received: () => received };
}

/**
 * Stops reading, then sends frames that each draw an error reply until the venue has closed a
 * socket for being slow, or FLOOD_FRAMES_MAX frames went out. Returns the frames sent.
 */
async function floodUnread(socket: WebSocket, venue: TestVenue): Promise<number> {
  socket.pause();
  let sent = 0;
  const open = () => socket.readyState === WebSocket.OPEN;
  while (venue.server.stream.slowConsumersClosed === 0 && sent < FLOOD_FRAMES_MAX && open()) {
    for (let i = 0; i < 100; i += 1) socket.send(FLOOD_FRAME);
    sent += 100;
    // Let the venue read what was sent before sending more (our own send buffer stays small).
    while (socket.bufferedAmount > 64 * 1024 && open())
      await new Promise((resolve) => setTimeout(resolve, 1));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return sent;
}

/**
 * Floods `client` (which never reads) until the venue closes it, then checks the close: 1011 with
 * its reason, once, after the venue held at least `bound` bytes for it and at most one frame more.
 */
async function closedWithinBound(
  venue: TestVenue,
  client: Awaited<ReturnType<typeof rawClient>>,
  bound: number,
): Promise<string> {
  const sent = await floodUnread(client.socket, venue);
  assert.equal(
    venue.server.stream.slowConsumersClosed,
    1,
    `not closed as slow after ${sent} unread frames (socket ${client.socket.readyState === WebSocket.OPEN ? 'open' : 'closed otherwise'})`,
  );
  // The frame that crossed the bound is the only excess; an error frame is far below 16 KiB.
  const peak = venue.server.stream.socketBufferPeakBytes;
  assert.ok(peak > bound, `peak ${peak}: the bound was never reached`);
  assert.ok(peak <= bound + STREAM_FRAME_BYTES_MAX, `peak ${peak}`);
  // Reading again, the client drains its backlog and finds the close frame with its reason.
  client.socket.resume();
  const closed = await client.closed;
  assert.equal(closed.code, 1011);
  assert.match(closed.reason, /slow consumer/);
  return `${sent} frames sent, ${client.received()} frames read, peak ${peak} bytes held`;
}

describe('stream send bounds (issue 20 finding 1)', () => {
  test('a logged-in socket that floods frames and never reads is closed with 1011 within its bound', async (t) => {
    const venue = await TestVenue.start({ streamReadBucket: FLOOD_READ_BUCKET });
    try {
      const trader = await venue.trader('flooder');
      const client = await rawClient(venue, trader.token);
      t.diagnostic(await closedWithinBound(venue, client, STREAM_SOCKET_BUFFER_BYTES_MAX));
    } finally {
      await venue.stop();
    }
  });

  test('a socket that never logs in, floods and never reads is closed with 1011 within the login bound', async (t) => {
    // The login deadline is lifted too: on a loaded machine the flood can outlast the shipped 10 s,
    // and the socket would then be closed for not logging in before its replies reached the bound.
    const venue = await TestVenue.start({
      streamReadBucket: FLOOD_READ_BUCKET,
      streamLoginTimeoutMs: 300_000,
    });
    try {
      const client = await rawClient(venue);
      t.diagnostic(await closedWithinBound(venue, client, STREAM_LOGIN_BUFFER_BYTES_MAX));
    } finally {
      await venue.stop();
    }
  });
});
