/**
 * The shared world of a failover test: the platform secret and root key every venue instance of the
 * test boots with (so they share the sealing key and attest under one root), the wall time slot 0
 * began, and the accounts the first primary provisioned. Kept in `<dir>/world.json`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSimulatedPlatform, openJetStreamLink, recoverFromJetStream } from '@venue/adapters';
import { VenueCore } from '@venue/core';
import { tradingKeyFromSeed } from '@venue/protocol';
import { CRASH_CORE_CONFIG } from './core-fixtures.ts';

export interface FailoverWorld {
  readonly genesisMs: number;
  readonly platformSecretHex: string;
  readonly rootSeedHex: string;
  readonly admin?: { api_key: string; api_secret: string; passphrase: string };
  readonly traders?: { api_key: string; api_secret: string; passphrase: string; account_id: string }[];
}

/** The code measurement every instance attests (a fixed build for the test). */
export const FAILOVER_MEASUREMENT = createHash('sha256').update('failover-test-build').digest('hex');

/** The world of a test directory: created by the caller before any instance starts. */
export async function createFailoverWorld(dir: string): Promise<FailoverWorld> {
  const world: FailoverWorld = {
    genesisMs: Date.now(),
    platformSecretHex: randomBytes(32).toString('hex'),
    rootSeedHex: randomBytes(32).toString('hex'),
  };
  await saveWorld(dir, world);
  return world;
}

export async function loadFailoverWorld(dir: string): Promise<FailoverWorld> {
  return JSON.parse(await readFile(join(dir, 'world.json'), 'utf8')) as FailoverWorld;
}

/** The trust anchors a client of these instances uses. */
export function failoverTrust(world: FailoverWorld) {
  const root = tradingKeyFromSeed(Buffer.from(world.rootSeedHex, 'hex'));
  const keyId = createHash('sha256').update(Buffer.from(root.publicKey, 'hex')).digest('hex');
  return { roots: new Map([[keyId, root.publicKey]]), measurements: new Set([FAILOVER_MEASUREMENT]) };
}

export async function saveWorld(dir: string, world: FailoverWorld): Promise<void> {
  const file = join(dir, 'world.json');
  await writeFile(`${file}.tmp`, JSON.stringify(world), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

/**
 * The state hash of a replay of the whole journal stream from its first record into an empty core,
 * snapshots ignored: what the live primary's state must equal.
 */
export async function replayStreamStateHash(
  world: FailoverWorld,
  servers: readonly string[],
  stream: string,
) {
  const platform = createSimulatedPlatform(
    tradingKeyFromSeed(Buffer.from(world.rootSeedHex, 'hex')),
    Buffer.from(world.platformSecretHex, 'hex'),
  );
  const link = await openJetStreamLink({ servers, stream, replicas: 3 });
  try {
    const core = new VenueCore(CRASH_CORE_CONFIG);
    const recovery = await recoverFromJetStream({
      link,
      sealingKey: platform.sealingKey(FAILOVER_MEASUREMENT),
      ignoreSnapshots: true,
      onCommand: (command) => {
        core.apply(command);
      },
    });
    return { stateHash: core.stateHash(), records: recovery.position.seq };
  } finally {
    await link.close();
  }
}
