import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  assembleVenue,
  assetOfOrder,
  type BootIdentity,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  DEV_TREE_COUNT,
  type Enclave,
  type LogLevel,
  MATCH_PROVER_NICE,
  marketParamsOf,
  type OracleMonitor,
  SETTLEMENT_BUFFER_SLOTS,
  SETTLEMENT_TURN_BUDGET_MS,
  SettlementPool,
  type SettlementWork,
  snapshotCode,
  type VenueServer,
} from '@venue/adapters';
import {
  type ChainSimulator,
  createChainSimulator,
  startRpcServer,
  venueChainPortsOf,
} from '@venue/chain-sim';
import type { CoreConfig, MarketConfig } from '@venue/core';
import { createMatchProver, createProofVerifier, loadNoteHasher, type NoteHasher } from '@venue/notes';
import {
  ACCOUNT_OPEN_ORDERS_MAX,
  type CreateAccountResponse,
  generateTradingKey,
  ORDER_LIFETIME_SLOTS_MAX,
} from '@venue/protocol';
import {
  identityNamesFor,
  urlHost,
  writePlatformRoot,
  writePublicCertificate,
} from '../serve/public-files.ts';
import { chainSlotClock } from './chain-clock.ts';
import { ACCOUNTS_FILE_NAME, type DevLogLevel } from './dev-defaults.ts';
import { DEV_MARKETS, DEV_MINTS, type DevMarket } from './dev-markets.ts';
import { createDevOracle } from './dev-oracle.ts';

/**
 * The all-in-one development venue, a settling one: one process with a fresh boot identity, the
 * whole REST API and the session stream, an in-process chain simulator (note trees, market and
 * oracle accounts, locks and settlement, its JSON-RPC on loopback for deposits), the oracle
 * simulator, real Groth16 VALID_INPUT proofs, the settlement pipeline with fill memos, and an
 * admin and two demo trading accounts. The venue's clock is the chain's slot.
 */

export interface DevVenueOptions {
  host: string;
  port: number;
  /** Where the per-boot PUBLIC certificate is written for clients to trust. Never the key. */
  stateDir: string;
  logLevel: LogLevel;
  /**
   * Port of the chain simulator's JSON-RPC (deposit, withdraw, ...): 0 or absent picks a free one.
   * It always listens on loopback: its calls are unsigned administrator actions of a simulator.
   */
  chainPort?: number;
}

export interface DevVenue {
  readonly restUrl: string;
  readonly streamUrl: string;
  /** The chain simulator's JSON-RPC URL (http, loopback only). */
  readonly chainRpcUrl: string;
  readonly sessionId: string;
  readonly certSha256: string;
  readonly spkiSha256: string;
  /** Absolute path of the PEM file holding this boot's certificate. */
  readonly certFile: string;
  /** The simulated platform's public root and this build's measurement: what a client trusts. */
  readonly platformFile: string;
  readonly measurement: string;
  /** Absolute path of the dev-only file holding the demo accounts' credentials (mode 0600). */
  readonly accountsFile: string;
  /** Slots until a settlement is final, so how long a match takes to become a fill. */
  readonly finalityDepthSlots: number;
  stop(): Promise<void>;
}

export { ACCOUNTS_FILE_NAME, CERT_FILE_NAME, PLATFORM_FILE_NAME } from './dev-defaults.ts';

const CHAIN_RPC_HOST = '127.0.0.1';

/** `venue dev`'s chain RPC port by default: the port a Solana-style local validator answers on. */
export { DEFAULT_CHAIN_PORT } from './dev-defaults.ts';

// The dev command lists its log levels without loading the server; the two lists must be the same.
type SameLevels<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _levelsAgree: SameLevels<DevLogLevel, LogLevel> = true;
void _levelsAgree;

export async function startDevVenue(options: DevVenueOptions): Promise<DevVenue> {
  const identity = await createBootIdentity(identityNamesFor(options.host));
  const { ports, hasher, chain, enclave, platform, verifier, work } = await devPorts(
    identity,
    options.logLevel,
  );
  const closeWorkers = async () => {
    await work.close();
    await verifier.close();
  };
  const venue = await assembleVenue(ports, {
    core: devCore(hasher),
    markets: DEV_MARKETS.map((m) => m.listing),
    // It settles on its chain simulator, so only real proofs pass (GET /info).
    settles: true,
    proofMode: 'groth16',
  }).catch(async (error: unknown) => {
    await closeWorkers();
    throw error;
  });
  const server = venue.server;
  let rpc: Awaited<ReturnType<typeof startRpcServer>> | undefined;
  const stop = async () => {
    await venue.stop();
    await rpc?.close();
    await closeWorkers();
  };
  let certFile: string;
  let platformFile: string;
  let accountsFile: string;
  let port: number;
  try {
    rpc = await startRpcServer(chain, { host: CHAIN_RPC_HOST, port: options.chainPort ?? 0 });
    ({ port } = await server.http.listen({ host: options.host, port: options.port }));
    certFile = await writePublicCertificate(options.stateDir, identity.certPem);
    platformFile = await writePlatformRoot(options.stateDir, {
      platform: platform.platform,
      root_key_id: platform.rootKeyId,
      root_public_key: platform.rootPublicKey,
      measurement: enclave.measurement,
    });
    accountsFile = await writeDemoAccounts(options.stateDir, await demoAccounts(server));
  } catch (error) {
    await stop();
    throw error;
  }
  const origin = `${urlHost(options.host)}:${port}`;
  return {
    restUrl: `https://${origin}`,
    streamUrl: `wss://${origin}/v1/stream`,
    chainRpcUrl: rpc.url,
    sessionId: identity.sessionId,
    certSha256: identity.certSha256,
    spkiSha256: identity.spkiSha256,
    certFile,
    platformFile,
    measurement: enclave.measurement,
    accountsFile,
    finalityDepthSlots: chain.config.finalityDepth,
    async stop() {
      await stop();
      // The demo secrets live exactly as long as the boot that honours them.
      await rm(accountsFile, { force: true });
    },
  };
}

/**
 * The dev venue's world as the assembly's ports: a Groth16 verifier, the enclave over the code
 * snapshot on a simulated platform, the in-process chain on the wall clock (its slot is the venue's
 * clock), and the oracle simulator, whose prices the chain's oracle accounts follow.
 */
async function devPorts(identity: BootIdentity, logLevel: LogLevel) {
  const hasher = await loadNoteHasher();
  const markets: MarketConfig[] = DEV_MARKETS.map((m) => m.listing.config);
  const verifier = createProofVerifier({
    mode: 'groth16',
    settles: true,
    assetOf: assetOfOrder(() => markets),
  });
  await verifier.ready();
  // Settlement's hashing and memo sealing run on a worker, as in a served venue.
  const work = new SettlementPool();
  await work.ready();
  // The code is read and measured once: the enclave attests that measurement and /evidences serves
  // exactly the bytes that were hashed. The simulated TEE platform's root goes to platform-root.json.
  const code = snapshotCode();
  const platform = createSimulatedPlatform();
  const enclave = await createEnclave({
    identity,
    platform,
    measurement: code.measurement,
    nowMs: Date.now(),
  });
  const chain = await devChain(enclave);
  const clock = chainSlotClock(chain);
  const oracle = createDevOracle(DEV_MARKETS);
  const ports = {
    clock,
    proofs: { verifier },
    hasher,
    enclave,
    roots: chain,
    chain: {
      // Settlement proves every leg with the real VALID_MATCH circuit, one worker per core, each
      // below the sequencer's priority (D132).
      ...settlingWithinTurns(
        venueChainPortsOf(chain, enclave.settlementSigner, createMatchProver({ nice: MATCH_PROVER_NICE })),
        work,
      ),
      start: () => chain.start(),
      stop: async () => chain.stop(),
    },
    oracle: {
      publisherKeys: oracle.publisherKeys,
      start(monitor: OracleMonitor) {
        oracle.start(monitor, clock, (update) =>
          chain.updateOracle({ address: update.feed, price: update.price, confidence: update.confidence }),
        );
        return oracle;
      },
    },
    front: { identity, evidences: code, log: { level: logLevel } },
  };
  return { ports, hasher, chain, enclave, platform, verifier, work };
}

/** The core of the dev venue: the dev trees, the protocol's limits, Poseidon note commitments. */
function devCore(hasher: NoteHasher): CoreConfig {
  return {
    treeCount: DEV_TREE_COUNT,
    settlementBufferSlots: SETTLEMENT_BUFFER_SLOTS,
    orderLifetimeSlotsMax: ORDER_LIFETIME_SLOTS_MAX,
    lockDurationSlots: 300n,
    retentionSlots: 9_000n,
    accountOpenOrdersMax: ACCOUNT_OPEN_ORDERS_MAX,
    rootWindowMax: 64,
    noteCommitment: hasher.noteCommitment,
  };
}

/**
 * The in-process chain: genesis governance accepts exactly this boot's measurement and settlement
 * signer; the demo markets and their oracle accounts exist on it, as settlement requires.
 */
async function devChain(enclave: Enclave): Promise<ChainSimulator> {
  const chain = await createChainSimulator({
    shards: DEV_TREE_COUNT,
    clock: 'wall',
    governance: {
      authority: generateTradingKey().publicKey,
      measurement: enclave.measurement,
      settlement_signer: enclave.settlementSigner.publicKey,
    },
  });
  createChainAccounts(chain, DEV_MARKETS);
  return chain;
}

/**
 * The accounts settlement checks against: each market's oracle account (at its feed address, with
 * the start price) and its market configuration account, at the market id the venue lists.
 */
function createChainAccounts(chain: ChainSimulator, markets: readonly DevMarket[]): void {
  for (const mint of DEV_MINTS) chain.createMint(mint);
  for (const { listing, oraclePrice } of markets) {
    const market = listing.config;
    chain.updateOracle({ address: market.oracleFeed, price: oraclePrice, confidence: 0n });
    chain.createMarket(marketParamsOf(market));
  }
}

async function demoAccounts(server: VenueServer): Promise<Record<string, CreateAccountResponse>> {
  return {
    admin: await server.provision('admin', 'dev operator'),
    alice: await server.provision('trader', 'dev trader alice'),
    bob: await server.provision('trader', 'dev trader bob'),
  };
}

/**
 * The one place the dev venue writes a secret: the demo accounts' credentials
 * go to a file only the user can read (0600), so a developer can log in without the CLI printing a
 * secret. The file is removed when the dev venue stops; accounts made through the admin API are
 * never written anywhere.
 */
async function writeDemoAccounts(stateDir: string, accounts: Record<string, CreateAccountResponse>) {
  const dir = resolve(stateDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, ACCOUNTS_FILE_NAME);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, `${JSON.stringify(accounts, null, 2)}\n`, { mode: 0o600 });
  await rename(partial, file);
  return file;
}

/**
 * The dev venue serves users too: its settlement yields to intake like a served one (turn-budget.ts)
 * and hands its hashing and sealing to the settlement worker.
 */
function settlingWithinTurns<T extends { settlement: object }>(ports: T, work: SettlementWork): T {
  return { ...ports, settlement: { ...ports.settlement, turnBudgetMs: SETTLEMENT_TURN_BUDGET_MS, work } };
}
