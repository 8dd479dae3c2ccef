import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OracleUpdate, TradingKey } from '@venue/protocol';
import { chainRpcCall } from '@venue/sdk';
import type { PriceSource } from './price-sources.ts';

/**
 * An oracle publisher for `venue serve` (docs/operations.md): once per new chain slot it takes an
 * observation from its source, signs it as the feed's publisher and keeps it as the feed's newest
 * update, which `GET /feeds/<feed>` answers in the shape serve's `oracle.feeds[].url` polls.
 *
 * - `publish_slot` is the chain's slot less `slotLag`: the venue judges an update stamped at a slot
 *   it has not seen yet as `future_slot`, and its view of the chain trails by up to a poll.
 * - `sequence` is the chain slot at signing. It rises with every update and keeps rising across a
 *   restart of the publisher, so a restarted publisher is never taken for a replay.
 */
export interface PublisherOptions {
  readonly feed: string;
  readonly key: TradingKey;
  readonly chainRpc: string;
  readonly source: PriceSource;
  readonly pollMs: number;
  readonly slotLag: bigint;
  readonly host: string;
  readonly port: number;
  /** One line per change of state (a source or chain failing, then working again). */
  readonly report: (line: string) => void;
}

export interface OraclePublisher {
  /** Where serve polls this feed. */
  readonly url: string;
  /** Signed updates so far. */
  published(): number;
  /** The newest chain slot the publisher has seen (-1 before the first). */
  seenSlot(): bigint;
  stop(): Promise<void>;
}

const JSON_BIGINT = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

export async function startOraclePublisher(options: PublisherOptions): Promise<OraclePublisher> {
  const { signOracleUpdate } = await import('@venue/protocol');
  const path = `/feeds/${options.feed}`;
  let newest: OracleUpdate | null = null;
  let count = 0;
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    const pathname = new URL(request.url ?? '/', 'http://publisher').pathname;
    if (pathname !== path) {
      response.statusCode = 404;
      response.end(JSON.stringify({ error: `this publisher serves ${path} only` }));
    } else if (request.method !== 'GET') {
      response.statusCode = 405;
      response.end(JSON.stringify({ error: 'GET only' }));
    } else if (newest === null) {
      response.statusCode = 503;
      response.end(JSON.stringify({ error: 'no update signed yet' }));
    } else {
      response.end(JSON.stringify(newest, JSON_BIGINT));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  let problem: string | null = null;
  const report = (next: string | null) => {
    if (next === problem) return;
    options.report(next ?? `${options.feed}: publishing again`);
    problem = next;
  };
  let firstSlot: bigint | null = null;
  let lastSlot = -1n;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      let slot: bigint;
      try {
        slot = (await chainRpcCall(options.chainRpc, 'getSlot', {}, Math.max(1_000, options.pollMs * 5)))
          .slot;
      } catch (error) {
        report(
          `chain ${options.chainRpc} does not answer (${(error as Error).message}); nothing is signed until it does`,
        );
        return;
      }
      if (slot <= lastSlot) return;
      lastSlot = slot;
      firstSlot ??= slot;
      let point: Awaited<ReturnType<PriceSource['next']>>;
      try {
        point = await options.source.next(Number(slot - firstSlot));
      } catch (error) {
        report(`source ${options.source.name}: ${(error as Error).message}`);
        return;
      }
      if (point === null) return;
      newest = signOracleUpdate(
        {
          feed: options.feed,
          price: point.price,
          confidence: point.confidence,
          publish_slot: slot > options.slotLag ? slot - options.slotLag : 0n,
          sequence: slot,
        },
        options.key,
      );
      count += 1;
      report(null);
    } finally {
      busy = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.pollMs);
  return {
    url: `http://${host}:${port}${path}`,
    published: () => count,
    seenSlot: () => lastSlot,
    async stop() {
      clearInterval(timer);
      options.source.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
