import type { CoreConfig } from '@venue/core';
import type { CreateAccountResponse } from '@venue/protocol';
import { AccountFile } from './accounts/account-file.ts';
import { AuthService } from './auth/auth-service.ts';
import type { VenueClock } from './chain/clock.ts';
import { AUTH_SWEEP_INTERVAL_MS } from './config/limits.ts';
import type { BootIdentity } from './enclave/boot-identity.ts';
import type { CodeSnapshot } from './enclave/code-measurement.ts';
import { authRoutes } from './http/auth-routes.ts';
import { evidenceRoutes } from './http/evidence-routes.ts';
import { orderRoutes } from './http/order-routes.ts';
import type { VenueParameters } from './http/public-routes.ts';
import { registerRoutes } from './http/route-registrar.ts';
import { createHttpServer, type HttpServerOptions, type VenueHttpServer } from './http/server.ts';
import { venueReadRoutes } from './http/venue-read-routes.ts';
import type { Recovery } from './journal/recovery.ts';
import { TradingRateLimiter } from './rate-limit/trading-rate-limiter.ts';
import { StreamServer } from './stream/stream-server.ts';
import { DrainControl } from './venue/drain-control.ts';
import { bootEngine, type StateDirectory } from './venue/engine-boot.ts';
import { type ProofChecks, pooledSignatureChecks, type SignatureChecks } from './venue/intake-checks.ts';
import type { MarketListing } from './venue/market-listing.ts';
import { OrderIntake } from './venue/order-intake.ts';
import {
  type AttestationSource,
  type ChainReads,
  NO_SETTLEMENT,
  type SettlementTelemetry,
} from './venue/ports.ts';
import type { StateCompanion } from './venue/state-companion.ts';
import { TradingGates } from './venue/trading-gates.ts';
import type { VenueEngine } from './venue/venue-engine.ts';
import { SignaturePool } from './workers/signature-pool.ts';

/**
 * The venue server: the sequencer around the core, the account layer, order intake and every REST
 * route of spec 4, on one HTTPS server. Parts that later issues add (chain, attestation, stream,
 * journal) plug in through the options; without them their routes answer 503 and say what is
 * missing.
 */
export interface VenueServerOptions {
  readonly identity: BootIdentity;
  readonly clock: VenueClock;
  readonly parameters: VenueParameters;
  readonly core: CoreConfig;
  readonly markets?: readonly MarketListing[];
  readonly proofs: ProofChecks;
  readonly signatures?: SignatureChecks;
  readonly chain?: ChainReads;
  readonly attestation?: AttestationSource;
  readonly settlement?: SettlementTelemetry;
  /** The code snapshot behind the attested measurement, served under /evidences (spec 4.4). */
  readonly evidences?: CodeSnapshot;
  readonly log?: HttpServerOptions['log'];
  /** Overrides the per-account stream send buffer (tests make a slow consumer cheaply). */
  readonly streamAccountBufferBytesMax?: number;
  /** Overrides the stream heartbeat interval (tests find a dead peer quickly). */
  readonly streamHeartbeatIntervalMs?: number;
  /**
   * Where the journal, its snapshots and the accounts live, sealed under the enclave's sealing key.
   * Without it the venue runs from memory and a restart starts empty (tests, benchmarks).
   */
  readonly state?: StateDirectory;
  /**
   * Adapter state that must survive a restart with the journal (settlement's NoteOpenings): kept in
   * each snapshot and rebuilt from the commands after it. Only meaningful with `state`.
   */
  readonly companions?: readonly StateCompanion[];
}

export interface VenueServer {
  readonly http: VenueHttpServer;
  readonly engine: VenueEngine;
  readonly auth: AuthService;
  readonly gates: TradingGates;
  readonly intake: OrderIntake;
  readonly stream: StreamServer;
  readonly drain: DrainControl;
  /** What recovery found at boot; null without a state directory. */
  readonly recovery: Recovery | null;
  /** Creates an account without an admin token: the operator's first admin, dev-mode accounts. */
  provision(role: 'admin' | 'trader', label?: string): Promise<CreateAccountResponse>;
  close(): Promise<void>;
}

/**
 * Boots the venue: with a state directory the accounts are loaded and the core is recovered from the
 * journal (snapshot + replay) before anything listens; then this boot's session starts.
 */
export async function createVenueServer(options: VenueServerOptions): Promise<VenueServer> {
  const { clock } = options;
  const state = options.state ?? null;
  const auth = new AuthService(
    state === null ? {} : { file: new AccountFile(state.directory, state.sealingKey, state.files) },
  );
  await auth.restore();
  let log: ((error: unknown) => void) | null = null;
  const { engine, recovery } = await bootEngine({
    config: options.core,
    clock,
    sessionId: options.identity.sessionId,
    markets: options.markets ?? [],
    state,
    // A snapshot that cannot be stored fails the journal (intake then reports JOURNAL_UNAVAILABLE);
    // one the replica could not produce is only skipped.
    onSnapshotError: (error) => log?.(error),
    ...(options.companions === undefined ? {} : { companions: options.companions }),
  });
  const gates = new TradingGates(engine);
  if (recovery !== null) gates.assertAtBoot();
  const drain = new DrainControl(gates, () => engine.inFlight);
  const limiter = new TradingRateLimiter();
  // Signatures are checked on worker threads unless the caller supplies its own checks.
  let pool: SignaturePool | null = null;
  let signatures = options.signatures;
  if (signatures === undefined) {
    pool = new SignaturePool();
    signatures = pooledSignatureChecks(pool);
  }
  const intake = new OrderIntake({
    engine,
    limiter,
    signatures,
    proofs: options.proofs,
    clock,
  });

  const http = createHttpServer({
    identity: options.identity,
    clock,
    parameters: options.parameters,
    gates: () => ({ pauseReasons: gates.reasons(), marketsPaused: engine.marketsPaused() }),
    ...(options.log === undefined ? {} : { log: options.log }),
    routes: [
      (app) =>
        registerRoutes(
          app,
          [
            ...orderRoutes(intake, auth),
            ...authRoutes(auth, clock),
            ...venueReadRoutes({
              engine,
              gates,
              drain,
              clock,
              bootTimeMs: options.identity.bootTimeMs,
              chain: options.chain ?? null,
              attestation: options.attestation ?? null,
              settlement: options.settlement ?? NO_SETTLEMENT,
            }),
          ],
          { auth, clock },
        ),
      evidenceRoutes(options.evidences ?? null),
    ],
  });

  const stream = new StreamServer({
    auth,
    intake,
    engine,
    clock,
    log: http.app.log,
    ...(options.streamAccountBufferBytesMax === undefined
      ? {}
      : { accountBufferBytesMax: options.streamAccountBufferBytesMax }),
    ...(options.streamHeartbeatIntervalMs === undefined
      ? {}
      : { heartbeatIntervalMs: options.streamHeartbeatIntervalMs }),
  });
  stream.attach(http.app.server);
  log = (error) => {
    const message = error instanceof Error ? error.message : String(error);
    // A dropped snapshot replica skips one snapshot (the next is taken inline); an I/O failure stops the journal.
    if (engine.journal?.failure == null) {
      http.app.log.warn(
        { type: 'snapshot_replica_dropped', message },
        'the snapshot replica was dropped; the next snapshot is taken inline and seeds a new one',
      );
      return;
    }
    http.app.log.error(
      { type: 'journal_snapshot_failed', message },
      'a snapshot could not be written; the journal refuses writes until a restart',
    );
  };

  // Batches clear and orders expire on the slot even when no request arrives; sessions near their
  // token's expiry are warned on the same beat.
  const ticker = setInterval(() => {
    engine.catchUp();
    stream.sweep();
  }, clock.slotDurationMs);
  const sweeper = setInterval(() => {
    auth.sweep(clock.nowMs());
    limiter.sweep(clock.nowMs());
  }, AUTH_SWEEP_INTERVAL_MS);
  ticker.unref();
  sweeper.unref();

  return {
    http,
    engine,
    auth,
    gates,
    intake,
    stream,
    drain,
    recovery,
    provision: (role, label) => auth.createAccount({ role, ...(label === undefined ? {} : { label }) }),
    async close() {
      clearInterval(ticker);
      clearInterval(sweeper);
      await stream.close();
      await http.close();
      await engine.close();
      await pool?.close();
    },
  };
}
