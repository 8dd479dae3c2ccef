import { Counter, Gauge, type Registry } from 'prom-client';
import type { VenueClock } from '../chain/clock.ts';
import type { OracleMonitor } from '../oracle/oracle-monitor.ts';
import type { TradingRateLimiter } from '../rate-limit/trading-rate-limiter.ts';
import type { SettlementMetrics } from '../settlement/settlement-metrics.ts';
import type { TradingGates } from '../venue/trading-gates.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';

/**
 * The parts whose state the scrape-time metrics read. Each is optional: a venue without a chain
 * has no settlement, one without an oracle port no monitor; their metrics are then left out.
 */
export interface MetricSources {
  engine?: VenueEngine;
  gates?: TradingGates;
  clock?: VenueClock;
  settlement?: SettlementMetrics;
  pipeline?: { heldMatches(marketId: string): number };
  oracle?: OracleMonitor;
  /** The stream server's counters (StreamServer), read structurally to keep imports one-way. */
  stream?: {
    readonly sessionCount: number;
    readonly slowConsumersClosed: number;
    readonly deadPeersDropped: number;
  };
  limiter?: TradingRateLimiter;
  signatures?: { readonly queueDepth: number };
  /** The proof verifier's reuse of verdicts (notes' ProofVerifier.reuse), read structurally. */
  proofs?: { reuse(): { readonly reused: number; readonly kept: number } };
  http?: { readonly connectionsRefusedPerAddress: number };
}

/** One value of a metric at scrape time: its labels and the value. */
type Sample = readonly [labels: Record<string, string>, value: number];

/**
 * Gauges and totals computed when a scraper asks, from state the venue keeps anyway. A total the
 * venue already counts (slow consumers closed, rate-limit refusals) is a prom-client Counter whose
 * collect() resets it to that count: still typed `counter` for rate() and the dashboard, with no
 * second tally kept in the hot path.
 */
export function registerScrapedMetrics(registry: Registry, sources: MetricSources): void {
  const registers = [registry];
  const markets = () => sources.engine?.markets() ?? [];
  // Each metric is its name, help, labels and the samples it reads; a source that is missing
  // yields none, and the metric shows no value rather than a stale one.
  const gauge = (name: string, help: string, labelNames: string[], samples: () => Iterable<Sample>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [labels, value] of samples()) this.set(labels, value);
      },
    });
  const total = (name: string, help: string, labelNames: string[], samples: () => Iterable<Sample>) =>
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [labels, value] of samples()) this.inc(labels, value);
      },
    });

  // Markets: trading state, pauses, oracle freshness, batches.
  gauge(
    'venue_market_trading_enabled',
    '1 while the market accepts new orders, 0 while it or the whole venue is paused.',
    ['market'],
    function* () {
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        yield [{ market: market.symbol }, engine.core.marketGate(market.marketId).tradingEnabled ? 1 : 0];
      }
    },
  );
  gauge(
    'venue_market_paused',
    '1 for each market paused by its own gate, labelled with the reason (oracle, breaker).',
    ['market', 'reason'],
    function* () {
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        const reason = engine.core.marketGate(market.marketId).pausedReason;
        if (reason !== null) yield [{ market: market.symbol, reason }, 1];
      }
    },
  );
  gauge(
    'venue_paused',
    '1 for each venue-wide pause reason in force (drain, state check, attestation...).',
    ['reason'],
    function* () {
      for (const reason of sources.gates?.reasons() ?? []) yield [{ reason }, 1];
    },
  );
  gauge(
    'venue_oracle_age_slots',
    "Slots since the publish slot of the market's last accepted oracle update.",
    ['market'],
    function* () {
      const { oracle, clock } = sources;
      if (oracle === undefined || clock === undefined) return;
      const slot = clock.slot();
      for (const market of markets()) {
        const published = oracle.lastPublishSlot(market.marketId);
        if (published !== null)
          yield [{ market: market.symbol }, Number(slot > published ? slot - published : 0n)];
      }
    },
  );
  total(
    'venue_batch_sequence',
    'Batch auctions a market has run with orders since it was listed (its next batch number).',
    ['market'],
    function* () {
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        yield [{ market: market.symbol }, Number(engine.core.marketGate(market.marketId).batchCount)];
      }
    },
  );

  // Settlement: matches by state, outcomes, queue and batches.
  gauge(
    'venue_matches',
    'Matches waiting for their settlement outcome: pending (all the core waits on), locked (held by the settlement pipeline: notes locked, queued or in a batch not yet final).',
    ['market', 'state'],
    function* () {
      const engine = sources.engine;
      if (engine === undefined) return;
      const pending = new Map<string, number>();
      for (const match of engine.core.pendingMatches()) {
        pending.set(match.marketId, (pending.get(match.marketId) ?? 0) + 1);
      }
      for (const market of markets()) {
        yield [{ market: market.symbol, state: 'pending' }, pending.get(market.marketId) ?? 0];
        if (sources.pipeline !== undefined) {
          yield [{ market: market.symbol, state: 'locked' }, sources.pipeline.heldMatches(market.marketId)];
        }
      }
    },
  );
  const perSettledMarket = (
    read: (settlement: SettlementMetrics, marketId: string, market: string) => Iterable<Sample>,
  ) =>
    function* () {
      const settlement = sources.settlement;
      if (settlement === undefined) return;
      for (const market of markets()) yield* read(settlement, market.marketId, market.symbol);
    };
  total(
    'venue_matches_settled_total',
    'Matches whose settlement became final on chain, since start.',
    ['market'],
    perSettledMarket((settlement, marketId, market) => [
      [{ market }, settlement.matchOutcomes(marketId).settled],
    ]),
  );
  total(
    'venue_matches_failed_total',
    'Matches whose settlement failed, by reason (docs/settlement.md), since start.',
    ['market', 'reason'],
    perSettledMarket((settlement, marketId, market) =>
      [...settlement.matchOutcomes(marketId).failed].map(
        ([reason, count]): Sample => [{ market, reason }, count],
      ),
    ),
  );
  gauge(
    'venue_settlement_queue_depth',
    'Matches waiting in the settlement queue or in a batch not yet final.',
    ['market'],
    perSettledMarket((settlement, marketId, market) => [
      [{ market }, settlement.market(marketId).queue_depth],
    ]),
  );
  total(
    'venue_settlement_batches_total',
    'Settlement batches by outcome: submitted to the chain, confirmed final, failed.',
    ['market', 'outcome'],
    perSettledMarket((settlement, marketId, market) => {
      const counts = settlement.market(marketId);
      return [
        [{ market, outcome: 'submitted' }, counts.batches_submitted],
        [{ market, outcome: 'confirmed' }, counts.batches_confirmed],
        [{ market, outcome: 'failed' }, counts.batches_failed],
      ];
    }),
  );

  // Intake capacity: the signature pool, the rate limiter.
  gauge(
    'venue_signature_queue_depth',
    'Signature checks asked for and not yet answered by the worker pool.',
    [],
    () => [[{}, sources.signatures?.queueDepth ?? 0]],
  );
  total(
    'venue_proof_verdicts_reused_total',
    'Order proofs answered from the verdict of the same claim found valid earlier (requotes), since start.',
    [],
    () => (sources.proofs === undefined ? [] : [[{}, sources.proofs.reuse().reused]]),
  );
  gauge(
    'venue_proof_verdicts_kept',
    'Valid proof claims the verifier remembers for reuse (bounded, least recently used out).',
    [],
    () => (sources.proofs === undefined ? [] : [[{}, sources.proofs.reuse().kept]]),
  );
  total(
    'venue_rate_limit_refusals_total',
    'Trading requests refused by the per-account rate limit, by action, since start.',
    ['action'],
    () =>
      Object.entries(sources.limiter?.refusals ?? {}).map(([action, count]): Sample => [{ action }, count]),
  );

  // The journal.
  const journal = () => sources.engine?.journal ?? null;
  gauge('venue_journal_records_in_flight', 'Journal records appended and not yet durable.', [], () => [
    [{}, journal()?.inFlight ?? 0],
  ]);
  gauge(
    'venue_journal_snapshot_age_seconds',
    'Seconds since the last snapshot was stored (or since the journal opened, before the first).',
    [],
    function* () {
      const open = journal();
      if (open === null || sources.clock === undefined) return;
      yield [{}, Math.max(0, sources.clock.nowMs() - open.snapshotAtMs) / 1000];
    },
  );
  gauge(
    'venue_journal_records_since_snapshot',
    'Journal records appended after the last stored snapshot (what a restart replays).',
    [],
    function* () {
      const open = journal();
      if (open !== null) yield [{}, Number(open.lastSeq - open.snapshotSeq)];
    },
  );
  gauge(
    'venue_journal_failed',
    '1 once the journal has failed and refuses writes (until a restart), else 0.',
    [],
    function* () {
      const open = journal();
      if (open !== null) yield [{}, open.failure === null ? 0 : 1];
    },
  );

  // Connections.
  gauge('venue_stream_connections', 'Open session-stream WebSocket connections.', [], () => [
    [{}, sources.stream?.sessionCount ?? 0],
  ]);
  total(
    'venue_stream_slow_consumer_closes_total',
    'Stream sockets closed (1011) for falling behind their send bound, since start.',
    [],
    () => [[{}, sources.stream?.slowConsumersClosed ?? 0]],
  );
  total(
    'venue_stream_dead_peers_total',
    'Stream sockets dropped for not answering a heartbeat ping, since start.',
    [],
    () => [[{}, sources.stream?.deadPeersDropped ?? 0]],
  );
  total(
    'venue_http_connections_refused_total',
    'HTTPS connections refused by the per-address cap, since start.',
    [],
    () => [[{}, sources.http?.connectionsRefusedPerAddress ?? 0]],
  );
}
