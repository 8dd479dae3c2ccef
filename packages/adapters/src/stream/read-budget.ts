import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'ws';
import { STREAM_LOGIN_READ_BUCKET, STREAM_READ_BUCKET } from '../config/limits.ts';
import { TokenBucket, type TokenBucketPolicy } from '../rate-limit/token-bucket.ts';

type Message = readonly [data: Buffer, isBinary: boolean];

/**
 * How fast the venue handles one stream socket's frames (issue 20: `/health` and every other client
 * under a flood). Each frame spends a unit of a bucket: the socket's own STREAM_LOGIN_READ_BUCKET
 * before login, and after it STREAM_READ_BUCKET shared by all the account's sockets (so sixteen
 * sockets of one account read no faster than one, as its trading limit is the account's too). When it is empty the socket is paused, so what its client sends
 * next waits in TCP (the client's and the kernel's buffers, not the venue's), and the frames
 * `ws` had already taken off the socket wait here. They are handed on, in order, as the bucket
 * refills; reading resumes once they are all handled. Nothing is refused or dropped: every frame is
 * answered, only later, and a socket within its trading limit never waits. The send bounds (1011)
 * are untouched: they bound what the venue queues for a socket, this bounds what it reads.
 *
 * Time is the process's monotonic clock, not the venue's slot clock: the budget protects real CPU
 * time, and a test's manual clock must not freeze a socket.
 */
export class ReadBudget {
  readonly #ws: WebSocket;
  readonly #handle: (data: Buffer, isBinary: boolean) => void;
  /** The account's shared bucket once the socket has logged in, else null. */
  readonly #accountBucket: () => TokenBucket | null;
  readonly #loggedInPolicy: TokenBucketPolicy;
  #policy: TokenBucketPolicy;
  #bucket: TokenBucket;
  #loggedIn = false;
  /** Frames taken off the socket after it was paused, oldest at `#head`. */
  #waiting: Message[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  /**
   * `policy`, when given, is the budget before login and the one the account's bucket was made
   * with (tests that flood on purpose lift both).
   */
  constructor(
    ws: WebSocket,
    handle: (data: Buffer, isBinary: boolean) => void,
    accountBucket: () => TokenBucket | null,
    policy?: TokenBucketPolicy,
  ) {
    this.#ws = ws;
    this.#handle = handle;
    this.#accountBucket = accountBucket;
    this.#loggedInPolicy = policy ?? STREAM_READ_BUCKET;
    this.#policy = policy ?? STREAM_LOGIN_READ_BUCKET;
    this.#bucket = new TokenBucket(this.#policy, performance.now());
  }

  /** A frame from the socket. Returns true when it made the socket pause. */
  receive(data: Buffer, isBinary: boolean): boolean {
    if (this.#stopped) return false;
    if (this.#timer === null && this.#take()) {
      this.#handle(data, isBinary);
      return false;
    }
    this.#waiting.push([data, isBinary]);
    if (this.#timer !== null) return false;
    this.#ws.pause();
    this.#scheduleDrain();
    return true;
  }

  /** The socket closed: frames still waiting are dropped with it. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#waiting = [];
  }

  #take(): boolean {
    const nowMs = performance.now();
    if (!this.#loggedIn) {
      const shared = this.#accountBucket();
      if (shared !== null) {
        // From login on, the socket reads from its account's bucket.
        this.#loggedIn = true;
        this.#policy = this.#loggedInPolicy;
        this.#bucket = shared;
      }
    }
    return this.#bucket.take(1, nowMs) === null;
  }

  /** Waits until an eighth of the bucket has refilled, so draining goes in small batches. */
  #scheduleDrain(): void {
    const units = Math.max(1, Math.floor(this.#policy.capacity / 8));
    const missing = units - this.#bucket.available(performance.now());
    const waitMs = Math.max(1, Math.ceil((missing * 1000) / this.#policy.refillPerSecond));
    this.#timer = setTimeout(() => this.#drain(), waitMs);
    this.#timer.unref();
  }

  #drain(): void {
    this.#timer = null;
    while (!this.#stopped && this.#head < this.#waiting.length && this.#take()) {
      const [data, isBinary] = this.#waiting[this.#head] as Message;
      this.#head += 1;
      this.#handle(data, isBinary);
    }
    if (this.#stopped) return;
    if (this.#head < this.#waiting.length) {
      this.#scheduleDrain();
      return;
    }
    this.#waiting = [];
    this.#head = 0;
    this.#ws.resume();
  }
}
