import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';

/**
 * An in-memory WebSocket for the stream server (adapters/src/stream): the few members a session
 * uses (send, close, terminate, ping, bufferedAmount, the message/pong/close events), with nothing
 * of the protocol logic. Frames the venue sends are parsed and checked here, on the connection
 * that received them, as a client would see them:
 * - `seq` starts at 1 and grows by one on every frame: no gap, no repeat (spec 4.8);
 * - an orders or fills message names an order of this connection's account only (spec 6.1).
 * A violation is recorded, not thrown (the venue calls `send` inside its own promise chains); the
 * simulator checks `violations` after every step.
 */
export type Frame = Record<string, unknown>;

export class SimSocket extends EventEmitter {
  readonly bufferedAmount = 0;
  readonly frames: Frame[] = [];
  readonly violations: string[] = [];
  /** Set by the client once a login succeeds: whose events this connection may carry. */
  accountId: string | null = null;
  closed = false;
  #seq = 0;
  readonly #waiters = new Map<string, (frame: Frame) => void>();

  constructor(
    readonly name: string,
    /** The account that placed an order, as the simulated clients know it (undefined: unknown). */
    private readonly ownerOf: (orderId: string) => string | undefined,
    /** Called with every frame after the checks (the client reads its replies here). */
    private readonly onFrame: (frame: Frame) => void,
  ) {
    super();
  }

  /** As `ws` hands it to the stream server. */
  asWebSocket(): WebSocket {
    return this as unknown as WebSocket;
  }

  // ---- The venue's side ----

  /** As ws: the venue's read budget pauses a socket that reads too fast. In memory there is no TCP
   * to hold frames back, and the simulator's clients never reach the budget, so both do nothing. */
  pause(): void {}
  resume(): void {}

  /** As ws: `flushed` runs once the frame is out (here at once, the in-memory socket never backs up). */
  send(text: string, flushed?: () => void): void {
    try {
      this.#receive(text);
    } finally {
      flushed?.();
    }
  }

  #receive(text: string): void {
    if (this.closed) return;
    let frame: Frame;
    try {
      frame = JSON.parse(text) as Frame;
    } catch {
      this.violations.push(`${this.name}: a frame is not JSON`);
      return;
    }
    this.#seq += 1;
    if (frame['seq'] !== this.#seq) {
      this.violations.push(`${this.name}: frame seq ${String(frame['seq'])}, expected ${this.#seq} (a gap)`);
      this.#seq = Number(frame['seq']);
    }
    const channel = frame['channel'];
    if (channel === 'orders' || channel === 'fills') {
      const orderId = String(frame['order_id']);
      const owner = this.ownerOf(orderId);
      if (this.accountId === null || owner !== this.accountId) {
        this.violations.push(
          `${this.name}: ${channel} message of order ${orderId} (owner ${owner}) reached account ${this.accountId}`,
        );
      }
    }
    this.frames.push(frame);
    this.onFrame(frame);
    const requestId = frame['request_id'];
    if (typeof requestId === 'string') {
      const waiter = this.#waiters.get(requestId);
      this.#waiters.delete(requestId);
      waiter?.(frame);
    }
  }

  close(_code?: number, _reason?: string): void {
    this.#end();
  }

  terminate(): void {
    this.#end();
  }

  ping(): void {
    if (!this.closed) this.emit('pong');
  }

  // ---- The client's side ----

  /** Sends a text frame to the venue. */
  deliver(text: string): void {
    if (!this.closed) this.emit('message', Buffer.from(text, 'utf8'), false);
  }

  /** Resolves with the reply that echoes `requestId` (never, if the connection dies first). */
  reply(requestId: string): Promise<Frame> {
    return new Promise((resolve) => this.#waiters.set(requestId, resolve));
  }

  /** The client hangs up. */
  hangUp(): void {
    this.#end();
  }

  #end(): void {
    if (this.closed) return;
    this.closed = true;
    // A reply that can no longer come: the waiter learns the connection is gone.
    for (const waiter of this.#waiters.values()) waiter({ op: 'connection_closed' });
    this.#waiters.clear();
    this.emit('close', 1000, Buffer.alloc(0));
  }
}
