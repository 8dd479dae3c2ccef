import { type MarketPauseReason, type OracleUpdate, verifyOracleUpdate } from '@venue/protocol';
import type { MarketListing } from '../venue/market-listing.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';

// The simulator and its replay files travel with the monitor they feed (the package entry exports
// this module).
export * from './oracle-simulator.ts';
export * from './price-series.ts';

/**
 * Watches every market's oracle feed and keeps the core's oracle price and market gate in step
 * (spec 1 item 8, design decisions section 2). A market pauses, alone, when its feed is:
 * - missing: no authenticated update yet (`oracle_missing`);
 * - stale: the newest update is older than the market's `oracle_max_age_slots` (`oracle_stale`);
 * - invalid: an update was refused (see OracleVerdict), or its confidence interval is wider
 *   than `max_confidence_bps` of the price (`oracle_invalid`), until a good update arrives;
 * - moving too fast: within `window_slots` the price moved more than `band_bps` from the lowest or
 *   highest price of the window: the circuit breaker pauses it for `cooldown_slots`.
 * A paused market has no oracle price in the core, so it cannot clear; cancels keep working.
 */
interface FeedState {
  publisherKey: string;
  latest: OracleUpdate | null;
  /** Set by a refused update; cleared by the next accepted one. */
  invalid: boolean;
  /** (publish slot, price) of accepted updates inside the breaker window. */
  window: { slot: bigint; price: bigint }[];
}

interface MarketState {
  readonly listing: MarketListing;
  breakerUntilSlot: bigint;
  reason: MarketPauseReason | null;
  price: bigint | null;
}

/**
 * What became of one update. Every refusal but `unknown_feed` closes the feed's markets until the
 * next accepted update: a feed that sends something wrong cannot be trusted until it sends right.
 * - `unauthenticated`: the signature is not the feed publisher's;
 * - `replayed`: its sequence is not above the last accepted one (a resend or a stale copy);
 * - `out_of_order`: a newer sequence observed at an older slot than the last accepted update;
 * - `future_slot`: observed at a slot the chain has not reached (it would look fresh for too long).
 */
export type OracleVerdict =
  | 'accepted'
  | 'unauthenticated'
  | 'replayed'
  | 'out_of_order'
  | 'future_slot'
  | 'unknown_feed';

function judgeUpdate(update: OracleUpdate, feed: FeedState, slot: bigint): OracleVerdict {
  if (!verifyOracleUpdate(update, feed.publisherKey)) return 'unauthenticated';
  const latest = feed.latest;
  if (latest !== null && update.sequence <= latest.sequence) return 'replayed';
  if (latest !== null && update.publish_slot < latest.publish_slot) return 'out_of_order';
  if (update.publish_slot > slot) return 'future_slot';
  return 'accepted';
}

export class OracleMonitor {
  readonly #engine: VenueEngine;
  readonly #feeds = new Map<string, FeedState>();
  readonly #markets: MarketState[] = [];

  constructor(
    engine: VenueEngine,
    listings: readonly MarketListing[],
    publisherKeys: ReadonlyMap<string, string>,
  ) {
    this.#engine = engine;
    for (const listing of listings) {
      const feed = listing.config.oracleFeed;
      const key = publisherKeys.get(feed);
      if (key !== undefined && !this.#feeds.has(feed)) {
        this.#feeds.set(feed, { publisherKey: key, latest: null, invalid: false, window: [] });
      }
      this.#markets.push({ listing, breakerUntilSlot: 0n, reason: null, price: null });
    }
  }

  /** The publish slot of the last update accepted for a market's feed; null before the first. */
  lastPublishSlot(marketId: string): bigint | null {
    const market = this.#markets.find((m) => m.listing.config.marketId === marketId);
    if (market === undefined) return null;
    return this.#feeds.get(market.listing.config.oracleFeed)?.latest?.publish_slot ?? null;
  }

  /** The last update accepted from a feed, or null before the first (a poller compares with it). */
  latestUpdate(feed: string): OracleUpdate | null {
    return this.#feeds.get(feed)?.latest ?? null;
  }

  /** One update from a feed (the chain's oracle account, or the dev oracle simulator). */
  receive(update: OracleUpdate, slot: bigint): OracleVerdict {
    const feed = this.#feeds.get(update.feed);
    if (feed === undefined) return 'unknown_feed';
    const verdict = judgeUpdate(update, feed, slot);
    if (verdict === 'accepted') {
      feed.latest = update;
      feed.invalid = false;
      feed.window.push({ slot: update.publish_slot, price: update.price });
    } else {
      feed.invalid = true;
    }
    this.evaluate(slot);
    return verdict;
  }

  /** Re-derives every market's gate at `slot` (called on each slot tick and after each update). */
  evaluate(slot: bigint): void {
    for (const market of this.#markets) {
      const { reason, price } = this.#judge(market, slot);
      if (reason !== market.reason) {
        market.reason = reason;
        this.#engine.record({
          type: 'market_gate',
          marketId: market.listing.config.marketId,
          pausedReason: reason,
        });
      }
      if (price !== market.price) {
        market.price = price;
        this.#engine.record({ type: 'oracle_price', marketId: market.listing.config.marketId, price });
      }
    }
  }

  #judge(market: MarketState, slot: bigint): { reason: MarketPauseReason | null; price: bigint | null } {
    const { config, oracleMaxAgeSlots, circuitBreaker } = market.listing;
    const feed = this.#feeds.get(config.oracleFeed);
    const latest = feed?.latest ?? null;
    if (feed === undefined || latest === null) return { reason: 'oracle_missing', price: null };
    if (feed.invalid) return { reason: 'oracle_invalid', price: null };
    if (slot > latest.publish_slot + oracleMaxAgeSlots) return { reason: 'oracle_stale', price: null };
    if (
      latest.price === 0n ||
      latest.confidence * 10_000n > latest.price * BigInt(circuitBreaker.max_confidence_bps)
    ) {
      return { reason: 'oracle_invalid', price: null };
    }
    feed.window = feed.window.filter((point) => point.slot + circuitBreaker.window_slots >= slot);
    if (tripped(feed.window, latest.price, BigInt(circuitBreaker.band_bps))) {
      market.breakerUntilSlot = slot + circuitBreaker.cooldown_slots;
      feed.window = [{ slot: latest.publish_slot, price: latest.price }];
    }
    if (slot < market.breakerUntilSlot) return { reason: 'circuit_breaker', price: null };
    return { reason: null, price: latest.price };
  }
}

/** The price moved more than `bandBps` away from an extreme of the window. */
function tripped(window: readonly { price: bigint }[], price: bigint, bandBps: bigint): boolean {
  for (const point of window) {
    const move = point.price > price ? point.price - price : price - point.price;
    if (move * 10_000n > point.price * bandBps) return true;
  }
  return false;
}
