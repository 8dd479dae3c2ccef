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
import { join } from 'node:path';
import {
  assembleVenue,
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  createWallSlotClock,
  openJetStreamLink,
  standBy,
  startAsPrimary,
  type Takeover,
} from '@venue/adapters';
import { tradingKeyFromSeed } from '@venue/protocol';
import { CRASH_CORE_CONFIG, testMarket } from './core-fixtures.ts';
import { FAILOVER_MEASUREMENT, loadFailoverWorld, saveWorld } from './failover-world.ts';
import { chainlessPorts, testListing } from './venue-fixture.ts';

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
  const link = await openLink(config);
  const options = {
    link,
    sealingKey,
    config: CRASH_CORE_CONFIG,
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
  const clock = createWallSlotClock({ genesisMs: world.genesisMs });
  const enclave = await createEnclave({
    identity,
    platform,
    measurement: FAILOVER_MEASUREMENT,
    nowMs: clock.nowMs(),
  });
  const { server } = await assembleVenue(
    { ...chainlessPorts(identity, clock), enclave },
    {
      core: CRASH_CORE_CONFIG,
      markets: [testListing(testMarket('SOL-USDC')), testListing(testMarket('ETH-USDC'))],
      settles: false,
      proofMode: 'stub',
      state: {
        // Each instance its own state directory, as on its own machine: the accounts reach a
        // standby through the stream's object store, not a shared file.
        directory: join(config.dir, `state-${config.name}`),
        sealingKey,
        snapshotIntervalRecords: 400,
        stream: { link, follower: takeover.follower, lease: takeover.lease },
      },
    },
  );
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
      // Closing the journal releases the lease and the connection.
      await server.close();
      say({ stateHash: engine.core.stateHash(), lastSeq: takeover.follower.position.seq.toString() });
      process.exit(0);
    })();
  });
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
