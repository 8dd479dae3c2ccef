import { EventEmitter } from 'node:events';
import {
  type CancelParams,
  type CancelResponse,
  type Channel,
  CLIENT_FRAMES,
  type ClientFrame,
  type ClientOp,
  type DeadManStatus,
  type decode,
  decodeServerMessage,
  type FillMessage,
  type InfoResponse,
  JsonNumberToken,
  type ModifyRequest,
  type ModifyResponse,
  type OrderEvent,
  type PlaceOrder,
  type PlaceResponse,
  parseJsonText,
  type ServerFrame,
  type TreeMessage,
  wireJsonText,
} from '@venue/protocol';
import WebSocket from 'ws';
import { AttestationError, StreamClosedError, statusOfCode, VenueApiError } from './errors.ts';
import {
  RECONNECT_DELAY_MS_MAX,
  RECONNECT_DELAY_MS_MIN,
  STREAM_INCOMING_BYTES_MAX,
  STREAM_PENDING_REQUESTS_MAX,
  STREAM_REQUEST_TIMEOUT_MS_DEFAULT,
  STREAM_SILENCE_MS_MAX,
} from './limits.ts';
import type { SpkiAgent } from './pinning.ts';
import type { HeldToken } from './tokens.ts';

/**
 * The session stream (spec 4.8, 6) over a pinned TLS connection: requests matched to replies by
 * `request_id`, channel events delivered as typed events, the token renewed in-band when the venue
 * warns (`auth_expired`), sequence gaps reported so the bot reconciles, and reconnection with
 * backoff. The stream is a notifier, not a log (spec 6.1): after any `gap` event the truth is
 * `GET /orders/{id}`, which VenueClient.reconcile reads.
 */

/** A hole in the frame sequence: `seq` skipped numbers, or the socket was replaced. */
export interface StreamGap {
  readonly reason: 'seq' | 'reconnect';
  /** The seq that was due. */
  readonly expectedSeq: number;
  /** The seq that arrived instead (null after a reconnect: numbering restarted at 1). */
  readonly receivedSeq: number | null;
}

export interface LoginResult {
  readonly account_id: string;
  readonly expires_at: number;
  readonly cancel_on_disconnect: boolean;
}

/** The events a VenueStream emits, with their payloads. */
export interface StreamEventMap {
  order: [OrderEvent];
  fill: [FillMessage];
  tree: [TreeMessage];
  /** Events may have been missed: reconcile the orders you care about (VenueClient.reconcile). */
  gap: [StreamGap];
  /** The venue warned of the token's expiry; the stream logs in again by itself. */
  authExpired: [{ expiresAtMs: number }];
  /** A login (first, renewal or after reconnect) succeeded. */
  login: [LoginResult];
  reconnecting: [{ attempt: number; delayMs: number; code: number; reason: string }];
  reconnected: [];
  /** An error frame that answers no request (e.g. the token was revoked), or a failed re-login. */
  venueError: [Error];
  /** The stream is closed for good: by close(), by the venue for policy, or reconnecting gave up. */
  closed: [{ code: number; reason: string; error?: Error }];
}

/** Hooks for tests of gap recovery; a production bot leaves them unset. */
export interface StreamTestHooks {
  /** Called with each incoming frame (parsed, not yet decoded) before it is processed; true drops it. */
  readonly dropIncoming?: (seq: number, frame: Readonly<Record<string, unknown>>) => boolean;
}

export interface OpenStreamOptions {
  /** Channels subscribed at open and again after every reconnect (default: orders). */
  readonly channels?: readonly Channel[];
  /** spec 4.8 rule 2: cancel this socket's resting orders when it closes. Default: account setting. */
  readonly cancelOnDisconnect?: boolean;
  /** Reconnect after an unexpected close (default true). */
  readonly reconnect?: boolean;
  /** A request without a reply within this time is rejected (default 10 s). */
  readonly requestTimeoutMs?: number;
  readonly hooks?: StreamTestHooks;
}

/** Close codes after which reconnecting would not help: a clean logout, or a policy close (suspension). */
const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([1000, 1008]);
/** Unsolicited token errors after which a new login frame is sent (spec 5 items 5 and 6). */
const RENEWABLE_TOKEN_CODES: ReadonlySet<number> = new Set([1101, 1103, 1104]);

interface Pending {
  readonly op: ClientOp;
  readonly resolve: (frame: ServerFrame) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

type Schema = Parameters<typeof decode>[0];
type ReplyOf<Op extends ServerFrame['op']> = Extract<ServerFrame, { op: Op }>;

/** What a stream needs of the VenueClient that opens it: where to connect, through what, and tokens. */
export interface StreamHost {
  readonly origin: URL;
  readonly info: InfoResponse;
  streamAgent(): SpkiAgent;
  accessToken(): Promise<HeldToken>;
  renewToken(stale?: string): Promise<HeldToken>;
  /** Checks the venue after a failed connection and moves to another attested boot if it is gone. */
  recover?(): Promise<boolean>;
}

export class VenueStream extends EventEmitter<StreamEventMap> {
  readonly #client: StreamHost;
  readonly #options: OpenStreamOptions;
  readonly #channels: Set<Channel>;
  readonly #pending = new Map<string, Pending>();
  #socket: WebSocket | null = null;
  #lastSeq = 0;
  #nextRequest = 1;
  #loginToken: string | null = null;
  #closing = false;
  #closed = false;
  #establishing = false;
  #silence: NodeJS.Timeout | null = null;

  /** @internal Use VenueClient.openStream. */
  constructor(client: StreamHost, options: OpenStreamOptions) {
    super();
    this.#client = client;
    this.#options = options;
    this.#channels = new Set(options.channels ?? ['orders']);
  }

  /** The channels this stream keeps subscribed. */
  get channels(): readonly Channel[] {
    return [...this.#channels];
  }

  get connected(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** @internal Connects, logs in and subscribes; the first failure is thrown, not retried. */
  async start(): Promise<void> {
    try {
      await this.#establish();
    } catch (error) {
      this.#closing = true;
      this.#finish(1006, 'the first connection failed', error as Error);
      throw error;
    }
  }

  /** @internal */
  onClosed(listener: () => void): void {
    this.once('closed', listener);
  }

  // ---- Requests (spec 4.8 request frames) ----

  async subscribe(channels: readonly Channel[]): Promise<readonly Channel[]> {
    for (const channel of channels) this.#channels.add(channel);
    const reply = await this.#request('subscribe', { op: 'subscribe', channels: [...channels] });
    return (reply as ReplyOf<'subscribe'>).result.channels;
  }

  async unsubscribe(channels: readonly Channel[]): Promise<readonly Channel[]> {
    for (const channel of channels) this.#channels.delete(channel);
    const reply = await this.#request('unsubscribe', { op: 'unsubscribe', channels: [...channels] });
    return (reply as ReplyOf<'unsubscribe'>).result.channels;
  }

  async place(order: PlaceOrder): Promise<PlaceResponse> {
    return (
      (await this.#request('order.place', { op: 'order.place', params: order })) as ReplyOf<'order.place'>
    ).result;
  }

  async cancel(orderId: string, params: CancelParams): Promise<CancelResponse> {
    const reply = await this.#request('order.cancel', { op: 'order.cancel', order_id: orderId, params });
    return (reply as ReplyOf<'order.cancel'>).result;
  }

  async modify(orderId: string, request: ModifyRequest): Promise<ModifyResponse> {
    const reply = await this.#request('order.modify', {
      op: 'order.modify',
      order_id: orderId,
      params: request,
    });
    return (reply as ReplyOf<'order.modify'>).result;
  }

  /** As VenueClient.armDeadMan, over the stream (frame `dead_man.arm`). */
  async armDeadMan(timeoutSlots: bigint): Promise<DeadManStatus> {
    const reply = await this.#request('dead_man.arm', {
      op: 'dead_man.arm',
      params: { timeout_slots: timeoutSlots },
    });
    return (reply as ReplyOf<'dead_man.arm'>).result;
  }

  async disarmDeadMan(): Promise<DeadManStatus> {
    const reply = await this.#request('dead_man.disarm', { op: 'dead_man.disarm' });
    return (reply as ReplyOf<'dead_man.disarm'>).result;
  }

  async ping(): Promise<void> {
    await this.#request('ping', { op: 'ping' });
  }

  /** Closes for good (no reconnect). With cancel-on-disconnect, the venue then sweeps this socket's orders. */
  async close(): Promise<void> {
    this.#closing = true;
    const socket = this.#socket;
    if (socket === null || socket.readyState === WebSocket.CLOSED) {
      this.#finish(1000, 'closed by the client');
      return;
    }
    const closed = new Promise<void>((resolve) => this.once('closed', () => resolve()));
    socket.close(1000, 'client closing');
    await closed;
  }

  // ---- Connection life cycle ----

  /**
   * Connects, logs in and subscribes. While it runs, a close of the new socket only fails the
   * attempt (the caller retries or gives up); on failure the socket is abandoned before it is
   * terminated, so its close event starts nothing.
   */
  async #establish(): Promise<void> {
    this.#establishing = true;
    try {
      await this.#establishOnce();
    } catch (error) {
      const failed = this.#socket;
      this.#socket = null;
      failed?.terminate();
      throw error;
    } finally {
      this.#establishing = false;
    }
  }

  async #establishOnce(): Promise<void> {
    const socket = await this.#connect();
    this.#socket = socket;
    this.#lastSeq = 0;
    this.#watchSilence();
    socket.on('message', (data: Buffer, isBinary: boolean) => this.#onMessage(data, isBinary));
    socket.on('ping', () => this.#watchSilence());
    socket.on('close', (code: number, reason: Buffer) =>
      this.#onClose(socket, code, reason.toString('utf8')),
    );
    socket.on('error', () => {
      // 'close' follows every error and carries the handling.
    });
    await this.#login();
    if (this.#channels.size > 0)
      await this.#request('subscribe', { op: 'subscribe', channels: [...this.#channels] });
  }

  #connect(): Promise<WebSocket> {
    const url = new URL(this.#client.info.stream_path, this.#client.origin);
    url.protocol = 'wss:';
    const socket = new WebSocket(url, {
      agent: this.#client.streamAgent(),
      perMessageDeflate: false,
      maxPayload: STREAM_INCOMING_BYTES_MAX,
      handshakeTimeout: this.#options.requestTimeoutMs ?? STREAM_REQUEST_TIMEOUT_MS_DEFAULT,
      followRedirects: false,
    });
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) => {
        reject(new StreamClosedError(`the stream upgrade was refused with HTTP ${response.statusCode}`));
        socket.terminate();
      });
    });
  }

  async #login(stale?: string): Promise<void> {
    const held =
      stale === undefined ? await this.#client.accessToken() : await this.#client.renewToken(stale);
    const reply = await this.#request('login', {
      op: 'login',
      token: held.token,
      ...(this.#options.cancelOnDisconnect === undefined
        ? {}
        : { cancel_on_disconnect: this.#options.cancelOnDisconnect }),
    });
    this.#loginToken = held.token;
    this.emit('login', (reply as ReplyOf<'login'>).result);
  }

  #relogin(): void {
    const stale = this.#loginToken ?? undefined;
    this.#login(stale).catch((error: Error) => this.emit('venueError', error));
  }

  #onClose(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.#socket) return;
    this.#clearSilence();
    this.#rejectAll(
      new StreamClosedError(
        `the stream closed (${code} ${reason}) before the reply; resend the same body to retry safely`,
      ),
    );
    if (this.#establishing) return;
    if (this.#closing || FINAL_CLOSE_CODES.has(code) || this.#options.reconnect === false) {
      this.#finish(code, reason);
      return;
    }
    void this.#reconnect(code, reason, this.#lastSeq);
  }

  async #reconnect(code: number, reason: string, lastSeq: number): Promise<void> {
    for (let attempt = 1; !this.#closing; attempt += 1) {
      const ceiling = Math.min(RECONNECT_DELAY_MS_MAX, RECONNECT_DELAY_MS_MIN * 2 ** (attempt - 1));
      const delayMs = Math.round(ceiling * (0.5 + Math.random() / 2));
      this.emit('reconnecting', { attempt, delayMs, code, reason });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (this.#closing) break;
      try {
        await this.#establish();
        // Numbering restarted at 1 on the new socket: whatever was sent meanwhile is unknown.
        this.emit('gap', { reason: 'reconnect', expectedSeq: lastSeq + 1, receivedSeq: null });
        this.emit('reconnected');
        return;
      } catch (error) {
        // A client with failover endpoints attests the new boot itself; the stream then follows it.
        if (this.#client.recover !== undefined && (await this.#client.recover())) continue;
        // A new certificate means a new boot: only a fresh connectVenue (re-attestation) may continue.
        if (error instanceof AttestationError) {
          this.#finish(code, reason, error);
          return;
        }
      }
    }
    this.#finish(code, reason);
  }

  #finish(code: number, reason: string, error?: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing = true;
    this.#clearSilence();
    this.#rejectAll(new StreamClosedError('the stream is closed'));
    this.emit('closed', { code, reason, ...(error === undefined ? {} : { error }) });
  }

  #watchSilence(): void {
    this.#clearSilence();
    this.#silence = setTimeout(() => this.#socket?.terminate(), STREAM_SILENCE_MS_MAX);
    this.#silence.unref();
  }

  #clearSilence(): void {
    if (this.#silence !== null) clearTimeout(this.#silence);
    this.#silence = null;
  }

  // ---- Frames ----

  #request(op: ClientOp, frame: Record<string, unknown>): Promise<ServerFrame> {
    const socket = this.#socket;
    if (socket === null || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new StreamClosedError(`the stream is not connected; ${op} was not sent`));
    }
    if (this.#pending.size >= STREAM_PENDING_REQUESTS_MAX) {
      return Promise.reject(new Error(`more than ${STREAM_PENDING_REQUESTS_MAX} requests await a reply`));
    }
    const requestId = `sdk-${this.#nextRequest++}`;
    const text = wireJsonText(
      CLIENT_FRAMES[op] as Schema,
      { ...frame, request_id: requestId } as ClientFrame,
    );
    const timeoutMs = this.#options.requestTimeoutMs ?? STREAM_REQUEST_TIMEOUT_MS_DEFAULT;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(requestId);
        reject(new Error(`no reply to ${op} (${requestId}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(requestId, { op, resolve, reject, timer });
      socket.send(text);
    });
  }

  #rejectAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      pending.reject(error);
    }
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    this.#watchSilence();
    let value: Record<string, unknown>;
    try {
      if (isBinary) throw new Error('binary frame');
      const parsed = parseJsonText(data.toString('utf8'), STREAM_INCOMING_BYTES_MAX);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw new Error('not an object');
      value = parsed as Record<string, unknown>;
    } catch (error) {
      this.#protocolViolation(`unreadable frame: ${(error as Error).message}`);
      return;
    }
    const seqToken = value['seq'];
    const seq = seqToken instanceof JsonNumberToken ? Number(seqToken.text) : Number.NaN;
    if (!Number.isSafeInteger(seq) || seq < 1) {
      this.#protocolViolation('a frame without a valid seq');
      return;
    }
    if (this.#options.hooks?.dropIncoming?.(seq, value) === true) return;
    // spec 6.1: the next seq must be exactly the last plus one; anything else means missed frames.
    if (seq !== this.#lastSeq + 1)
      this.emit('gap', { reason: 'seq', expectedSeq: this.#lastSeq + 1, receivedSeq: seq });
    this.#lastSeq = seq;
    let decoded: Decoded;
    try {
      decoded = decodeFrame(value);
    } catch (error) {
      this.#protocolViolation(`frame ${seq} does not match the interface: ${(error as Error).message}`);
      return;
    }
    // Outside the try: an exception in a bot's listener is the bot's, not a protocol violation.
    this.#dispatch(decoded);
  }

  /** A venue that breaks the frame contract gets its socket closed (1002) and a fresh one. */
  #protocolViolation(why: string): void {
    this.emit('venueError', new Error(`stream protocol violation: ${why}`));
    this.#socket?.close(1002, 'protocol violation');
  }

  #dispatch(decoded: Decoded): void {
    if (decoded.kind === 'channel') {
      const { message } = decoded;
      if (message.channel === 'orders') this.emit('order', message);
      else if (message.channel === 'fills') this.emit('fill', message);
      else this.emit('tree', message);
      return;
    }
    const { frame } = decoded;
    if (frame.op === 'auth_expired') {
      this.emit('authExpired', { expiresAtMs: frame.expires_at });
      this.#relogin();
      return;
    }
    const requestId = 'request_id' in frame ? frame.request_id : undefined;
    const pending = requestId === undefined ? undefined : this.#pending.get(requestId);
    if (frame.op === 'error') {
      const error = new VenueApiError({
        status: statusOfCode(frame.code),
        code: frame.code,
        message: frame.message,
        requestId,
      });
      if (pending !== undefined && requestId !== undefined) {
        this.#settle(requestId, pending);
        pending.reject(error);
        return;
      }
      this.emit('venueError', error);
      if (RENEWABLE_TOKEN_CODES.has(frame.code)) this.#relogin();
      return;
    }
    if (pending !== undefined && requestId !== undefined) {
      this.#settle(requestId, pending);
      pending.resolve(frame);
    }
  }

  #settle(requestId: string, pending: Pending): void {
    clearTimeout(pending.timer);
    this.#pending.delete(requestId);
  }
}

type Decoded =
  | { readonly kind: 'channel'; readonly message: OrderEvent | FillMessage | TreeMessage }
  | { readonly kind: 'frame'; readonly frame: ServerFrame };

/**
 * Decodes a server frame by its `op`, or a channel message by its `channel` (spec 4.8, 6), with the
 * protocol's decoder, the mirror of the encoder the venue writes them with. Fields of later minor
 * versions are ignored.
 */
function decodeFrame(value: Record<string, unknown>): Decoded {
  const message = decodeServerMessage(value, { unknownFields: 'ignore' });
  return 'channel' in message ? { kind: 'channel', message } : { kind: 'frame', frame: message };
}
