import { marketConfigKey, marketParamsOf } from '@venue/adapters';
import type { MarketParams, MintAccount } from '@venue/protocol';
import { ChainRpcError, chainRpcCall } from '@venue/sdk';
import { CliError } from '../commands/output.ts';
import { fetchUpdate } from '../serve/oracle-feeds.ts';
import type { ServeConfig } from '../serve/serve-config.ts';

/**
 * `venue chain setup`: puts on a dev chain what `venue serve --config FILE` checks there at start,
 * taken from that same file so the two cannot disagree: each market's mints (symbol and decimals,
 * which `--human` reads), its oracle account and its market account. Running it again changes
 * nothing that is already right, and refuses, naming the config key, what is there and different.
 *
 * The oracle account's first price comes from the feed's publisher, which must already answer at
 * `oracle.feeds[].url` with an update signed by `publisher_key`: so setup also proves that the
 * publisher and the config agree before serve is started.
 */
export interface SetupReport {
  readonly chain: string;
  readonly mints: { mint: string; symbol: string; decimals: number; created: boolean }[];
  readonly oracles: { feed: string; price: bigint; confidence: bigint }[];
  readonly markets: { symbol: string; market_id: string; created: boolean }[];
}

const READ_TIMEOUT_MS = 5_000;

export async function setupChain(
  config: ServeConfig,
  rpcUrl: string,
  decimals: ReadonlyMap<string, number>,
): Promise<SetupReport> {
  const { verifyOracleUpdate } = await import('@venue/protocol');
  const call = chainCaller(rpcUrl);
  // First every check, reading only; then the writes. A refusal leaves the chain as it was.
  const mints = new Map((await call('listMints', {})).mints.map((m: MintAccount) => [m.mint, m]));
  const newMints = new Map<string, MintAccount>();
  const oracles = new Map<string, { price: bigint; confidence: bigint }>();
  const markets: { params: MarketParams; exists: boolean }[] = [];

  for (const [index, { config: market }] of config.markets.entries()) {
    const key = `markets[${index}]`;
    const halves = market.symbol.split('-');
    if (halves.length !== 2 || halves.some((half) => !/^[A-Za-z0-9]{1,10}$/.test(half))) {
      throw new CliError(
        `${key}.symbol "${market.symbol}": setup names the mints after the symbol's halves; use BASE-QUOTE, e.g. SOL-USDC`,
      );
    }
    const sides = [
      ['base', market.baseMint, halves[0] ?? ''],
      ['quote', market.quoteMint, halves[1] ?? ''],
    ] as const;
    for (const [side, mint, symbol] of sides) {
      const held = mints.get(mint) ?? newMints.get(mint);
      const wanted = decimals.get(symbol);
      if (held !== undefined) {
        if (held.symbol !== symbol || (wanted !== undefined && held.decimals !== wanted)) {
          throw new CliError(
            `${key}.${side}_mint ${mint}: the chain describes it as ${held.symbol} with ${held.decimals} decimals, not ${symbol}${wanted === undefined ? '' : ` with ${wanted}`}; fix the config or start a fresh chain`,
          );
        }
        continue;
      }
      if (wanted === undefined) {
        throw new CliError(
          `--mint: no decimals for ${symbol} (the ${side} of ${market.symbol}); add --mint ${symbol}=DECIMALS`,
        );
      }
      newMints.set(mint, { mint, symbol, decimals: wanted });
    }

    const feedIndex = config.oracle.feeds.findIndex((feed) => feed.feed === market.oracleFeed);
    const feed = config.oracle.feeds[feedIndex];
    if (feed === undefined) throw new CliError(`${key}.oracle_feed: no entry in oracle.feeds`); // serve's parser refuses it first
    if (!oracles.has(feed.feed)) {
      let update: Awaited<ReturnType<typeof fetchUpdate>>;
      try {
        update = await fetchUpdate(feed, READ_TIMEOUT_MS);
      } catch (error) {
        throw new CliError(
          `oracle.feeds[${feedIndex}].url: ${(error as Error).message}; start the publisher first (venue oracle publish) and let it sign a slot`,
        );
      }
      if (!verifyOracleUpdate(update, feed.publisherKey)) {
        throw new CliError(
          `oracle.feeds[${feedIndex}].publisher_key: the publisher at ${feed.url} signs with another key; copy the public key its ready line prints`,
        );
      }
      oracles.set(feed.feed, { price: update.price, confidence: update.confidence });
    }

    const params = marketParamsOf(market);
    const existing = await call('getMarket', { market_id: market.marketId }).catch((error: unknown) => {
      if (error instanceof ChainCallError && error.reason === 'not_found') return null;
      throw error;
    });
    if (existing !== null) {
      for (const [name, value] of Object.entries(params)) {
        const onChain = existing[name as keyof MarketParams];
        if (onChain !== value) {
          const configKey = marketConfigKey(name as keyof MarketParams);
          throw new CliError(
            `${key}.${configKey}: the chain's market account ${market.marketId} says ${String(onChain)}, the config ${String(value)}; a market account cannot change: fix the config or start a fresh chain`,
          );
        }
      }
    }
    markets.push({ params, exists: existing !== null });
  }

  const report: SetupReport = { chain: rpcUrl, mints: [], oracles: [], markets: [] };
  for (const mint of newMints.values()) {
    report.mints.push({ ...(await call('createMint', mint)), created: true });
  }
  for (const { config: market } of config.markets) {
    for (const mint of [market.baseMint, market.quoteMint]) {
      const held = mints.get(mint);
      if (held !== undefined && !report.mints.some((m) => m.mint === mint))
        report.mints.push({ ...held, created: false });
    }
  }
  // The oracle account first: a market account names an oracle account that exists.
  for (const [feed, value] of oracles) {
    await call('updateOracle', { address: feed, ...value });
    report.oracles.push({ feed, ...value });
  }
  for (const { params, exists } of markets) {
    if (!exists) await call('createMarket', params);
    report.markets.push({ symbol: params.symbol, market_id: params.market_id ?? '', created: !exists });
  }
  return report;
}

/** The chain contract's calls, a failure turned into one line naming the method and the chain. */
export function chainCaller(rpcUrl: string) {
  return async <M extends Parameters<typeof chainRpcCall>[1]>(
    method: M,
    params: Parameters<typeof chainRpcCall<M>>[2],
  ): Promise<Awaited<ReturnType<typeof chainRpcCall<M>>>> => {
    try {
      return await chainRpcCall(rpcUrl, method, params, READ_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof ChainRpcError && error.reason === 'transport') {
        throw new CliError(
          `the chain at ${rpcUrl} did not answer ${method}: ${error.message}; is it started (venue chain start)?`,
        );
      }
      throw new ChainCallError(
        (error as Error).message,
        error instanceof ChainRpcError ? error.reason : 'unknown',
      );
    }
  };
}

/** A chain refusal, with the chain's machine-readable reason (`not_found`, `conflict`, ...). */
export class ChainCallError extends CliError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}
