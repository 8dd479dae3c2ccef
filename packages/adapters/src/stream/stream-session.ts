import { randomBytes } from 'node:crypto';
import {
  type Channel,
  type ClientFrame,
  decodeClientFrame,
  type EncodedServerMessage,
  encodeServerMessage,
  isVenueError,
  parseJsonText,
  STREAM_FRAME_BYTES_MAX,
  VenueError,
} from '@venue/protocol';
import type { WebSocket } from 'ws';
import type { Account } from '../accounts/account-registry.ts';
import { type AuthService, accountDisabled, type Principal } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import {
  STREAM_AUTH_WARNING_MS,
  STREAM_CLOSE_GRACE_MS,
  STREAM_FRAMES_IN_FLIGHT_MAX,
} from '../config/limits.ts';
import { toVenueError } from '../http/errors.ts';
import type { OrderIntake } from '../venue/order-intake.ts';
import {
  authExpiredFrame,
  errorFrame,
  type OutboundFrame,
  type ReplyFrame,
  type SharedChannelFrame,
  withRequestId,
} from './stream-frames.ts';

/** What a session needs from the stream server that owns it. */
export interface SessionHost {
  readonly auth: AuthService;
  readonly intake: OrderIntake;
  readonly clock: VenueClock;
  /** Registers the session under its account; throws TOO_MANY_CONNECTIONS past the limit. */
  attach(session: StreamSession, accountId: string): void;
  /** The account's default for cancel-on-disconnect (spec 2.9). */
  cancelOnDisconnectDefault(accountId: string): boolean;
  /** Logs a fault without any frame content, with the frame's request_id when it had one. */
  fault(summary: { type: string; message: string }, requestId: string | undefined): void;
  /**
   * Called after every frame the session hands to its socket: the host checks the socket's and the
   * account's send bounds and closes the socket (1011) when this frame took it over.
   */
  queued(session: StreamSession): void;
}

/** Close codes (RFC 6455 section 7.4.1) and the reasons sent with them. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  policy: 1008,
  tooBig: 1009,
  internal: 1011,
} as const;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A frame's reply, or null when the step sends its own (logout). */
type StepReply = ReplyFrame | null;

/** The part of a frame's work that runs in frame order, once its checks have passed. */
type FrameStep = () => StepReply | Promise<StepReply>;

/**
 * One WebSocket connection of spec 4.8. Frames are handled in arrival order: each frame's checks
 * (token, signatures, proof) start at once, but replies and order sequencing follow the order the
 * client sent them, so a burst of signed orders keeps its nonces in order. Every frame the session
 * sends carries the next `seq` (from 1, no gaps).
 */
export class StreamSession {
  readonly connectionId: string;
  readonly #socket: WebSocket;
  readonly #host: SessionHost;
  #seq = 0;
  /**
   * The last login's principal. It is kept after its token stops being valid (expired, revoked), so
   * every frame is refused with REST's code for that state until a new login replaces it.
   */
  #principal: Principal | null = null;
  /** The token whose revocation this session was told of (once, not on every account change). */
  #toldRevokedTokenId: string | null = null;
  /** The account this socket belongs to once it has logged in; a socket never changes account. */
  #accountId: string | null = null;
  readonly #channels = new Set<Channel>();
  #cancelOnDisconnect = false;
  #warnedForTokenId: string | null = null;
  #tail: Promise<void> = Promise.resolve();
  /** Replies in frame order; a reply may wait for its command to be durable. */
  #replies: Promise<void> = Promise.resolve();
  #loginPending: Promise<void> | null = null;
  /** Frames received whose reply has not yet left for the kernel (issue 20: flushed, not queued). */
  #inFlight = 0;
  #closed = false;
  alive = true;

  /** `connectionId` is random unless given (the deterministic simulator names its connections). */
  constructor(socket: WebSocket, host: SessionHost, connectionId = randomBytes(16).toString('hex')) {
    this.#socket = socket;
    this.#host = host;
    this.connectionId = connectionId;
  }

  get accountId(): string | null {
    return this.#accountId;
  }

  get cancelOnDisconnect(): boolean {
    return this.#accountId !== null && this.#cancelOnDisconnect;
  }

  get bufferedBytes(): number {
    return this.#socket.bufferedAmount;
  }

  get closed(): boolean {
    return this.#closed;
  }

  // ---- Inbound ----

  /** One text or binary message from the client. Never throws: every failure is an error frame. */
  receive(data: Buffer, isBinary: boolean): void {
    // A closing socket may still deliver what its client sent; nothing more is answered on it.
    if (this.#closed) return;
    let requestId: string | undefined;
    let frame: ClientFrame | null = null;
    let refusal: unknown = null;
    try {
      if (isBinary) throw new VenueError('MALFORMED_JSON', 'send frames as text messages holding JSON');
      if (data.length > STREAM_FRAME_BYTES_MAX) {
        throw new VenueError('BODY_TOO_LARGE', `a frame may hold at most ${STREAM_FRAME_BYTES_MAX} bytes`);
      }
      const json = parseJsonText(data.toString('utf8'), STREAM_FRAME_BYTES_MAX);
      requestId = requestIdOf(json);
      frame = decodeClientFrame(json);
    } catch (error) {
      refusal = error;
    }
    // Refused frames count too: their error replies are bytes the client has to read.
    if (this.#inFlight >= STREAM_FRAMES_IN_FLIGHT_MAX) {
      this.#sendError(
        new VenueError(
          'VENUE_BUSY',
          `at most ${STREAM_FRAMES_IN_FLIGHT_MAX} frames may await replies; wait for some`,
        ),
        requestId,
      );
      return;
    }
    if (frame === null) {
      this.#enqueue(Promise.reject(refusal), requestId);
      return;
    }
    const done = this.#enqueue(this.#prepare(frame), frame.request_id);
    if (frame.op === 'login') {
      // Frames pipelined behind a login (login, subscribe, place without waiting) act for the
      // account that login establishes, so their checks wait for it.
      const pending = done.then(() => {
        if (this.#loginPending === pending) this.#loginPending = null;
      });
      this.#loginPending = pending;
    }
  }

  /**
   * Starts a frame's work now and queues its completion behind the frames before it. `prepared`
   * resolves to the step that must run in order (sequencing an order, changing subscriptions).
   */
  #enqueue(prepared: Promise<FrameStep>, requestId: string | undefined): Promise<void> {
    // Attach a handler at once so a failure is never reported as unhandled while it waits its turn.
    const settled = prepared.then(
      (run) => ({ run, error: null }),
      (error: unknown) => ({ run: null, error }),
    );
    this.#inFlight += 1;
    this.#tail = this.#tail.then(async () => {
      const { run, error } = await settled;
      if (this.#closed) {
        this.#inFlight -= 1;
        return;
      }
      // The step runs now, in frame order (an order is sequenced here); its reply may wait for the
      // journal. Replies leave in frame order through their own chain, so a frame whose record is
      // being made durable does not hold back the sequencing of the frames behind it.
      let outcome: Promise<StepReply>;
      try {
        if (error !== null) throw error;
        outcome = Promise.resolve(run?.() ?? null);
      } catch (failure) {
        outcome = Promise.reject(failure);
      }
      // A refusal may come while an earlier reply still waits for the disk: mark it handled now (its
      // error frame still goes out in turn below), or Node ends the process on an unhandled rejection.
      outcome.catch(() => undefined);
      // The frame stays in flight until its reply has left for the kernel, so a client that does
      // not read reaches the in-flight bound instead of the venue holding its replies.
      const flushed = once(() => {
        this.#inFlight -= 1;
      });
      this.#replies = this.#replies
        .then(() => outcome)
        .then(
          (reply) => {
            if (reply === null) flushed();
            else this.send({ ...reply, ...withRequestId(requestId) }, flushed);
          },
          (failure: unknown) => this.#sendError(failure, requestId, flushed),
        );
    });
    return this.#tail;
  }

  async #prepare(frame: ClientFrame): Promise<FrameStep> {
    const { intake } = this.#host;
    if (frame.op !== 'login' && this.#loginPending !== null) await this.#loginPending;
    switch (frame.op) {
      case 'login':
        return this.#login(frame.token, frame.cancel_on_disconnect);
      case 'ping':
        return () => ({ op: 'pong' });
      case 'logout':
        return () => {
          this.send({ op: 'logout', ...withRequestId(frame.request_id), result: {} });
          this.close(CLOSE.normal, 'logout');
          return null;
        };
      case 'subscribe':
      case 'unsubscribe': {
        this.#requireLogin();
        const channels = frame.channels;
        const subscribe = frame.op === 'subscribe';
        return () => {
          this.#requireLogin();
          for (const channel of channels) {
            if (subscribe) this.#channels.add(channel);
            else this.#channels.delete(channel);
          }
          return { op: frame.op, result: { channels: [...this.#channels].sort() } };
        };
      }
      case 'order.place': {
        const run = await intake.preparePlace(frame.params, this.#requireLogin(), this.connectionId);
        return async () => ({ op: 'order.place', result: await run() });
      }
      case 'order.cancel': {
        const run = await intake.prepareCancel(frame.order_id, frame.params, this.#requireLogin());
        return async () => ({ op: 'order.cancel', result: await run() });
      }
      case 'order.modify': {
        const run = await intake.prepareModify(
          frame.order_id,
          frame.params,
          this.#requireLogin(),
          this.connectionId,
        );
        return async () => ({ op: 'order.modify', result: await run() });
      }
      case 'dead_man.arm': {
        const accountId = this.#requireLogin();
        const timeoutSlots = frame.params.timeout_slots;
        return async () => ({ op: 'dead_man.arm', result: await intake.setDeadMan(timeoutSlots, accountId) });
      }
      case 'dead_man.disarm': {
        const accountId = this.#requireLogin();
        return async () => ({ op: 'dead_man.disarm', result: await intake.setDeadMan(null, accountId) });
      }
    }
  }

  /** spec 4.8 rule 3: a new login refreshes the token; subscriptions stay. */
  async #login(token: string, cancelOnDisconnect: boolean | undefined) {
    const { auth, clock } = this.#host;
    const checked = await auth.authenticateToken(token, 'bearer', clock.nowMs());
    return (): ReplyFrame => {
      // Checked again in turn: a disable or revocation while the frame waited is not missed.
      const principal = auth.recheck(checked.claims, clock.nowMs());
      const accountId = principal.account.accountId;
      if (this.#accountId !== null && this.#accountId !== accountId) {
        throw new VenueError(
          'INVALID_TOKEN',
          'this session belongs to another account; open a new connection to log in as this one',
        );
      }
      if (this.#accountId === null) this.#host.attach(this, accountId);
      this.#accountId = accountId;
      this.#principal = principal;
      // spec 4.8 rule 2: the login's own value wins, else the account default at this login.
      this.#cancelOnDisconnect = cancelOnDisconnect ?? this.#host.cancelOnDisconnectDefault(accountId);
      return {
        op: 'login',
        result: {
          account_id: accountId,
          expires_at: principal.claims.expiresAtMs,
          cancel_on_disconnect: this.#cancelOnDisconnect,
        },
      };
    };
  }

  /**
   * The account the session may act for now. Throws NOT_LOGGED_IN before any login; after one,
   * the held token is checked exactly as REST checks it, so an expired, revoked or suspended
   * session gets REST's code and message (1103, 1104, 1106; spec 7).
   */
  #requireLogin(): string {
    if (this.#principal === null) {
      throw new VenueError('NOT_LOGGED_IN', 'log in first: send {"op":"login","token":...}');
    }
    return this.#host.auth.recheck(this.#principal.claims, this.#host.clock.nowMs()).account.accountId;
  }

  /** True while the held token is valid: channel messages go out only then. */
  #live(): boolean {
    if (this.#principal === null) return false;
    try {
      this.#host.auth.recheck(this.#principal.claims, this.#host.clock.nowMs());
      return true;
    } catch {
      return false;
    }
  }

  // ---- Outbound ----

  /**
   * Sends a frame with the next seq, encoded through its protocol schema (a frame that breaks it
   * fails an assertion instead of leaving). Frames to a closed socket are dropped. `flushed` runs
   * once the frame has left for the kernel, or at once when it is dropped.
   */
  send(frame: OutboundFrame, flushed: () => void = noop): void {
    if (this.#closed) flushed();
    else this.#write(encodeServerMessage(frame), flushed);
  }

  /** Every frame leaves here, so every byte the session queues is checked against its bounds. */
  #write(encoded: EncodedServerMessage, flushed: () => void = noop): void {
    this.#seq += 1;
    // ws calls back once the bytes are written to the socket, or with an error if it closed first.
    this.#socket.send(encoded.withSeq(this.#seq), () => flushed());
    this.#host.queued(this);
  }

  /** A channel message (orders, fills, tree), if the session is logged in and subscribed. */
  deliver(message: SharedChannelFrame): boolean {
    // Withheld, not queued, while the token is not valid; the session was told why once already.
    if (this.#closed || !this.#channels.has(message.frame.channel) || !this.#live()) return false;
    this.#write(message.encoded);
    return true;
  }

  /** Called by the server's sweep: warns before expiry (spec 4.8 auth_expired). */
  checkExpiry(nowMs: number): void {
    const principal = this.#principal;
    if (principal === null || this.#closed) return;
    const { expiresAtMs, tokenId } = principal.claims;
    if (nowMs >= expiresAtMs - STREAM_AUTH_WARNING_MS && this.#warnedForTokenId !== tokenId) {
      this.#warnedForTokenId = tokenId;
      this.send(authExpiredFrame(expiresAtMs));
    }
  }

  /**
   * The session's account changed. Suspension closes the socket whatever its token's state (spec
   * 4.7: at once on the WebSocket); a revoked token is told once with REST's 1104, and the socket
   * stays open for a new login (spec 3.3: revocation leaves logins working; spec 4.8 rule 3).
   */
  accountChanged(account: Account): void {
    if (this.#closed) return;
    if (account.status === 'suspended') {
      this.#sendError(accountDisabled(), undefined);
      this.close(CLOSE.policy, 'account disabled');
      return;
    }
    const principal = this.#principal;
    if (principal === null) return;
    try {
      this.#host.auth.recheck(principal.claims, this.#host.clock.nowMs());
    } catch (error) {
      const revoked = isVenueError(error) && error.errorName === 'TOKEN_REVOKED';
      if (revoked && this.#toldRevokedTokenId !== principal.claims.tokenId) {
        this.#toldRevokedTokenId = principal.claims.tokenId;
        this.#sendError(error, undefined);
      }
    }
  }

  /** A transport-level ping; the pong sets `alive` again (dead peers are found this way). */
  ping(): void {
    if (!this.#closed) this.#socket.ping();
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.close(code, reason);
    const socket = this.#socket;
    setTimeout(() => socket.terminate(), STREAM_CLOSE_GRACE_MS).unref();
  }

  /** Drops the connection without a closing handshake: for a peer that no longer answers. */
  terminate(): void {
    this.#closed = true;
    this.#socket.terminate();
  }

  /** The socket is gone (closed by either side); nothing more is sent. */
  markClosed(): void {
    this.#closed = true;
  }

  #sendError(error: unknown, requestId: string | undefined, flushed: () => void = noop): void {
    const { venueError, fault } = toVenueError(error);
    if (fault !== undefined) this.#host.fault(fault, requestId);
    this.send(errorFrame(venueError, requestId), flushed);
  }
}

function noop(): void {}

/** `run` at most once, however often the result is called (ws may call back after a close too). */
function once(run: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    run();
  };
}

/** The frame's request_id when it is well formed, so even a refused frame's error can echo it. */
function requestIdOf(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || !('request_id' in json)) return undefined;
  const value = json.request_id;
  return typeof value === 'string' && REQUEST_ID.test(value) ? value : undefined;
}
