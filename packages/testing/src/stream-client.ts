import { decodeServerMessage, parseJsonText, stringifyJson } from '@venue/protocol';
import WebSocket from 'ws';

/**
 * A real `ws` client of the venue's stream, trusting only the boot's certificate. It records every
 * frame the venue sends, so tests can check seq gaps, and lets a test wait for a frame that
 * matches a predicate.
 */
export type Frame = Record<string, unknown>;

export class StreamClient {
  readonly socket: WebSocket;
  readonly frames: Frame[] = [];
  /** Frames that broke the protocol's own schema for their op or channel (should stay empty). */
  readonly violations: string[] = [];
  #waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  #nextRequest = 1;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => {
      // Test values stay below 2^53, so plain JSON.parse reads them exactly.
      const text = data.toString('utf8');
      const frame = JSON.parse(text) as Frame;
      const violation = schemaViolation(text, frame);
      if (violation !== null) this.violations.push(violation);
      this.frames.push(frame);
      for (const waiter of [...this.#waiters]) {
        if (waiter.match(frame)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(frame);
        }
      }
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
  }

  static connect(port: number, ca: string, path = '/v1/stream'): Promise<StreamClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`wss://127.0.0.1:${port}${path}`, { ca, perMessageDeflate: false });
      const client = new StreamClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`upgrade refused with HTTP ${response.statusCode}`)),
      );
    });
  }

  send(frame: Frame | string): void {
    this.socket.send(typeof frame === 'string' ? frame : stringifyJson(frame));
  }

  /** Sends a frame with a fresh request_id and resolves with the frame that echoes it. */
  request(frame: Frame, timeoutMs = 5000): Promise<Frame> {
    const requestId = `r${this.#nextRequest++}`;
    const reply = this.next((f) => f['request_id'] === requestId, timeoutMs);
    this.send({ ...frame, request_id: requestId });
    return reply;
  }

  /** The first frame, already received or still to come, that matches. */
  next(match: (frame: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching frame within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.#waiters.push({
        match,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      });
    });
  }

  async login(token: string, cancelOnDisconnect?: boolean): Promise<Frame> {
    return this.request({
      op: 'login',
      token,
      ...(cancelOnDisconnect === undefined ? {} : { cancel_on_disconnect: cancelOnDisconnect }),
    });
  }

  /** Closes the socket, and fails if any frame the venue sent broke the protocol's schemas. */
  async close(): Promise<{ code: number; reason: string }> {
    this.socket.close(1000);
    const closed = await this.closed;
    if (this.violations.length > 0)
      throw new Error(`frames outside the schema: ${this.violations.join('; ')}`);
    return closed;
  }
}

/** Checks one server frame strictly against its schema, as the protocol's decoder reads it. */
function schemaViolation(text: string, frame: Frame): string | null {
  try {
    decodeServerMessage(parseJsonText(text, Number.MAX_SAFE_INTEGER));
    return null;
  } catch (error) {
    return `${String(frame['op'] ?? frame['channel'])}: ${(error as Error).message}`;
  }
}
