import { Counter, Gauge, type Registry } from 'prom-client';
import type { VenueClock } from '../chain/clock.ts';
import type { VenueHttpServer } from '../http/server.ts';
import type { OracleMonitor } from '../oracle/oracle-monitor.ts';
import type { TradingRateLimiter } from '../rate-limit/trading-rate-limiter.ts';
import type { SettlementMetrics } from '../settlement/settlement-metrics.ts';
import type { StreamServer } from '../stream/stream-server.ts';
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
  stream?: StreamServer;
  limiter?: TradingRateLimiter;
  signatures?: { readonly queueDepth: number };
  http?: VenueHttpServer;
}

/**
 * Gauges and totals computed when a scraper asks, from state the venue keeps anyway. A total the
 * venue already counts (slow consumers closed, rate-limit refusals) is a prom-client Counter whose
 * collect() resets it to that count: still typed `counter` for rate() and the dashboard, with no
 * second tally kept in the hot path.
 */
export function registerScrapedMetrics(registry: Registry, sources: MetricSources): void {
  const registers = [registry];
  const markets = () => sources.engine?.markets() ?? [];

  new Gauge({
    name: 'venue_market_trading_enabled',
    help: '1 while the market accepts new orders, 0 while it or the whole venue is paused.',
    labelNames: ['market'],
    registers,
    collect() {
      this.reset();
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        this.set({ market: market.symbol }, engine.core.marketGate(market.marketId).tradingEnabled ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'venue_market_paused',
    help: '1 for each market paused by its own gate, labelled with the reason (oracle, breaker).',
    labelNames: ['market', 'reason'],
    registers,
    collect() {
      this.reset();
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        const reason = engine.core.marketGate(market.marketId).pausedReason;
        if (reason !== null) this.set({ market: market.symbol, reason }, 1);
      }
    },
  });
  new Gauge({
    name: 'venue_paused',
    help: '1 for each venue-wide pause reason in force (drain, state check, attestation...).',
    labelNames: ['reason'],
    registers,
    collect() {
      this.reset();
      for (const reason of sources.gates?.reasons() ?? []) this.set({ reason }, 1);
    },
  });
  new Gauge({
    name: 'venue_oracle_age_slots',
    help: "Slots since the publish slot of the market's last accepted oracle update.",
    labelNames: ['market'],
    registers,
    collect() {
      this.reset();
      const { oracle, clock } = sources;
      if (oracle === undefined || clock === undefined) return;
      const slot = clock.slot();
      for (const market of markets()) {
        const published = oracle.lastPublishSlot(market.marketId);
        if (published !== null)
          this.set({ market: market.symbol }, Number(slot > published ? slot - published : 0n));
      }
    },
  });
  new Counter({
    name: 'venue_batch_sequence',
    help: 'Batch auctions a market has run with orders since it was listed (its next batch number).',
    labelNames: ['market'],
    registers,
    collect() {
      this.reset();
      const engine = sources.engine;
      if (engine === undefined) return;
      for (const market of markets()) {
        this.inc({ market: market.symbol }, Number(engine.core.marketGate(market.marketId).batchCount));
      }
    },
  });

  // Settlement: matches by state, outcomes, queue and batches.
  new Gauge({
    name: 'venue_matches',
    help: 'Matches waiting for their settlement outcome: pending (all the core waits on), locked (held by the settlement pipeline: notes locked, queued or in a batch not yet final).',
    labelNames: ['market', 'state'],
    registers,
    collect() {
      this.reset();
      const engine = sources.engine;
      if (engine === undefined) return;
      const pending = new Map<string, number>();
      for (const match of engine.core.pendingMatches()) {
        pending.set(match.marketId, (pending.get(match.marketId) ?? 0) + 1);
      }
      for (const market of markets()) {
        this.set({ market: market.symbol, state: 'pending' }, pending.get(market.marketId) ?? 0);
        if (sources.pipeline !== undefined) {
          this.set({ market: market.symbol, state: 'locked' }, sources.pipeline.heldMatches(market.marketId));
        }
      }
    },
  });
  new Counter({
    name: 'venue_matches_settled_total',
    help: 'Matches whose settlement became final on chain, since start.',
    labelNames: ['market'],
    registers,
    collect() {
      this.reset();
      const settlement = sources.settlement;
      if (settlement === undefined) return;
      for (const market of markets()) {
        this.inc({ market: market.symbol }, settlement.matchOutcomes(market.marketId).settled);
      }
    },
  });
  new Counter({
    name: 'venue_matches_failed_total',
    help: 'Matches whose settlement failed, by reason (docs/settlement.md), since start.',
    labelNames: ['market', 'reason'],
    registers,
    collect() {
      this.reset();
      const settlement = sources.settlement;
      if (settlement === undefined) return;
      for (const market of markets()) {
        for (const [reason, count] of settlement.matchOutcomes(market.marketId).failed) {
          this.inc({ market: market.symbol, reason }, count);
        }
      }
    },
  });
  new Gauge({
    name: 'venue_settlement_queue_depth',
    help: 'Matches waiting in the settlement queue or in a batch not yet final.',
    labelNames: ['market'],
    registers,
    collect() {
      this.reset();
      const settlement = sources.settlement;
      if (settlement === undefined) return;
      for (const market of markets()) {
        this.set({ market: market.symbol }, settlement.market(market.marketId).queue_depth);
      }
    },
  });
  new Counter({
    name: 'venue_settlement_batches_total',
    help: 'Settlement batches by outcome: submitted to the chain, confirmed final, failed.',
    labelNames: ['market', 'outcome'],
    registers,
    collect() {
      this.reset();
      const settlement = sources.settlement;
      if (settlement === undefined) return;
      for (const market of markets()) {
        const counts = settlement.market(market.marketId);
        this.inc({ market: market.symbol, outcome: 'submitted' }, counts.batches_submitted);
        this.inc({ market: market.symbol, outcome: 'confirmed' }, counts.batches_confirmed);
        this.inc({ market: market.symbol, outcome: 'failed' }, counts.batches_failed);
      }
    },
  });

  // Intake capacity: the signature pool, the rate limiter.
  new Gauge({
    name: 'venue_signature_queue_depth',
    help: 'Signature checks asked for and not yet answered by the worker pool.',
    registers,
    collect() {
      this.set(sources.signatures?.queueDepth ?? 0);
    },
  });
  new Counter({
    name: 'venue_rate_limit_refusals_total',
    help: 'Trading requests refused by the per-account rate limit, by action, since start.',
    labelNames: ['action'],
    registers,
    collect() {
      this.reset();
      const limiter = sources.limiter;
      if (limiter === undefined) return;
      for (const [action, count] of Object.entries(limiter.refusals)) this.inc({ action }, count);
    },
  });

  // The journal.
  new Gauge({
    name: 'venue_journal_records_in_flight',
    help: 'Journal records appended and not yet durable.',
    registers,
    collect() {
      this.set(sources.engine?.journal?.inFlight ?? 0);
    },
  });
  new Gauge({
    name: 'venue_journal_snapshot_age_seconds',
    help: 'Seconds since the last snapshot was stored (or since the journal opened, before the first).',
    registers,
    collect() {
      this.reset();
      const journal = sources.engine?.journal;
      const clock = sources.clock;
      if (journal == null || clock === undefined) return;
      this.set(Math.max(0, clock.nowMs() - journal.snapshotAtMs) / 1000);
    },
  });
  new Gauge({
    name: 'venue_journal_records_since_snapshot',
    help: 'Journal records appended after the last stored snapshot (what a restart replays).',
    registers,
    collect() {
      this.reset();
      const journal = sources.engine?.journal;
      if (journal == null) return;
      this.set(Number(journal.lastSeq - journal.snapshotSeq));
    },
  });
  new Gauge({
    name: 'venue_journal_failed',
    help: '1 once the journal has failed and refuses writes (until a restart), else 0.',
    registers,
    collect() {
      this.reset();
      const journal = sources.engine?.journal;
      if (journal == null) return;
      this.set(journal.failure === null ? 0 : 1);
    },
  });

  // Connections.
  new Gauge({
    name: 'venue_stream_connections',
    help: 'Open session-stream WebSocket connections.',
    registers,
    collect() {
      this.set(sources.stream?.sessionCount ?? 0);
    },
  });
  new Counter({
    name: 'venue_stream_slow_consumer_closes_total',
    help: 'Stream sockets closed (1011) for falling behind their send bound, since start.',
    registers,
    collect() {
      this.reset();
      this.inc(sources.stream?.slowConsumersClosed ?? 0);
    },
  });
  new Counter({
    name: 'venue_stream_dead_peers_total',
    help: 'Stream sockets dropped for not answering a heartbeat ping, since start.',
    registers,
    collect() {
      this.reset();
      this.inc(sources.stream?.deadPeersDropped ?? 0);
    },
  });
  new Counter({
    name: 'venue_http_connections_refused_total',
    help: 'HTTPS connections refused by the per-address cap, since start.',
    registers,
    collect() {
      this.reset();
      this.inc(sources.http?.connectionsRefusedPerAddress ?? 0);
    },
  });
}
