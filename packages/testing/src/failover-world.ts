/**
 * The shared world of a failover test: the platform secret and root key every venue instance of the
 * test boots with (so they share the sealing key and attest under one root), the wall time slot 0
 * began, and the accounts the first primary provisioned. Kept in `<dir>/world.json`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tradingKeyFromSeed } from '@venue/protocol';

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
