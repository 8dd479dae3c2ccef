import { VenueError } from '@venue/protocol';

/**
 * A bound on credential checks in flight (spec 4.2 and 8: at capacity the token endpoint refuses at
 * once with 503/1402 instead of queueing). Queueing would let a burst of logins pile up behind slow
 * KDF runs and time out anyway; an immediate refusal tells the client to back off now.
 */
export class VerificationGate {
  readonly #capacity: number;
  #inFlight = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Runs `work` if a slot is free, else throws AUTH_AT_CAPACITY without running it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.#capacity) {
      throw new VenueError(
        'AUTH_AT_CAPACITY',
        'credential verification is at capacity; retry in a second (the request was not queued)',
        { retryAfterMs: 1_000 },
      );
    }
    this.#inFlight += 1;
    try {
      return await work();
    } finally {
      this.#inFlight -= 1;
    }
  }
}
