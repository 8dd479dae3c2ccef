import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import {
  assetOfOrder,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  createVenueServer,
  createWallSlotClock,
  DEV_TREE_COUNT,
  GovernanceWatch,
  type LogLevel,
  measureCode,
  OracleMonitor,
  proofChecksOf,
  RootMirror,
  SETTLEMENT_BUFFER_SLOTS,
  type VenueParameters,
  type VenueServer,
} from '@venue/adapters';
import { chainReadsOf, createChainSimulator } from '@venue/chain-sim';
import type { CoreConfig, MarketConfig } from '@venue/core';
import { createProofVerifier, loadNoteHasher } from '@venue/notes';
import {
  ACCOUNT_OPEN_ORDERS_MAX,
  type CreateAccountResponse,
  generateTradingKey,
  ORDER_LIFETIME_SLOTS_MAX,
} from '@venue/protocol';
import { DEV_MARKETS } from './dev-markets.ts';
import { createDevOracle } from './dev-oracle.ts';

/**
 * The all-in-one development venue: one process, a fresh boot identity, the whole REST API and the
 * session stream, demo markets with a fixed oracle price, an admin and two demo trading accounts,
 * Poseidon note commitments and a proof verifier in stub mode (this venue never settles). The chain
 * and oracle simulators join it as those parts land.
 */

export interface DevVenueOptions {
  host: string;
  port: number;
  /** Where the per-boot PUBLIC certificate is written for clients to trust. Never the key. */
  stateDir: string;
  logLevel: LogLevel;
}

export interface DevVenue {
  readonly restUrl: string;
  readonly streamUrl: string;
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
  stop(): Promise<void>;
}

export const ACCOUNTS_FILE_NAME = 'dev-accounts.json';
export const PLATFORM_FILE_NAME = 'platform-root.json';

export const CERT_FILE_NAME = 'venue-cert.pem';

/** The dev venue does not settle, so it runs stub proofs (InfoResponse: stub only then). */
const DEV_PARAMETERS: VenueParameters = {
  settlementEnabled: false,
  proofMode: 'stub',
  settlementBufferSlots: SETTLEMENT_BUFFER_SLOTS,
  treeCount: DEV_TREE_COUNT,
};

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startDevVenue(options: DevVenueOptions): Promise<DevVenue> {
  const extraName =
    WILDCARD_HOSTS.has(options.host) || LOOPBACK_NAMES.has(options.host) ? undefined : options.host;
  const identity = await createBootIdentity({
    ...(extraName !== undefined && isIP(extraName) !== 0
      ? { ipAddresses: ['127.0.0.1', '::1', extraName] }
      : {}),
    ...(extraName !== undefined && isIP(extraName) === 0 ? { dnsNames: ['localhost', extraName] } : {}),
  });
  const hasher = await loadNoteHasher();
  const markets: MarketConfig[] = DEV_MARKETS.map((m) => m.listing.config);
  const verifier = createProofVerifier({
    mode: 'stub',
    settles: false,
    assetOf: assetOfOrder(() => markets),
  });
  await verifier.ready();
  const core: CoreConfig = {
    treeCount: DEV_TREE_COUNT,
    settlementBufferSlots: SETTLEMENT_BUFFER_SLOTS,
    orderLifetimeSlotsMax: ORDER_LIFETIME_SLOTS_MAX,
    lockDurationSlots: 300n,
    retentionSlots: 9_000n,
    accountOpenOrdersMax: ACCOUNT_OPEN_ORDERS_MAX,
    rootWindowMax: 64,
    noteCommitment: hasher.noteCommitment,
  };
  const clock = createWallSlotClock();
  // The simulated TEE platform of this dev boot; clients trust its root from platform-root.json.
  const platform = createSimulatedPlatform();
  const enclave = createEnclave({ identity, platform, measurement: measureCode(), nowMs: clock.nowMs() });
  // The in-process chain simulator: note trees, roots and (later) settlement.
  // Its genesis governance accepts exactly this boot's measurement and settlement signer.
  const chain = await createChainSimulator({
    shards: DEV_TREE_COUNT,
    clock: 'wall',
    governance: {
      authority: generateTradingKey().publicKey,
      measurement: enclave.measurement,
      settlement_signer: enclave.settlementSigner.publicKey,
    },
  });
  const server = await createVenueServer({
    identity,
    clock,
    attestation: enclave,
    chain: chainReadsOf(chain),
    parameters: DEV_PARAMETERS,
    core,
    markets: DEV_MARKETS.map((m) => m.listing),
    proofs: proofChecksOf(verifier),
    log: { level: options.logLevel },
  });
  // The oracle simulator publishes signed updates every slot; the monitor gates the markets.
  const oracle = createDevOracle(DEV_MARKETS);
  const monitor = new OracleMonitor(
    server.engine,
    DEV_MARKETS.map((m) => m.listing),
    oracle.publisherKeys,
  );
  oracle.start(monitor, clock);
  // The venue follows the chain's recent roots, including a reorg's surviving fork.
  const mirror = new RootMirror(server.engine, chain, DEV_TREE_COUNT);
  mirror.refresh();
  // Shared fate: final governance that stops naming this boot pauses every market.
  const governance = new GovernanceWatch(server.gates, chain, {
    measurement: enclave.measurement,
    settlementSigner: enclave.settlementSigner.publicKey,
  });
  governance.check();
  chain.onEvent((event) => {
    if (event.kind === 'slot' || event.kind === 'reorg') {
      mirror.refresh();
      governance.check();
    }
  });
  chain.start();
  const stop = async () => {
    oracle.stop();
    chain.stop();
    await server.close();
    await verifier.close();
  };
  let certFile: string;
  let platformFile: string;
  let accountsFile: string;
  let port: number;
  try {
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
    sessionId: identity.sessionId,
    certSha256: identity.certSha256,
    spkiSha256: identity.spkiSha256,
    certFile,
    platformFile,
    measurement: enclave.measurement,
    accountsFile,
    async stop() {
      await stop();
      // The demo secrets live exactly as long as the boot that honours them.
      await rm(accountsFile, { force: true });
    },
  };
}

async function demoAccounts(server: VenueServer): Promise<Record<string, CreateAccountResponse>> {
  return {
    admin: await server.provision('admin', 'dev operator'),
    alice: await server.provision('trader', 'dev trader alice'),
    bob: await server.provision('trader', 'dev trader bob'),
  };
}

/** The attestation trust anchor of this dev boot: public values only. */
async function writePlatformRoot(stateDir: string, root: Record<string, string>): Promise<string> {
  const file = join(resolve(stateDir), PLATFORM_FILE_NAME);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, `${JSON.stringify(root, null, 2)}\n`, { mode: 0o644 });
  await rename(partial, file);
  return file;
}

/**
 * The one place the venue ever writes a secret, and only in dev mode: the demo accounts' credentials
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

/** Written to a temporary name and renamed, so a reader never sees half a certificate. */
async function writePublicCertificate(stateDir: string, certPem: string): Promise<string> {
  const dir = resolve(stateDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, CERT_FILE_NAME);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, certPem, { mode: 0o644 });
  await rename(partial, file);
  return file;
}

/** The host as it goes into a URL: wildcards are reached on loopback, IPv6 literals are bracketed. */
function urlHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return '127.0.0.1';
  return isIP(host) === 6 ? `[${host}]` : host;
}
