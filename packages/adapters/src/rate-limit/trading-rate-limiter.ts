import { VenueError } from '@venue/protocol';
import { TRADING_BUCKET, TRADING_COST, TRADING_RESERVE_UNITS } from '../config/limits.ts';
import { hintsOf, TokenBucket } from './token-bucket.ts';

/**
 * Per-account limit on trading requests (spec 8 leaves the numbers to us; docs/api.md states them).
 * REST and the stream draw from the same bucket, so a second connection buys nothing. A place or a
 * modify may only spend down to TRADING_RESERVE_UNITS; cancels may spend the reserve too, so a
 * client that hit its limit can still take its orders out of the market.
 */
export type TradingAction = keyof typeof TRADING_COST;

export class TradingRateLimiter {
  readonly #buckets = new Map<string, TokenBucket>();
  /** Refusals since start, by action (an operator metric; no account is kept with them). */
  readonly refusals: Record<TradingAction, number> = { place: 0, modify: 0, cancel: 0, read: 0 };

  /** Charges the account for one request, or throws TRADING_RATE_LIMITED with the wait. */
  charge(accountId: string, action: TradingAction, nowMs: number): void {
    let bucket = this.#buckets.get(accountId);
    if (bucket === undefined) {
      bucket = new TokenBucket(TRADING_BUCKET, nowMs);
      this.#buckets.set(accountId, bucket);
    }
    const floor = action === 'cancel' ? 0 : TRADING_RESERVE_UNITS;
    const refusal = bucket.take(TRADING_COST[action], nowMs, floor);
    if (refusal !== null) {
      this.refusals[action] += 1;
      throw new VenueError(
        'TRADING_RATE_LIMITED',
        `trading request rate limit reached for this account; retry in ${refusal.retryAfterMs} ms` +
          (action === 'cancel' ? '' : ' (cancels are still accepted)'),
        hintsOf(refusal),
      );
    }
  }

  /** Drops buckets that are full again: they hold no state worth keeping. Called periodically. */
  sweep(nowMs: number): void {
    for (const [accountId, bucket] of this.#buckets) {
      if (bucket.isFull(nowMs)) this.#buckets.delete(accountId);
    }
  }
}
