import type { CoreConfig } from '@venue/core';
import type { CreateAccountResponse } from '@venue/protocol';
import { AccountFile } from '../accounts/account-file.ts';
import { AuthService } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import { AUTH_SWEEP_INTERVAL_MS } from '../config/limits.ts';
import { authRoutes } from '../http/auth-routes.ts';
import { CONSOLE_BUILD_DIRECTORY, consoleRoutes } from '../http/console-routes.ts';
import { evidenceRoutes } from '../http/evidence-routes.ts';
import { orderRoutes } from '../http/order-routes.ts';
import type { VenueParameters } from '../http/public-routes.ts';
import { registerRoutes } from '../http/route-registrar.ts';
import { createHttpServer, type VenueHttpServer } from '../http/server.ts';
import { venueReadRoutes } from '../http/venue-read-routes.ts';
import { accountsMirrorOf } from '../journal/jetstream/accounts-object.ts';
import { JetStreamJournal } from '../journal/jetstream/jetstream-journal.ts';
import type { Recovery } from '../journal/recovery.ts';
import { TradingRateLimiter } from '../rate-limit/trading-rate-limiter.ts';
import { StreamServer, type StreamServerOptions } from '../stream/stream-server.ts';
import { timedProofChecks, timedSignatureChecks } from '../telemetry/timed-checks.ts';
import { VenueMetrics } from '../telemetry/venue-metrics.ts';
import { AuctionExplanations } from '../venue/auction-explanations.ts';
import { DrainControl } from '../venue/drain-control.ts';
import { bootEngine, type StateDirectory } from '../venue/engine-boot.ts';
import { type ProofChecks, pooledSignatureChecks, type SignatureChecks } from '../venue/intake-checks.ts';
import type { MarketListing } from '../venue/market-listing.ts';
import { OrderIntake } from '../venue/order-intake.ts';
import type { AttestationSource, ChainReads, SettlementTelemetry } from '../venue/ports.ts';
import type { StateCompanion } from '../venue/state-companion.ts';
import { TradingGates } from '../venue/trading-gates.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import { SignaturePool } from '../workers/signature-pool.ts';
import type { FrontPorts, HeadlessPorts, StreamOverrides } from './venue-ports.ts';

/**
 * The venue server: the sequencer around the core, the account layer, order intake, the session
 * stream and, with a front, every REST route of spec 4 on one HTTPS server. Parts a venue lacks (a
 * chain, attestation) answer 503 on their routes and say what is missing. Only `assembleVenue`
 * opens one, so every venue has the same companions and watches around it.
 */
export interface VenueServerParts {
  readonly clock: VenueClock;
  readonly parameters: VenueParameters;
  readonly core: CoreConfig;
  readonly markets: readonly MarketListing[];
  readonly proofs: ProofChecks;
  readonly signatures?: SignatureChecks;
  readonly auth?: AuthService;
  readonly chain: ChainReads | null;
  readonly attestation: AttestationSource | null;
  readonly settlement: SettlementTelemetry;
  readonly stream: StreamOverrides;
  /** Without it the venue runs from memory and a restart starts empty (tests, benchmarks). */
  readonly state: StateDirectory | null;
  /** Adapter state that survives a restart with the journal (kept in snapshots, rebuilt by replay). */
  readonly companions: readonly StateCompanion[];
}

/** The venue without its HTTPS front: what the simulator runs. */
export interface VenueBody {
  readonly engine: VenueEngine;
  readonly auth: AuthService;
  readonly gates: TradingGates;
  readonly intake: OrderIntake;
  readonly stream: StreamServer;
  readonly drain: DrainControl;
  /** This venue's Prometheus registry and its event counters (telemetry/venue-metrics.ts). */
  readonly metrics: VenueMetrics;
  /** What recovery found at boot; null without a state directory. */
  readonly recovery: Recovery | null;
  /** Creates an account without an admin token: the operator's first admin, dev-mode accounts. */
  provision(role: 'admin' | 'trader', label?: string): Promise<CreateAccountResponse>;
  close(): Promise<void>;
}

export interface VenueServer extends VenueBody {
  readonly http: VenueHttpServer;
}

/**
 * Boots the venue: with a state directory the accounts are loaded and the core is recovered from the
 * journal (snapshot + replay) before anything listens; then this boot's session starts.
 */
export async function openVenueServer(parts: VenueServerParts, front: FrontPorts): Promise<VenueServer>;
export async function openVenueServer(parts: VenueServerParts, headless: HeadlessPorts): Promise<VenueBody>;
export async function openVenueServer(
  parts: VenueServerParts,
  edge: FrontPorts | HeadlessPorts,
): Promise<VenueBody>;
export async function openVenueServer(
  parts: VenueServerParts,
  edge: FrontPorts | HeadlessPorts,
): Promise<VenueBody> {
  const inner = await openInner(parts, 'identity' in edge ? edge.identity.sessionId : edge.sessionId);
  let http: VenueHttpServer | null = null;
  let log: StreamServerOptions['log'];
  if ('identity' in edge) {
    http = openHttp(parts, inner, edge);
    log = http.app.log.child({ component: 'stream' });
  } else log = edge.streamLog;
  const stream = new StreamServer({
    auth: inner.auth,
    intake: inner.intake,
    engine: inner.engine,
    clock: parts.clock,
    log,
    ...(parts.stream.accountBufferBytesMax === undefined
      ? {}
      : { accountBufferBytesMax: parts.stream.accountBufferBytesMax }),
    ...(parts.stream.heartbeatIntervalMs === undefined
      ? {}
      : { heartbeatIntervalMs: parts.stream.heartbeatIntervalMs }),
    ...(parts.stream.readBucket === undefined ? {} : { readBucket: parts.stream.readBucket }),
    ...(parts.stream.loginTimeoutMs === undefined ? {} : { loginTimeoutMs: parts.stream.loginTimeoutMs }),
  });
  if (http !== null) stream.attach(http.app.server);
  inner.metrics.attach({ stream, ...(http === null ? {} : { http }) });
  const stopBeat = http === null ? () => {} : startWallBeat(parts.clock, inner, stream);
  const { engine, auth, gates, intake, drain, recovery, metrics } = inner;
  const body: VenueBody = {
    engine,
    auth,
    gates,
    intake,
    stream,
    drain,
    metrics,
    recovery,
    provision: (role, label) => auth.createAccount({ role, ...(label === undefined ? {} : { label }) }),
    async close() {
      stopBeat();
      await stream.close();
      await http?.close();
      await inner.close();
    },
  };
  if (http === null) return body;
  const server: VenueServer = { ...body, http };
  return server;
}

interface Inner {
  readonly engine: VenueEngine;
  readonly auth: AuthService;
  readonly gates: TradingGates;
  readonly intake: OrderIntake;
  readonly drain: DrainControl;
  readonly limiter: TradingRateLimiter;
  readonly auctions: AuctionExplanations;
  readonly metrics: VenueMetrics;
  readonly recovery: Recovery | null;
  /** Where a failed snapshot is reported: the front's log once it exists. */
  readonly snapshotErrors: { report: (error: unknown) => void };
  close(): Promise<void>;
}

/** The accounts, the recovered sequencer and order intake. */
async function openInner(parts: VenueServerParts, sessionId: string): Promise<Inner> {
  const { clock, state } = parts;
  const file =
    parts.auth === undefined && state !== null
      ? new AccountFile(state.directory, state.sealingKey, state.files)
      : null;
  // A standby taking over reads the accounts the primary mirrored beside its journal.
  if (file !== null && state?.stream !== undefined) file.useMirror(accountsMirrorOf(state.stream.link));
  const auth = parts.auth ?? new AuthService(file === null ? {} : { file });
  await auth.restore();
  const snapshotErrors = { report: (_error: unknown) => {} };
  const { engine, recovery } = await bootEngine({
    config: parts.core,
    clock,
    sessionId,
    markets: parts.markets,
    state,
    // A snapshot that cannot be stored fails the journal (intake then reports JOURNAL_UNAVAILABLE);
    // one the replica could not produce is only skipped.
    onSnapshotError: (error) => snapshotErrors.report(error),
    companions: parts.companions,
  });
  if (file !== null && engine.journal instanceof JetStreamJournal) {
    // On JetStream the accounts travel with the journal: mirror them from this boot on.
    if (state?.stream === undefined) file.useMirror(accountsMirrorOf(engine.journal.link));
    await auth.storeAll();
  }
  const gates = new TradingGates(engine);
  if (recovery !== null) gates.assertAtBoot();
  const limiter = new TradingRateLimiter();
  // Signatures are checked on worker threads unless the caller supplies its own checks.
  let pool: SignaturePool | null = null;
  let signatures = parts.signatures;
  if (signatures === undefined) {
    pool = new SignaturePool();
    signatures = pooledSignatureChecks(pool);
  }
  const metrics = new VenueMetrics();
  engine.observeJournalAppends((seconds) => metrics.journalAppended(seconds));
  engine.onEvents((events) => metrics.followEvents(events));
  metrics.attach({ engine, gates, clock, limiter, ...(pool === null ? {} : { signatures: pool }) });
  const intake = new OrderIntake({
    engine,
    limiter,
    signatures: timedSignatureChecks(signatures, metrics),
    proofs: timedProofChecks(parts.proofs, metrics),
    clock,
    metrics,
  });
  const auctions = new AuctionExplanations();
  engine.onEvents((events) => auctions.follow(events));
  return {
    auctions,
    metrics,
    engine,
    auth,
    gates,
    intake,
    drain: new DrainControl(gates, () => engine.inFlight),
    limiter,
    recovery,
    snapshotErrors,
    async close() {
      metrics.close();
      await engine.close();
      await pool?.close();
    },
  };
}

/** REST over HTTPS (spec 4), with the snapshot failures reported on its log. */
function openHttp(parts: VenueServerParts, inner: Inner, front: FrontPorts): VenueHttpServer {
  const { clock } = parts;
  const { engine, gates, auth } = inner;
  const http = createHttpServer({
    identity: front.identity,
    clock,
    parameters: parts.parameters,
    gates: () => ({ pauseReasons: gates.reasons(), marketsPaused: engine.marketsPaused() }),
    ...(front.log === undefined ? {} : { log: front.log }),
    ...(front.transport === undefined ? {} : { transport: front.transport }),
    routes: [
      (app) =>
        registerRoutes(
          app,
          [
            ...orderRoutes(inner.intake, auth),
            ...authRoutes(auth, clock),
            ...venueReadRoutes({
              engine,
              gates,
              drain: inner.drain,
              clock,
              bootTimeMs: front.identity.bootTimeMs,
              chain: parts.chain,
              attestation: parts.attestation,
              settlement: parts.settlement,
              auctions: inner.auctions,
              metrics: inner.metrics,
            }),
          ],
          { auth, clock },
        ),
      evidenceRoutes(front.evidences ?? null),
      consoleRoutes(front.consoleDirectory ?? CONSOLE_BUILD_DIRECTORY),
    ],
  });
  const journalLog = http.app.log.child({ component: 'journal' });
  inner.snapshotErrors.report = (error) => {
    const message = error instanceof Error ? error.message : String(error);
    // A dropped snapshot replica skips one snapshot (the next is taken inline); an I/O failure stops the journal.
    if (engine.journal?.failure == null) {
      journalLog.warn(
        { type: 'snapshot_replica_dropped', message },
        'the snapshot replica was dropped; the next snapshot is taken inline and seeds a new one',
      );
      return;
    }
    journalLog.error(
      { type: 'journal_snapshot_failed', message },
      'a snapshot could not be written; the journal refuses writes until a restart',
    );
  };
  return http;
}

/**
 * A live venue's wall-clock beat: batches clear and orders expire on the slot even when no request
 * arrives, sessions near their token's expiry are warned on the same beat, and stale tokens and
 * rate-limit buckets are swept. (The simulator drives its headless venue itself.)
 */
function startWallBeat(clock: VenueClock, inner: Inner, stream: StreamServer): () => void {
  const ticker = setInterval(() => {
    inner.engine.catchUp();
    stream.sweep();
  }, clock.slotDurationMs);
  const sweeper = setInterval(() => {
    inner.auth.sweep(clock.nowMs());
    inner.limiter.sweep(clock.nowMs());
  }, AUTH_SWEEP_INTERVAL_MS);
  ticker.unref();
  sweeper.unref();
  return () => {
    clearInterval(ticker);
    clearInterval(sweeper);
  };
}
