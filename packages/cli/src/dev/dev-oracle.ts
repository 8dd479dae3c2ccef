import { readFileSync, statSync } from 'node:fs';
import {
  createOracleSimulator,
  type OracleMonitor,
  PRICE_SERIES_BYTES_MAX,
  type PriceSeries,
  parsePriceSeries,
  type ReplayEnd,
  type VenueClock,
} from '@venue/adapters';
import type { OracleUpdate } from '@venue/protocol';
import type { DevMarket } from './dev-markets.ts';

/**
 * The dev venue's oracle simulator: a signed update per feed every slot, judged by the monitor as
 * it would judge a chain's oracle accounts. By default each feed walks randomly near its market's
 * start price. With a price series file (docs/enclave.md has the format) the markets it names
 * replay it instead, looping, or holding at the end so they go stale:
 *
 *   VENUE_DEV_ORACLE_REPLAY=prices.csv VENUE_DEV_ORACLE_REPLAY_END=hold npm start
 */
export const REPLAY_FILE_ENV = 'VENUE_DEV_ORACLE_REPLAY';
export const REPLAY_END_ENV = 'VENUE_DEV_ORACLE_REPLAY_END';

export interface DevOracleOptions {
  /** A price series file to replay; absent: random walk only. */
  readonly replayFile?: string;
  readonly replayEnd?: ReplayEnd;
}

export interface DevOracle {
  readonly publisherKeys: ReadonlyMap<string, string>;
  /** Markets replaying the file (empty when walking). */
  readonly replayed: ReadonlySet<string>;
  /**
   * Publishes every slot to the monitor; `onUpdate` also receives each update (the dev venue copies
   * them to the chain's oracle accounts, which its market accounts name).
   */
  start(monitor: OracleMonitor, clock: VenueClock, onUpdate?: (update: OracleUpdate) => void): void;
  stop(): void;
}

/** Options from the environment, so `npm start` can replay without a new flag. */
export function devOracleOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DevOracleOptions {
  const file = env[REPLAY_FILE_ENV];
  const end = env[REPLAY_END_ENV];
  if (end !== undefined && end !== 'loop' && end !== 'hold') {
    throw new Error(`${REPLAY_END_ENV}="${end}": use loop (the default) or hold`);
  }
  return {
    ...(file === undefined || file === '' ? {} : { replayFile: file }),
    ...(end === undefined ? {} : { replayEnd: end }),
  };
}

export function loadPriceSeries(file: string, markets: readonly DevMarket[]): PriceSeries {
  // Checked before reading, so a wrong path to a huge file fails fast instead of filling memory.
  if (statSync(file).size > PRICE_SERIES_BYTES_MAX) {
    throw new Error(`${file}: larger than ${PRICE_SERIES_BYTES_MAX} bytes; split the recording`);
  }
  const symbols = new Set(markets.map((m) => m.listing.config.symbol));
  return parsePriceSeries(readFileSync(file, 'utf8'), symbols, file);
}

export function createDevOracle(
  markets: readonly DevMarket[],
  options: DevOracleOptions = devOracleOptionsFromEnv(),
): DevOracle {
  const series = options.replayFile === undefined ? undefined : loadPriceSeries(options.replayFile, markets);
  const simulator = createOracleSimulator({
    feeds: markets.map((m) => ({
      feed: m.listing.config.oracleFeed,
      symbol: m.listing.config.symbol,
      startPrice: m.oraclePrice,
    })),
    ...(series === undefined ? {} : { series }),
    ...(options.replayEnd === undefined ? {} : { atEnd: options.replayEnd }),
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    publisherKeys: simulator.publisherKeys,
    replayed: series?.symbols ?? new Set(),
    start(monitor, clock, onUpdate) {
      const publish = () => {
        const slot = clock.slot();
        for (const update of simulator.step(slot)) {
          monitor.receive(update, slot);
          onUpdate?.(update);
        }
        // Staleness is judged per slot even when a replay holds and nothing arrives.
        monitor.evaluate(slot);
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
