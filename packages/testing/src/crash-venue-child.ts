/**
 * A venue in its own process, for crash tests: started with `node --import tsx`, it keeps its state
 * in `<dir>/state` (journal, snapshots, accounts, sealed under a key derived from `<dir>`'s platform
 * secret), prints one JSON line `{"ready": ...}` once it listens, and on SIGTERM closes gracefully and
 * prints `{"stateHash": ...}`. The test kills it with SIGKILL at random moments and starts it again.
 *
 * Configuration comes as one JSON argument (CrashVenueConfig). On its first boot it creates an admin
 * and the traders and writes their credentials to `<dir>/credentials.json` (outside the state
 * directory, which must never hold anything in clear); later boots find the accounts in the state.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assembleVenue,
  createBootIdentity,
  createSimulatedPlatform,
  createWallSlotClock,
} from '@venue/adapters';
import { generateTradingKey } from '@venue/protocol';
import { CRASH_CORE_CONFIG, testMarket } from './core-fixtures.ts';
import { chainlessPorts, testListing } from './venue-fixture.ts';

export interface CrashVenueConfig {
  readonly dir: string;
  readonly traders: number;
  readonly snapshotIntervalRecords: number;
}

/** What a first boot writes for the test: credentials, and the wall time slot 0 began. */
export interface CrashVenueWorld {
  readonly genesisMs: number;
  readonly platformSecretHex: string;
  readonly admin: { api_key: string; api_secret: string; passphrase: string };
  readonly traders: { api_key: string; api_secret: string; passphrase: string; account_id: string }[];
}

const MEASUREMENT = 'crash-test-build';

async function loadWorld(
  dir: string,
): Promise<Omit<CrashVenueWorld, 'admin' | 'traders'> & Partial<CrashVenueWorld>> {
  try {
    return JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as CrashVenueWorld;
  } catch {
    return { genesisMs: Date.now(), platformSecretHex: randomBytes(32).toString('hex') };
  }
}

async function saveWorld(dir: string, world: CrashVenueWorld): Promise<void> {
  const file = join(dir, 'world.json');
  await writeFile(`${file}.tmp`, JSON.stringify(world), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as CrashVenueConfig;
  const world = await loadWorld(config.dir);
  const platform = createSimulatedPlatform(generateTradingKey(), Buffer.from(world.platformSecretHex, 'hex'));
  const identity = await createBootIdentity();
  const clock = createWallSlotClock({ genesisMs: world.genesisMs });
  const { server } = await assembleVenue(chainlessPorts(identity, clock), {
    core: CRASH_CORE_CONFIG,
    markets: [testListing(testMarket('SOL-USDC')), testListing(testMarket('ETH-USDC'))],
    settles: false,
    proofMode: 'stub',
    state: {
      directory: join(config.dir, 'state'),
      sealingKey: platform.sealingKey(MEASUREMENT),
      snapshotIntervalRecords: config.snapshotIntervalRecords,
      pruneSegments: false,
    },
  });
  if (world.admin === undefined) {
    const admin = await server.provision('admin', 'crash operator');
    const traders = [];
    for (let i = 0; i < config.traders; i += 1) traders.push(await server.provision('trader', `crash-${i}`));
    await saveWorld(config.dir, {
      genesisMs: world.genesisMs,
      platformSecretHex: world.platformSecretHex,
      admin,
      traders,
    });
  }
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(
    `${JSON.stringify({
      ready: {
        port,
        certPem: identity.certPem,
        sessionId: identity.sessionId,
        replayed: server.recovery?.replayed ?? 0,
        snapshotSeq: server.recovery?.snapshot?.seq.toString() ?? null,
      },
    })}\n`,
  );
  process.once('SIGTERM', () => {
    void (async () => {
      await server.close();
      process.stdout.write(`${JSON.stringify({ stateHash: server.engine.core.stateHash() })}\n`);
      process.exit(0);
    })();
  });
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
