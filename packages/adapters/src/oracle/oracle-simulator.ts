import { randomInt } from 'node:crypto';
import {
  assert,
  generateTradingKey,
  type OracleUpdate,
  signOracleUpdate,
  type TradingKey,
} from '@venue/protocol';
import { DEFAULT_CONFIDENCE_DIVISOR, type PriceSeries } from './price-series.ts';

/**
 * An oracle publisher for development and tests: one Ed25519 publisher key per feed, and on every
 * step one signed update per feed, exactly as a real feed's updates reach the monitor. Each feed
 * either replays a recorded price series (when the series names its symbol) or walks randomly:
 * at most 0.1 % a step and never more than 1 % from its start price, so the circuit breaker stays
 * quiet unless a developer pushes it. A replay either loops or, at its end, holds: stops
 * publishing, so its markets go stale after their `oracle_max_age_slots` (rehearsing an outage).
 */
export interface SimulatedFeed {
  readonly feed: string;
  readonly symbol: string;
  /** Where the random walk starts and stays near. */
  readonly startPrice: bigint;
}

export type ReplayEnd = 'loop' | 'hold';

export interface OracleSimulatorOptions {
  readonly feeds: readonly SimulatedFeed[];
  readonly series?: PriceSeries;
  readonly atEnd?: ReplayEnd;
  /** One walk step in basis points, drawn from `min` to `max` inclusive (tests pin it). */
  readonly walkStep?: (min: number, max: number) => number;
}

export interface OracleSimulator {
  /** Feed address to publisher public key: what the monitor is configured with. */
  readonly publisherKeys: ReadonlyMap<string, string>;
  /** The updates of the next step, signed and stamped with `slot`. */
  step(slot: bigint): OracleUpdate[];
}

/** Largest walk step (0.1 %) and band around the start price (1 %), in basis points. */
const WALK_STEP_BPS_MAX = 10;
const WALK_BAND_BPS = 100n;

interface FeedState {
  readonly feed: SimulatedFeed;
  readonly publisher: TradingKey;
  price: bigint;
  sequence: bigint;
}

export function createOracleSimulator(options: OracleSimulatorOptions): OracleSimulator {
  const walkStep = options.walkStep ?? ((min, max) => randomInt(min, max + 1));
  for (const feed of options.feeds)
    assert(feed.startPrice > 0n, `${feed.symbol}: start price must be above 0`);
  const states: FeedState[] = options.feeds.map((feed) => ({
    feed,
    publisher: generateTradingKey(),
    price: feed.startPrice,
    sequence: 0n,
  }));
  let steps = 0;
  return {
    publisherKeys: new Map(states.map((s) => [s.feed.feed, s.publisher.publicKey])),
    step(slot) {
      const index = steps;
      steps += 1;
      const updates: OracleUpdate[] = [];
      for (const state of states) {
        const point = nextPoint(state, index, options, walkStep);
        if (point === null) continue;
        state.price = point.price;
        state.sequence += 1n;
        updates.push(
          signOracleUpdate(
            {
              feed: state.feed.feed,
              price: point.price,
              confidence: point.confidence,
              publish_slot: slot,
              sequence: state.sequence,
            },
            state.publisher,
          ),
        );
      }
      return updates;
    },
  };
}

function nextPoint(
  state: FeedState,
  index: number,
  options: OracleSimulatorOptions,
  walkStep: (min: number, max: number) => number,
): { price: bigint; confidence: bigint } | null {
  const series = options.series;
  if (series?.symbols.has(state.feed.symbol)) {
    const length = series.lastStep + 1;
    if (index >= length && (options.atEnd ?? 'loop') === 'hold') return null;
    return series.at(index % length).get(state.feed.symbol) ?? null;
  }
  const start = state.feed.startPrice;
  const step = (state.price * BigInt(walkStep(-WALK_STEP_BPS_MAX, WALK_STEP_BPS_MAX))) / 10_000n;
  const bound = (start * WALK_BAND_BPS) / 10_000n;
  const price = clamp(state.price + step, start - bound, start + bound);
  return { price, confidence: price / DEFAULT_CONFIDENCE_DIVISOR };
}

function clamp(value: bigint, low: bigint, high: bigint): bigint {
  if (value < low) return low;
  return value > high ? high : value;
}
