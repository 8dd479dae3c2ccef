import { assert, type RetryHints } from '@venue/protocol';

/**
 * A token bucket in integer units: it holds at most `capacity` units and regains `refillPerSecond`
 * units every second, continuously. Time is handed in (milliseconds), so tests drive it and the
 * bucket itself never reads a clock. Fractions of a unit are kept in milli-units so that slow
 * refill rates (one unit every few seconds) lose nothing to rounding.
 */
export interface TokenBucketPolicy {
  readonly capacity: number;
  readonly refillPerSecond: number;
}

/** What a refused take tells the caller: how long until the same take would succeed. */
export interface BucketRefusal {
  readonly retryAfterMs: number;
  /** Whole units the bucket holds now (fewer than the take needed). */
  readonly held: number;
  /** The bucket's capacity. */
  readonly capacity: number;
}

/** The retry hints of a refusal, for the 429's `Retry-After` and `x-ratelimit-*` headers. */
export function hintsOf(refusal: BucketRefusal): RetryHints {
  return {
    retryAfterMs: refusal.retryAfterMs,
    rateLimit: { limit: refusal.capacity, remaining: refusal.held, resetMs: refusal.retryAfterMs },
  };
}

export class TokenBucket {
  readonly #policy: TokenBucketPolicy;
  /** Milli-units currently held. */
  #milliUnits: number;
  #updatedMs: number;

  constructor(policy: TokenBucketPolicy, nowMs: number) {
    assert(
      Number.isInteger(policy.capacity) && policy.capacity > 0,
      'bucket capacity must be a positive integer',
    );
    assert(policy.refillPerSecond > 0, 'bucket refill rate must be positive');
    this.#policy = policy;
    this.#milliUnits = policy.capacity * 1000;
    this.#updatedMs = nowMs;
  }

  /**
   * Takes `cost` units if, after the take, at least `floor` units would remain; otherwise takes
   * nothing and says when to retry. A floor lets cheap, important requests (cancels) keep a reserve
   * that costly ones (places) cannot spend.
   */
  take(cost: number, nowMs: number, floor = 0): BucketRefusal | null {
    assert(cost > 0 && cost + floor <= this.#policy.capacity, 'take: cost and floor must fit the bucket');
    this.#refill(nowMs);
    const needed = (cost + floor) * 1000;
    if (this.#milliUnits >= needed) {
      this.#milliUnits -= cost * 1000;
      return null;
    }
    const missing = needed - this.#milliUnits;
    return {
      retryAfterMs: Math.ceil(missing / this.#policy.refillPerSecond),
      held: Math.floor(this.#milliUnits / 1000),
      capacity: this.#policy.capacity,
    };
  }

  /**
   * Gives back `units` taken earlier (a reservation that turned out not to be owed), never above
   * the capacity.
   */
  refund(units: number, nowMs: number): void {
    assert(units > 0 && units <= this.#policy.capacity, 'refund: units must fit the bucket');
    this.#refill(nowMs);
    this.#milliUnits = Math.min(this.#policy.capacity * 1000, this.#milliUnits + units * 1000);
  }

  /** Whole units held now (for tests and metrics). */
  available(nowMs: number): number {
    this.#refill(nowMs);
    return Math.floor(this.#milliUnits / 1000);
  }

  /** True when the bucket is full, so a table of buckets can drop it without losing anything. */
  isFull(nowMs: number): boolean {
    this.#refill(nowMs);
    return this.#milliUnits >= this.#policy.capacity * 1000;
  }

  #refill(nowMs: number): void {
    // A clock that steps back (NTP) must not mint units: elapsed time is never negative.
    const elapsedMs = Math.max(0, nowMs - this.#updatedMs);
    this.#updatedMs = Math.max(this.#updatedMs, nowMs);
    const gained = Math.floor(elapsedMs * this.#policy.refillPerSecond);
    this.#milliUnits = Math.min(this.#policy.capacity * 1000, this.#milliUnits + gained);
  }
}
