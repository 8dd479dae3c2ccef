import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  assetOfOrder,
  type ChainReads,
  CommitmentMemo,
  createBootIdentity,
  createEnclave,
  createVenueServer,
  LandedBatches,
  MatchFacts,
  NoteOpenings,
  OracleMonitor,
  proofChecksOf,
  RemoteTreeFeed,
  RootMirror,
  rememberingProofChecks,
  SettlementMetrics,
  snapshotCode,
  type VenueServer,
} from '@venue/adapters';
import { createProofVerifier, loadNoteHasher } from '@venue/notes';
import type { CreateAccountResponse } from '@venue/protocol';
import { type ChainLink, connectChain } from './chain-link.ts';
import { pollOracleFeeds } from './oracle-feeds.ts';
import { loadOrCreatePlatform } from './platform-secret.ts';
import { identityNamesFor, urlHost, writePlatformRoot, writePublicCertificate } from './public-files.ts';
import type { ServeConfig } from './serve-config.ts';
import { openRemoteSettlement, type ServedSettlement, startServedSettlement } from './served-settlement.ts';

/**
 * `venue serve`: the venue alone, from a configuration file. It keeps its journal, snapshots and
 * accounts in `state_dir` (sealed under the platform's sealing key, so the same build on the same
 * platform secret reopens them), follows a chain it reaches over JSON-RPC for slots, recent roots
 * and the tree and settlement reads, and takes its oracle prices from the configured publishers.
 * Neither a chain nor an oracle simulator runs in this process.
 *
 * It settles on that chain (served-settlement.ts) unless `chain.settle` is false: the same pipeline
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
  readonly server: VenueServer;
  /** Closes trading, waits for the journal to be durable, then closes everything. */
  stop(): Promise<void>;
}

/** How long a stop waits for journal records in flight to become durable. */
export const DRAIN_WAIT_MS_MAX = 5_000;
const DRAIN_POLL_MS = 20;

export async function startServedVenue(
  config: ServeConfig,
  log: (line: string) => void,
): Promise<ServedVenue> {
  mkdirSync(config.stateDir, { recursive: true, mode: 0o700 });
  if ((statSync(config.stateDir).mode & 0o077) !== 0) {
    throw new Error(`state_dir ${config.stateDir} is open to other users; run chmod 700 on it`);
  }
  const { platform, created } = loadOrCreatePlatform(config.platform.secretFile);
  if (created)
    log(`created the platform secret ${config.platform.secretFile}; back it up, the state needs it`);
  const chain = await connectChain(config.chain.rpcUrl, {
    pollMs: config.chain.pollMs,
    slotDurationMs: config.chain.slotMs,
    treeCount: config.chain.treeCount,
    onError: log,
  });
  const identity = await createBootIdentity(identityNamesFor(config.listen.host));
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
  const enclave = createEnclave({
    identity,
    platform,
    measurement: code.measurement,
    nowMs: Date.now(),
    sealedSettlementSigner: true,
  });
  const remote = settles ? await openRemoteSettlement(config, enclave, log).catch(closing(verifier)) : null;
  const openings = new NoteOpenings();
  const facts = new MatchFacts();
  const landed = new LandedBatches();
  const commitments = new CommitmentMemo();
  const derivingProofs = proofChecksOf(verifier, {
    memo: commitments,
    priceScaleOf: (symbol) => config.markets.find((m) => m.config.symbol === symbol)?.config.priceScale,
  });
  const metrics = new SettlementMetrics();
  const server = await createVenueServer({
    identity,
    clock: chain.clock,
    attestation: enclave,
    evidences: code,
    chain: admittingReads(chain),
    ...(settles ? { settlement: metrics } : {}),
    parameters: {
      settlementEnabled: settles,
      proofMode: config.proofs,
      settlementBufferSlots: config.limits.settlementBufferSlots,
      treeCount: config.chain.treeCount,
    },
    core: {
      treeCount: config.chain.treeCount,
      settlementBufferSlots: config.limits.settlementBufferSlots,
      orderLifetimeSlotsMax: config.limits.orderLifetimeSlotsMax,
      lockDurationSlots: config.limits.lockDurationSlots,
      retentionSlots: config.limits.retentionSlots,
      accountOpenOrdersMax: config.limits.accountOpenOrdersMax,
      rootWindowMax: config.limits.rootWindowMax,
      // Derived on the proof worker at intake; the sequencer looks it up (D58, commitment-memo.ts).
      noteCommitment: commitments.wrap(hasher.noteCommitment),
    },
    markets: config.markets,
    // Settlement needs each order's note opening, which the core does not keep.
    proofs: settles ? rememberingProofChecks(derivingProofs, openings) : derivingProofs,
    log: { level: config.logLevel },
    state: { directory: config.stateDir, sealingKey: platform.sealingKey(enclave.measurement) },
    companions: [openings, facts, landed],
  });
  const mirror = new RootMirror(server.engine, chain.roots, config.chain.treeCount);
  chain.start(() => mirror.refresh());
  // The stream's tree channel, settling or not: leaves come over RPC each poll (no subscriber
  // can exist before the first read, which sets where the channel starts).
  const trees = new RemoteTreeFeed(chain.rpc, server.stream, { onProblem: log });
  const monitor = new OracleMonitor(
    server.engine,
    config.markets,
    new Map(config.oracle.feeds.map((feed) => [feed.feed, feed.publisherKey])),
  );
  const feeds = pollOracleFeeds(config.oracle.feeds, monitor, chain.clock, {
    pollMs: config.oracle.pollMs,
    onProblem: (feed, problem) => log(`oracle feed ${feed}: ${problem}`),
  });
  const settlement: ServedSettlement | null =
    remote === null
      ? null
      : startServedSettlement({
          config,
          remote,
          server,
          enclave,
          hasher,
          openings,
          facts,
          landed,
          metrics,
          clock: chain.clock,
          log,
        });
  const closeAll = async () => {
    await settlement?.stop();
    await trees.stop();
    feeds.stop();
    chain.stop();
    await server.close();
    await verifier.close();
  };
  try {
    const adminCredentialsFile = await bootstrapAdmin(server, config.adminCredentialsFile);
    await trees.open().catch((error: Error) => {
      throw new Error(
        `chain.rpc_url ${config.chain.rpcUrl} does not answer getTreeUpdates (${error.message})`,
      );
    });
    trees.start(config.chain.pollMs);
    const { port } = await server.http.listen({ host: config.listen.host, port: config.listen.port });
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
        return settlement?.stateCheck ?? 'consistent';
      },
      settlementSigner: enclave.settlementSigner.publicKey,
      measurement: enclave.measurement,
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

/**
 * The chain's tree reads for the REST routes, answering only with roots the core accepts: a root the
 * chain reports that the polled window does not hold yet is admitted first (ChainLink.admit).
 */
function admittingReads(chain: ChainLink): ChainReads {
  return {
    roots: async () => {
      const roots = await chain.rpc.roots();
      for (const tree of roots.trees) await chain.admit(tree.tree_id, tree.root);
      return roots;
    },
    inclusion: async (treeId, commitment) => {
      const proof = await chain.rpc.inclusion(treeId, commitment);
      await chain.admit(treeId, proof.root);
      return proof;
    },
    leaves: (treeId, from, limit) => chain.rpc.leaves(treeId, from, limit),
    settlementStatus: (lookup) => chain.rpc.settlementStatus(lookup),
  };
}
