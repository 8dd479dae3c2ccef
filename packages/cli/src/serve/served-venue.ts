import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import {
  announceOnMove,
  assembleVenue,
  assetOfOrder,
  createBootIdentity,
  createEnclave,
  createVenueLogger,
  type JetStreamJournalSetup,
  type LogDestination,
  lineLogger,
  MATCH_PROVER_NICE,
  type MetricsListener,
  type OraclePort,
  openJetStreamLink,
  SettlementPool,
  snapshotCode,
  standBy,
  startMetricsListener,
  type Takeover,
  type VenueClock,
  type VenueLogger,
  type VenueOptions,
  type VenueServer,
} from '@venue/adapters';
import { createMatchProver, createProofVerifier, loadNoteHasher, type NoteHasher } from '@venue/notes';
import type { CreateAccountResponse } from '@venue/protocol';
import { connectChain } from './chain-link.ts';
import { pollOracleFeeds } from './oracle-feeds.ts';
import { openPlatform } from './platform-secret.ts';
import { identityNamesFor, urlHost, writePlatformRoot, writePublicCertificate } from './public-files.ts';
import type { ServeConfig } from './serve-config.ts';
import { servedChainPorts } from './served-chain.ts';
import { openRemoteSettlement } from './served-settlement.ts';

/**
 * `venue serve`: the venue alone, from a configuration file. It keeps its journal, snapshots and
 * accounts in `state_dir` (sealed under the platform's sealing key, so the same build on the same
 * platform secret reopens them), follows a chain it reaches over JSON-RPC for slots, recent roots
 * and the tree and settlement reads, and takes its oracle prices from the configured publishers.
 * Neither a chain nor an oracle simulator runs in this process.
 *
 * It settles on that chain (served-settlement.ts) unless `chain.settle` is false: the same assembly
 * as `venue dev`, over a remote port that reads a per-beat view and queues its writes. The note
 * openings and match facts settlement needs are state companions, so a restart settles what the
 * venue had accepted. The settlement signer is sealed (derived from the sealing key), so a restart
 * of the same build keeps the signer the chain's governance names.
 */
export interface ServedVenue {
  readonly restUrl: string;
  readonly streamUrl: string;
  readonly sessionId: string;
  readonly certFile: string;
  readonly platformFile: string;
  /** Commands the boot replayed from the journal (0 on a first boot). */
  readonly replayed: number;
  /** Set on the first boot only: where the first admin's credentials were written. */
  readonly adminCredentialsFile: string | null;
  /** Whether this venue settles, and with which key and build (what chain governance must name). */
  readonly settles: boolean;
  /**
   * The state against the chain (docs/durability.md): `consistent`, `refused` (trading paused),
   * `accepted` (chain.accept_state_mismatch), or `waiting`; `consistent` on a venue that does not settle.
   */
  readonly stateCheck: string;
  readonly settlementSigner: string;
  readonly measurement: string;
  /** Where a scraper on this host reads the metrics without a token (`metrics_listen`); else null. */
  readonly metricsUrl: string | null;
  readonly server: VenueServer;
  /** Closes trading, waits for the journal to be durable, then closes everything. */
  stop(): Promise<void>;
}

/** How long a stop waits for journal records in flight to become durable. */
export const DRAIN_WAIT_MS_MAX = 5_000;
const DRAIN_POLL_MS = 20;

/**
 * The loggers of `venue serve`, all in the venue's one format (docs/operations.md "Logs"): the
 * operating log on stderr at the config's `log_level` (the server, the stream, the chain link, the
 * oracle feeds and serve's own lines share it), and the ready line on stdout, which is always
 * printed since scripts wait for it.
 */
export function serveLoggers(
  config: ServeConfig,
  out: { stdout: LogDestination; stderr: LogDestination },
): { log: VenueLogger; ready: VenueLogger } {
  return {
    log: createVenueLogger({ level: config.logLevel, stream: out.stderr }),
    ready: createVenueLogger({ level: 'info', stream: out.stdout }).child({ component: 'serve' }),
  };
}

export async function startServedVenue(config: ServeConfig, logger: VenueLogger): Promise<ServedVenue> {
  const log = lineLogger(logger.child({ component: 'serve' }), 'warn');
  const chainLog = lineLogger(logger.child({ component: 'chain' }), 'warn');
  const oracleLog = lineLogger(logger.child({ component: 'oracle' }), 'warn');
  const settlementLog = lineLogger(logger.child({ component: 'settlement' }), 'warn');
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  if ((statSync(config.stateDir).mode & 0o077) !== 0) {
    throw new Error(`state_dir ${config.stateDir} is open to other users; run chmod 700 on it`);
  }
  const { platform, created } = await openPlatform(config.platform);
  if (created)
    log(`created the platform secret ${config.platform.secretFile}; back it up, the state needs it`);
  const chain = await connectChain(config.chain.rpcUrl, {
    pollMs: config.chain.pollMs,
    slotDurationMs: config.chain.slotMs,
    treeCount: config.chain.treeCount,
    onError: chainLog,
  });
  const hasher = await loadNoteHasher();
  const markets = config.markets.map((listing) => listing.config);
  const settles = config.chain.settle;
  const verifier = createProofVerifier({
    mode: config.proofs,
    settles,
    assetOf: assetOfOrder(() => markets),
  });
  await verifier.ready();
  const code = snapshotCode();
  const sealingKey = platform.sealingKey(code.measurement);
  // A standby waits here, everything above already loaded, until the primary's lease expires.
  const options = await standbyOrPrimary(config, servedOptions(config, hasher, sealingKey), log).catch(
    closing(verifier),
  );
  // The boot's identity is made now, so a standby's certificate and attestation belong to its takeover.
  const identity = await createBootIdentity(identityNamesFor(config.listen.host));
  const enclave = await createEnclave({
    identity,
    platform,
    measurement: code.measurement,
    nowMs: Date.now(),
    sealedSettlementSigner: true,
  });
  // Settlement's hashing, memo sealing, batch signing and JSON-RPC text run on a worker, so a
  // backlog of legs does not hold the sequencer's thread (docs/settlement.md section 12).
  const work = settles ? new SettlementPool() : null;
  const closeVerifiers = async () => {
    await work?.close();
    await verifier.close();
  };
  await work?.ready().catch(closing({ close: closeVerifiers }));
  const remoteChain =
    work === null
      ? null
      : await openRemoteSettlement(config, enclave, settlementLog, work).catch(
          closing({ close: closeVerifiers }),
        );
  // Settlement proves every leg with the real VALID_MATCH circuit (serve never takes stand-ins).
  const remote =
    remoteChain === null || work === null
      ? null
      : { chain: remoteChain, prover: createMatchProver({ nice: MATCH_PROVER_NICE }), work };
  const closeStarted = async () => {
    await remote?.prover.close();
    await closeVerifiers();
  };
  const venue = await assembleVenue(
    {
      clock: chain.clock,
      proofs: { verifier },
      hasher,
      enclave,
      roots: chain.roots,
      chain: servedChainPorts(config, chain, remote, chainLog),
      oracle: servedOracle(config, chain.clock, oracleLog),
      log: settlementLog,
      front: {
        identity,
        evidences: code,
        log: { logger },
        transport: { connectionsPerAddressMax: config.limits.connectionsPerAddressMax },
      },
    },
    options.venue,
  ).catch(closing({ close: closeStarted }));
  const server = venue.server;
  let metricsListener: MetricsListener | null = null;
  const engine = server.engine;
  // Each renewal of the lease announces the state a standby must match (standby/stream-follower.ts),
  // hashing the core again only once the journal moved.
  options.takeover?.announceWith(
    announceOnMove(
      () => engine.journal?.lastSeq ?? 0n,
      () => engine.core.stateHash(),
    ),
  );
  const closeAll = async () => {
    await metricsListener?.close();
    await venue.stop();
    await closeVerifiers();
  };
  try {
    const adminCredentialsFile = await bootstrapAdmin(server, config.adminCredentialsFile);
    const { port } = await server.http.listen({ host: config.listen.host, port: config.listen.port });
    if (config.metricsListen !== null) {
      metricsListener = await startMetricsListener(server.metrics, config.metricsListen);
    }
    const certFile = await writePublicCertificate(config.publicDir, identity.certPem);
    const platformFile = await writePlatformRoot(config.publicDir, {
      platform: platform.platform,
      root_key_id: platform.rootKeyId,
      root_public_key: platform.rootPublicKey,
      measurement: enclave.measurement,
    });
    const origin = `${urlHost(config.listen.host)}:${port}`;
    let stopping: Promise<void> | null = null;
    return {
      restUrl: `https://${origin}`,
      streamUrl: `wss://${origin}/v1/stream`,
      sessionId: identity.sessionId,
      certFile,
      platformFile,
      replayed: server.recovery?.replayed ?? 0,
      adminCredentialsFile,
      settles,
      get stateCheck() {
        return venue.stateCheck;
      },
      settlementSigner: enclave.settlementSigner.publicKey,
      measurement: enclave.measurement,
      metricsUrl: metricsListener?.url ?? null,
      server,
      stop: () => {
        stopping ??= drainAndClose(server, closeAll);
        return stopping;
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** Closes the verifier's workers when the boot fails before the venue owns them. */
function closing(verifier: { close(): Promise<void> }) {
  return async (error: unknown): Promise<never> => {
    await verifier.close();
    throw error;
  };
}

/** Planned stop: trading closes (new orders get 503), acknowledged work becomes durable, then close. */
async function drainAndClose(server: VenueServer, closeAll: () => Promise<void>): Promise<void> {
  if (server.drain.status().state === 'open') server.drain.begin(Date.now());
  const deadline = Date.now() + DRAIN_WAIT_MS_MAX;
  while (server.drain.status().state !== 'safe_to_stop' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
  await closeAll();
}

/**
 * On the first boot (no account stored yet) the operator's first admin is created and its
 * credentials written once, owner-only, to `file`, which must not exist. Later boots create nothing.
 */
async function bootstrapAdmin(server: VenueServer, file: string): Promise<string | null> {
  if (server.auth.accounts.all().length > 0) return null;
  if (existsSync(file)) {
    throw new Error(
      `admin_credentials_file ${file} exists but state_dir holds no account (a new state?); move the file away so a new admin can be written`,
    );
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const admin: CreateAccountResponse = await server.provision('admin', 'first operator');
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ admin }, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The configured oracle publishers, each feed polled from the chain. */
function servedOracle(config: ServeConfig, clock: VenueClock, log: (line: string) => void): OraclePort {
  return {
    publisherKeys: new Map(config.oracle.feeds.map((feed) => [feed.feed, feed.publisherKey])),
    start: (monitor) =>
      pollOracleFeeds(config.oracle.feeds, monitor, clock, {
        pollMs: config.oracle.pollMs,
        onProblem: (feed, problem) => log(`oracle feed ${feed}: ${problem}`),
      }),
  };
}

/** The configuration as the assembly's options: limits, markets, settling, the sealed state. */
function servedOptions(config: ServeConfig, hasher: NoteHasher, sealingKey: Uint8Array): VenueOptions {
  return {
    core: {
      treeCount: config.chain.treeCount,
      settlementBufferSlots: config.limits.settlementBufferSlots,
      orderLifetimeSlotsMax: config.limits.orderLifetimeSlotsMax,
      lockDurationSlots: config.limits.lockDurationSlots,
      retentionSlots: config.limits.retentionSlots,
      accountOpenOrdersMax: config.limits.accountOpenOrdersMax,
      rootWindowMax: config.limits.rootWindowMax,
      noteCommitment: hasher.noteCommitment,
    },
    markets: config.markets,
    settles: config.chain.settle,
    proofMode: config.proofs,
    state: {
      directory: config.stateDir,
      sealingKey,
      ...(config.journal.kind === 'jetstream' ? { jetstream: jetstreamSetupOf(config.journal) } : {}),
    },
    acceptStateMismatch: config.chain.acceptStateMismatch,
  };
}

/**
 * With `journal.role` standby: connect to the cluster, follow the stream and wait (logging what it
 * does) until the primary's lease expires, then take over; the venue boots on the state the
 * standby holds. Otherwise the options are used as they are.
 */
async function standbyOrPrimary(
  config: ServeConfig,
  venue: VenueOptions,
  log: (line: string) => void,
): Promise<{ venue: VenueOptions; takeover: Takeover | null }> {
  const journal = config.journal;
  if (journal.kind !== 'jetstream' || journal.role !== 'standby' || venue.state === undefined)
    return { venue, takeover: null };
  const setup = jetstreamSetupOf(journal);
  const link = await openJetStreamLink(setup.settings);
  try {
    const takeover = await standBy({
      link,
      sealingKey: venue.state.sealingKey,
      config: venue.core,
      companionNames: SERVED_COMPANIONS,
      holder: setup.holder,
      timings: setup.lease,
      log,
      onLeaseLost: (reason) => {
        // Fencing already refuses this instance's writes; say so loudly for the operator.
        log(`the journal lease was lost (${reason}); this instance no longer takes orders: stop it`);
      },
    });
    const { jetstream: _, ...state } = venue.state;
    const stream = { link, follower: takeover.follower, lease: takeover.lease };
    return { venue: { ...venue, state: { ...state, stream } }, takeover };
  } catch (error) {
    await link.close().catch(() => undefined);
    throw error;
  }
}

/** The state companions a served venue keeps (assembly/companions.ts), as the replica registry names them. */
const SERVED_COMPANIONS = ['note-openings', 'match-facts', 'landed-batches'];

/** The primary's journal on JetStream, as `journal` in the configuration file describes it. */
function jetstreamSetupOf(
  journal: Extract<ServeConfig['journal'], { kind: 'jetstream' }>,
): JetStreamJournalSetup {
  return {
    settings: {
      servers: journal.servers,
      stream: journal.stream,
      replicas: journal.replicas,
      ...(journal.credentialsFile === undefined ? {} : { credentialsFile: journal.credentialsFile }),
    },
    holder: `${hostname()}:${process.pid}`,
    lease: journal.lease,
  };
}
