import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { type CoreEvent, type OrderEvent, pendingSettlementEvent } from '@venue/core';
import { STREAM_CATALOGUE, VenueError } from '@venue/protocol';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AuthService } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import {
  STREAM_ACCOUNT_BUFFER_BYTES_MAX,
  STREAM_CONNECTIONS_MAX,
  STREAM_CONNECTIONS_PER_ACCOUNT_MAX,
  STREAM_FRAME_HARD_BYTES_MAX,
  STREAM_HEARTBEAT_INTERVAL_MS,
  STREAM_LOGIN_BUFFER_BYTES_MAX,
  STREAM_LOGIN_TIMEOUT_MS,
  STREAM_READ_BUCKET,
  STREAM_SOCKET_BUFFER_BYTES_MAX,
  STREAM_STOP_WAIT_MS,
} from '../config/limits.ts';
import { writeRawEnvelope } from '../http/errors.ts';
import { TokenBucket, type TokenBucketPolicy } from '../rate-limit/token-bucket.ts';
import type { OrderIntake } from '../venue/order-intake.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import { ReadBudget } from './read-budget.ts';
import {
  type ChannelFrame,
  type FillFrame,
  orderEventFrame,
  SharedChannelFrame,
  type StreamPublisher,
  type TreeFrame,
} from './stream-frames.ts';
import { CLOSE, type SessionHost, StreamSession } from './stream-session.ts';

/**
 * The session stream of spec 4.8 on the REST server's own TLS port: the only WebSocket endpoint,
 * `/v1/stream`, with the `ws` library. It owns the sessions, routes each order event to the
 * sessions of the account that placed the order (spec 6.1), bounds what waits to be sent to each
 * account, and sweeps tokens, heartbeats and disconnects.
 */
export interface StreamServerOptions {
  readonly auth: AuthService;
  readonly intake: OrderIntake;
  readonly engine: VenueEngine;
  readonly clock: VenueClock;
  /** Overrides STREAM_ACCOUNT_BUFFER_BYTES_MAX (tests use a small one). */
  readonly accountBufferBytesMax?: number;
  /** Overrides STREAM_HEARTBEAT_INTERVAL_MS (tests use a short one). */
  readonly heartbeatIntervalMs?: number;
  /** One read budget before and after login, instead of the shipped two (ReadBudget). */
  readonly readBucket?: TokenBucketPolicy;
  /** Overrides STREAM_LOGIN_TIMEOUT_MS (a test flooding before login on a loaded machine). */
  readonly loginTimeoutMs?: number;
  readonly log: { error(object: unknown, message: string): void };
}

export class StreamServer implements StreamPublisher {
  readonly #options: StreamServerOptions;
  readonly #wss: WebSocketServer;
  readonly #sessions = new Set<StreamSession>();
  readonly #byAccount = new Map<string, Set<StreamSession>>();
  readonly #heartbeat: NodeJS.Timeout;
  #closing = false;
  #slowConsumersClosed = 0;
  #deadPeersDropped = 0;
  #socketBufferPeakBytes = 0;
  #readPauses = 0;
  /** Each account's read bucket, shared by its sockets (ReadBudget); dropped once idle and full. */
  readonly #readBuckets = new Map<string, TokenBucket>();

  constructor(options: StreamServerOptions) {
    this.#options = options;
    // perMessageDeflate off: compression of attacker-chosen data costs CPU and invites
    // compression side channels on a confidential venue.
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: STREAM_FRAME_HARD_BYTES_MAX,
      perMessageDeflate: false,
      clientTracking: false,
      // One message per socket per turn of the event loop: a socket that floods tiny frames waits
      // its turn (its unread bytes back up into TCP) instead of running thousands of frames in one
      // tick while /health and every other socket wait (issue 20 finding 1).
      allowSynchronousEvents: false,
    });
    options.engine.onEvents((events) => this.#route(events));
    options.auth.onAccountChange((account) => {
      for (const session of this.#byAccount.get(account.accountId) ?? []) session.accountChanged(account);
    });
    this.#heartbeat = setInterval(
      () => this.#beat(),
      options.heartbeatIntervalMs ?? STREAM_HEARTBEAT_INTERVAL_MS,
    );
    this.#heartbeat.unref();
  }

  /** Takes over WebSocket upgrades on the HTTPS server. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(request, socket, head),
    );
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Sockets dropped for not answering a ping within a heartbeat interval, since start. */
  get deadPeersDropped(): number {
    return this.#deadPeersDropped;
  }

  /**
   * Times a socket was paused for reading faster than its read budget (ReadBudget), since start:
   * an operator metric, and how a benchmark sees a flood being held back.
   */
  get readPauses(): number {
    return this.#readPauses;
  }

  /** Sockets closed with 1011 for falling behind, since start (an operator metric). */
  get slowConsumersClosed(): number {
    return this.#slowConsumersClosed;
  }

  /**
   * The most bytes one socket has held waiting to be sent, since start, measured after each frame
   * was queued (an operator metric; at most the socket's bound plus the frame that crossed it).
   */
  get socketBufferPeakBytes(): number {
    return this.#socketBufferPeakBytes;
  }

  /** Token expiry warnings; called on every slot tick. */
  sweep(): void {
    const nowMs = this.#options.clock.nowMs();
    for (const session of this.#sessions) session.checkExpiry(nowMs);
  }

  /**
   * A fills message (spec 6.2) to the sessions of the order's account only. Sessions not subscribed
   * to the channel skip it; the per-account send bound applies as for order events. Called by the
   * settlement pipeline.
   */
  publishFill(frame: FillFrame, accountId: string): void {
    this.#publish(frame, [accountId]);
  }

  /** A tree message (spec 6.2): public data, to every session subscribed to the tree channel. */
  publishTree(frame: TreeFrame): void {
    this.#publish(frame, [...this.#byAccount.keys()]);
  }

  #publish(frame: ChannelFrame, accounts: readonly string[]): void {
    const shared = new SharedChannelFrame(frame);
    for (const id of accounts) {
      for (const session of this.#byAccount.get(id) ?? []) session.deliver(shared);
    }
  }

  /** Closes every socket with 1001 (going away); the caller then closes the HTTPS server. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#heartbeat);
    for (const session of this.#sessions) session.close(CLOSE.goingAway, 'venue stopping');
    const deadline = Date.now() + STREAM_STOP_WAIT_MS;
    while (this.#sessions.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  #upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refusal = this.#refusalOf(request);
    if (refusal !== null) {
      rejectUpgrade(socket, refusal);
      return;
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      this.accept(ws);
    });
  }

  /**
   * Starts a session on an upgraded socket. Public so that the deterministic simulator can hand in
   * an in-memory socket (packages/testing/src/sim) and a connection id of its own.
   */
  accept(ws: WebSocket, connectionId?: string): StreamSession {
    const session = new StreamSession(ws, this.#host(), connectionId);
    this.#sessions.add(session);
    const loginTimer = setTimeout(() => {
      if (session.accountId === null) session.close(CLOSE.policy, 'no login in time');
    }, this.#options.loginTimeoutMs ?? STREAM_LOGIN_TIMEOUT_MS);
    loginTimer.unref();
    const budget = new ReadBudget(
      ws,
      (data, isBinary) => session.receive(data, isBinary),
      () => (session.accountId === null ? null : this.#readBucketOf(session.accountId)),
      this.#options.readBucket,
    );
    ws.on('message', (data: Buffer, isBinary) => {
      if (budget.receive(data, isBinary)) this.#readPauses += 1;
    });
    ws.on('pong', () => {
      session.alive = true;
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearTimeout(loginTimer);
      budget.stop();
      this.#detach(session);
    });
    return session;
  }

  #refusalOf(request: IncomingMessage): VenueError | null {
    const url = request.url ?? '';
    if (this.#closing)
      return new VenueError('SHUTTING_DOWN', 'the venue is stopping; reconnect to the next boot');
    if (url.split('?', 1)[0] !== STREAM_CATALOGUE.path) {
      return new VenueError('ROUTE_NOT_FOUND', `the only WebSocket endpoint is ${STREAM_CATALOGUE.path}`);
    }
    if (url.includes('?')) {
      // spec 4.8: no credentials in the URL; a query string is refused whatever it holds.
      return new VenueError('INVALID_QUERY', 'the stream URL takes no query; log in with a login frame');
    }
    if (this.#sessions.size >= STREAM_CONNECTIONS_MAX) {
      return new VenueError(
        'TOO_MANY_CONNECTIONS',
        'the venue holds as many stream sockets as it may; retry later',
        { retryAfterMs: 5_000 },
      );
    }
    return null;
  }

  #host(): SessionHost {
    const { auth, intake, clock, log } = this.#options;
    return {
      auth,
      intake,
      clock,
      attach: (session, accountId) => {
        const sessions = this.#byAccount.get(accountId) ?? new Set<StreamSession>();
        if (sessions.size >= STREAM_CONNECTIONS_PER_ACCOUNT_MAX) {
          throw new VenueError(
            'TOO_MANY_CONNECTIONS',
            `an account may hold ${STREAM_CONNECTIONS_PER_ACCOUNT_MAX} stream sockets; close one first`,
          );
        }
        sessions.add(session);
        this.#byAccount.set(accountId, sessions);
      },
      cancelOnDisconnectDefault: (accountId) =>
        auth.accounts.byId(accountId)?.settings.cancel_on_disconnect_default ?? false,
      fault: (fault, requestId) =>
        log.error(
          { fault, ...(requestId === undefined ? {} : { request_id: requestId }) },
          'stream frame failed',
        ),
      queued: (session) => this.#enforceBounds(session),
    };
  }

  /** spec 4.8 rule 2: the socket is gone; its resting orders are cancelled if the session asked. */
  #detach(session: StreamSession): void {
    session.markClosed();
    this.#sessions.delete(session);
    const accountId = session.accountId;
    if (accountId === null) return;
    const sessions = this.#byAccount.get(accountId);
    sessions?.delete(session);
    if (sessions?.size === 0) {
      this.#byAccount.delete(accountId);
      // A full bucket forgets nothing; one still refilling stays, so reconnecting does not refill it.
      if (this.#readBuckets.get(accountId)?.isFull(performance.now())) this.#readBuckets.delete(accountId);
    }
    if (session.cancelOnDisconnect && !this.#closing) {
      this.#options.engine.record({ type: 'disconnect', connectionId: session.connectionId });
    }
  }

  #readBucketOf(accountId: string): TokenBucket {
    let bucket = this.#readBuckets.get(accountId);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.#options.readBucket ?? STREAM_READ_BUCKET, performance.now());
      this.#readBuckets.set(accountId, bucket);
    }
    return bucket;
  }

  /** spec 6.1: each order event goes to the sessions of the account that placed the order. */
  #route(events: readonly CoreEvent[]): void {
    const nowMs = this.#options.clock.nowMs();
    for (const event of events) {
      if (event.type === 'matches') {
        // A batch's matches stand for their orders' pending_settlement events (core
        // batch/pending-events.ts); each is built only for an owner with a session open.
        const { matches } = event;
        for (let k = 0; k < matches.count; k += 1) {
          const sessions = this.#byAccount.get(matches.accountId(k));
          if (sessions !== undefined)
            this.#deliver(sessions, pendingSettlementEvent(matches.event(k)), nowMs);
        }
        continue;
      }
      if (event.type !== 'order' && event.type !== 'match') continue;
      const sessions = this.#byAccount.get(event.accountId);
      if (sessions === undefined) continue;
      this.#deliver(sessions, event.type === 'order' ? event : pendingSettlementEvent(event), nowMs);
    }
  }

  #deliver(sessions: Iterable<StreamSession>, order: OrderEvent, nowMs: number): void {
    const shared = new SharedChannelFrame(orderEventFrame(order, nowMs));
    for (const session of sessions) session.deliver(shared);
  }

  /**
   * The send bounds (spec 6.1, 8; issue 20), checked after every frame a session queues, be it a
   * reply, an error or a channel message: a socket holding more than its own bound is closed with
   * 1011 at once, and so is the furthest-behind socket of an account holding more than the
   * account's. A closed socket queues nothing more, so memory per socket and per account stays
   * bounded whatever its client sends or fails to read.
   */
  #enforceBounds(session: StreamSession): void {
    const buffered = session.bufferedBytes;
    if (buffered > this.#socketBufferPeakBytes) this.#socketBufferPeakBytes = buffered;
    const accountId = session.accountId;
    if (accountId === null) {
      // Before login a socket only draws pongs and error frames: a tighter bound.
      if (buffered > STREAM_LOGIN_BUFFER_BYTES_MAX) {
        this.#closeSlow(session, 'slow consumer: read the replies before sending more');
      }
      return;
    }
    if (buffered > STREAM_SOCKET_BUFFER_BYTES_MAX) {
      this.#closeSlow(session, SLOW_CONSUMER_REASON);
      return;
    }
    this.#enforceAccount(accountId);
  }

  /** When the account's sockets hold more than its bound, the ones furthest behind are closed. */
  #enforceAccount(accountId: string): void {
    const limit = this.#options.accountBufferBytesMax ?? STREAM_ACCOUNT_BUFFER_BYTES_MAX;
    const sessions = this.#byAccount.get(accountId);
    if (sessions === undefined) return;
    let queued = 0;
    for (const session of sessions) if (!session.closed) queued += session.bufferedBytes;
    if (queued <= limit) return;
    const live = [...sessions].filter((s) => !s.closed).sort((a, b) => b.bufferedBytes - a.bufferedBytes);
    for (const session of live) {
      if (queued <= limit) break;
      queued -= session.bufferedBytes;
      this.#closeSlow(session, SLOW_CONSUMER_REASON);
    }
  }

  #closeSlow(session: StreamSession, reason: string): void {
    this.#slowConsumersClosed += 1;
    session.close(CLOSE.internal, reason);
  }

  /** Closes sockets that did not answer the last ping (half-open or dead), pings the rest. */
  #beat(): void {
    for (const session of this.#sessions) {
      if (!session.alive) {
        // A peer that did not answer one ping in a whole interval is dead or half-open: a closing
        // handshake would wait on it in vain.
        session.terminate();
        this.#deadPeersDropped += 1;
        continue;
      }
      session.alive = false;
      session.ping();
    }
  }
}

const SLOW_CONSUMER_REASON = 'slow consumer: reconnect and reconcile with GET /orders';

/** Refuses an upgrade with an HTTP error envelope, as REST would answer. */
function rejectUpgrade(socket: Duplex, error: VenueError): void {
  writeRawEnvelope(socket, error);
}
