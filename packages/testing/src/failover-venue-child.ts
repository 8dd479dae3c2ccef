/**
 * A venue instance on a JetStream journal in its own process, for failover tests and the failover
 * benchmark: started with `node --import tsx` and one JSON argument (FailoverVenueConfig).
 *
 * As `primary` it takes the lease at once (first boot of the test: it also provisions the admin and
 * the traders and writes their credentials beside the state); as `standby` it follows the stream,
 * prints `{"following": ...}`, and takes over once the lease expires. Either way it prints one
 * `{"ready": ...}` line once it listens on its port, and on SIGTERM stops gracefully (releasing the
 * lease) and prints `{"stateHash": ...}`. Each instance keeps its state in `<dir>/state-<name>`;
 * the accounts reach a standby through the stream's object store.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assembleVenue,
  assetOfOrder,
  type BootIdentity,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  createWallSlotClock,
  type FrontPorts,
  type OraclePort,
  openJetStreamLink,
  standBy,
  startAsPrimary,
  type Takeover,
  type VenueClock,
  type VenuePorts,
} from '@venue/adapters';
import { createProofVerifier, createStandInMatchProver, loadNoteHasher } from '@venue/notes';
import { signOracleUpdate, tradingKeyFromSeed } from '@venue/protocol';
import { testMarket } from './core-fixtures.ts';
import {
  FAILOVER_MEASUREMENT,
  type FailoverWorld,
  failoverCoreConfig,
  loadFailoverWorld,
  saveWorld,
} from './failover-world.ts';
import { connectRemoteChain } from './remote-chain-ports.ts';
import { chainlessPorts, testListing } from './venue-fixture.ts';

const MARKETS = [testMarket('SOL-USDC'), testMarket('ETH-USDC')];

export interface FailoverVenueConfig {
  readonly dir: string;
  readonly role: 'primary' | 'standby';
  readonly servers: readonly string[];
  readonly stream: string;
  readonly port: number;
  readonly traders: number;
  readonly name: string;
  readonly leaseTtlMs: number;
  readonly leaseRenewMs: number;
}

/** A cluster that just started may still be electing its JetStream leader: try a few times. */
async function openLink(config: FailoverVenueConfig) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await openJetStreamLink({ servers: config.servers, stream: config.stream, replicas: 3 });
    } catch (error) {
      if (attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function say(line: unknown): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as FailoverVenueConfig;
  const world = await loadFailoverWorld(config.dir);
  const platform = createSimulatedPlatform(
    tradingKeyFromSeed(Buffer.from(world.rootSeedHex, 'hex')),
    Buffer.from(world.platformSecretHex, 'hex'),
  );
  const sealingKey = platform.sealingKey(FAILOVER_MEASUREMENT);
  const core = await failoverCoreConfig(world);
  // Loaded before the wait, so a takeover does not pay for it.
  const settling = world.chain === undefined ? null : await settlingParts(world);
  const link = await openLink(config);
  const options = {
    link,
    sealingKey,
    config: core,
    companionNames: ['note-openings', 'match-facts', 'landed-batches'],
    holder: config.name,
    timings: { ttlMs: config.leaseTtlMs, renewEveryMs: config.leaseRenewMs },
    log: (line: string) => say({ log: line }),
    onLeaseLost: (reason: string) => {
      // Fencing already stops its appends; leaving makes room for a standby at once.
      say({ leaseLost: reason });
      process.exit(3);
    },
  };
  let takeover: Takeover;
  if (config.role === 'primary') takeover = await startAsPrimary(options);
  else {
    takeover = await standBy({
      ...options,
      onFollowing: (position) => say({ following: { name: config.name, position: position.seq.toString() } }),
    });
  }
  const tookOverAtMs = Date.now();
  const identity = await createBootIdentity();
  const identityAtMs = Date.now();
  const clock = settling?.chain.clock ?? createWallSlotClock({ genesisMs: world.genesisMs });
  const enclave = await createEnclave({
    identity,
    platform,
    measurement: FAILOVER_MEASUREMENT,
    nowMs: clock.nowMs(),
    // Every instance signs settlements as the same settler, so one governance entry names them all.
    sealedSettlementSigner: true,
  });
  const ports: VenuePorts & { readonly front: FrontPorts } =
    settling === null
      ? { ...chainlessPorts(identity, clock), enclave }
      : await settlingPorts(settling, identity, enclave, (line) => say({ log: line }));
  const { server } = await assembleVenue(ports, {
    core,
    markets: MARKETS.map(testListing),
    settles: settling !== null,
    proofMode: settling === null ? 'stub' : 'groth16',
    state: {
      // Each instance its own state directory, as on its own machine: the accounts reach a
      // standby through the stream's object store, not a shared file.
      directory: join(config.dir, `state-${config.name}`),
      sealingKey,
      snapshotIntervalRecords: 400,
      stream: { link, follower: takeover.follower, lease: takeover.lease },
    },
  });
  const assembledAtMs = Date.now();
  const engine = server.engine;
  takeover.announceWith(() => ({ seq: engine.journal?.lastSeq ?? 0n, stateHash: engine.core.stateHash() }));
  if (world.admin === undefined) {
    const admin = await server.provision('admin', 'failover operator');
    const traders = [];
    for (let i = 0; i < config.traders; i += 1)
      traders.push(await server.provision('trader', `failover-${i}`));
    await saveWorld(config.dir, { ...world, admin, traders });
  }
  await server.http.listen({ host: '127.0.0.1', port: config.port });
  say({
    ready: {
      name: config.name,
      port: config.port,
      sessionId: identity.sessionId,
      position: takeover.position.seq.toString(),
      verifiedSeq: takeover.verified?.seq.toString() ?? null,
      leaseFreeAtMs: takeover.leaseFreeAtMs,
      tookOverAtMs,
      identityAtMs,
      assembledAtMs,
      readyAtMs: Date.now(),
    },
  });
  process.once('SIGTERM', () => {
    void (async () => {
      const journal = engine.journal;
      // What the core and the journal held when the stop began, for a failure's diagnosis.
      const atStop = { seq: journal?.lastSeq.toString() ?? null, slot: engine.core.slot.toString() };
      const stopAtMs = Date.now();
      // Closing the journal releases the lease and the connection. The watches, the settlement
      // pipeline and the oracle are left beating on purpose: the engine applies nothing once its
      // stop began (D119), so the state below is still exactly the journal's.
      await server.close();
      // The state after the stop, and beside it what the failover test needs to explain a
      // difference from a replay: the journal's last record (the replay must end there), the
      // record the takeover read the stream to, the core's slot, and the whole state in a file.
      const snapshotFile = join(config.dir, `last-state-${config.name}.json`);
      await writeFile(snapshotFile, engine.core.snapshot());
      say({
        stateHash: engine.core.stateHash(),
        lastSeq: journal?.lastSeq.toString() ?? null,
        takeoverSeq: takeover.position.seq.toString(),
        slot: engine.core.slot.toString(),
        /** The chain's slot now: past `slot` when the chain beat while the venue stopped. */
        clockSlot: clock.slot().toString(),
        stopMs: Date.now() - stopAtMs,
        atStop,
        journalFailure: journal?.failure?.code ?? null,
        snapshotFile,
      });
      process.exit(0);
    })();
  });
}

/** What a settling instance loads before it waits: the chain link, the hasher, the verifier. */
async function settlingParts(world: FailoverWorld) {
  const chainAt = world.chain as NonNullable<FailoverWorld['chain']>;
  const hasher = await loadNoteHasher();
  // A settling venue takes only real VALID_INPUT proofs (decisions section 4).
  const verifier = createProofVerifier({
    mode: 'groth16',
    settles: true,
    assetOf: assetOfOrder(() => MARKETS),
    workers: 1,
  });
  await verifier.ready();
  const chain = await connectRemoteChain({
    url: chainAt.url,
    pollMs: chainAt.pollMs,
    slotMs: chainAt.slotMs,
    treeCount: (await failoverCoreConfig(world)).treeCount,
    log: (line) => say({ log: line }),
  });
  // One publisher for every instance, derived from the world: each new primary trusts the same key.
  const oracleKey = tradingKeyFromSeed(
    createHash('sha256').update(`failover-oracle-${world.rootSeedHex}`).digest(),
  );
  return { hasher, verifier, chain, oracleKey };
}

/**
 * A publisher whose price stands still at 1000 (the crossing pairs' price), one signed update per
 * slot. Its sequence is the slot, so a new primary's first update is above the last one the
 * journal holds.
 */
function steadyOracle(key: ReturnType<typeof tradingKeyFromSeed>, clock: VenueClock): OraclePort {
  return {
    publisherKeys: new Map(MARKETS.map((market) => [market.oracleFeed, key.publicKey])),
    start(monitor) {
      let last = -1n;
      const beat = () => {
        const slot = clock.slot();
        if (slot <= last) return;
        last = slot;
        for (const market of MARKETS) {
          const update = {
            feed: market.oracleFeed,
            price: 1000n,
            confidence: 1n,
            publish_slot: slot,
            sequence: slot,
          };
          monitor.receive(signOracleUpdate(update, key), slot);
        }
      };
      beat();
      const timer = setInterval(beat, clock.slotDurationMs / 2);
      return { stop: () => clearInterval(timer) };
    },
  };
}

/** The ports of a settling instance: the remote chain, real input proofs, the stand-in match prover. */
async function settlingPorts(
  parts: Awaited<ReturnType<typeof settlingParts>>,
  identity: BootIdentity,
  enclave: Awaited<ReturnType<typeof createEnclave>>,
  log: (line: string) => void,
): Promise<VenuePorts & { readonly front: FrontPorts }> {
  const { hasher, verifier, chain } = parts;
  return {
    clock: chain.clock,
    oracle: steadyOracle(parts.oracleKey, chain.clock),
    proofs: { verifier },
    hasher,
    enclave,
    roots: chain.roots,
    chain: await chain.settlingPorts(
      enclave.settlementSigner,
      // docs/settlement.md: tests may prove legs with the stand-in (the chain runs in stand-in mode).
      createStandInMatchProver(hasher),
      MARKETS.map((market) => market.marketId),
    ),
    log,
    front: { identity, log: { level: 'silent' } },
  };
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
