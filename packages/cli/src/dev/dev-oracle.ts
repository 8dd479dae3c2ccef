import { randomInt } from 'node:crypto';
import type { OracleMonitor, VenueClock } from '@venue/adapters';
import { generateTradingKey, signOracleUpdate, type TradingKey } from '@venue/protocol';
import type { DevMarket } from './dev-markets.ts';

/**
 * The dev venue's oracle simulator: one publisher key per feed, a signed update every slot with a
 * gentle random walk (at most 0.1% a step, kept within 1% of the starting price, so the breaker
 * stays quiet unless a developer pushes it). The monitor judges the updates as it would a chain's
 * oracle accounts.
 */
export interface DevOracle {
  readonly publisherKeys: ReadonlyMap<string, string>;
  start(monitor: OracleMonitor, clock: VenueClock): void;
  stop(): void;
}

export function createDevOracle(markets: readonly DevMarket[]): DevOracle {
  const publishers = new Map<string, TradingKey>(
    markets.map((m) => [m.listing.config.oracleFeed, generateTradingKey()]),
  );
  const prices = new Map(markets.map((m) => [m.listing.config.oracleFeed, m.oraclePrice]));
  let sequence = 0n;
  let timer: NodeJS.Timeout | undefined;
  return {
    publisherKeys: new Map([...publishers].map(([feed, key]) => [feed, key.publicKey])),
    start(monitor, clock) {
      const publish = () => {
        sequence += 1n;
        for (const market of markets) {
          const feed = market.listing.config.oracleFeed;
          const publisher = publishers.get(feed);
          const last = prices.get(feed) ?? market.oraclePrice;
          if (publisher === undefined) continue;
          const step = (last * BigInt(randomInt(-10, 11))) / 10_000n;
          const bound = market.oraclePrice / 100n;
          const next = clamp(last + step, market.oraclePrice - bound, market.oraclePrice + bound);
          prices.set(feed, next);
          const update = signOracleUpdate(
            { feed, price: next, confidence: next / 2_000n, publish_slot: clock.slot(), sequence },
            publisher,
          );
          monitor.receive(update, clock.slot());
        }
      };
      publish();
      timer = setInterval(publish, clock.slotDurationMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}

function clamp(value: bigint, low: bigint, high: bigint): bigint {
  if (value < low) return low;
  return value > high ? high : value;
}
