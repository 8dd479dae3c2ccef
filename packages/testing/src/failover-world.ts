/**
 * The shared world of a failover test: the platform secret and root key every venue instance of the
 * test boots with (so they share the sealing key and attest under one root), the wall time slot 0
 * began, and the accounts the first primary provisioned. Kept in `<dir>/world.json`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createBootIdentity,
  createEnclave,
  createSimulatedPlatform,
  openJetStreamLink,
  recoverFromJetStream,
} from '@venue/adapters';
import { type CoreConfig, type CoreEvent, matchEventsOf, VenueCore } from '@venue/core';
import { loadNoteHasher } from '@venue/notes';
import { tradingKeyFromSeed } from '@venue/protocol';
import { CRASH_CORE_CONFIG } from './core-fixtures.ts';

export interface FailoverWorld {
  readonly genesisMs: number;
  readonly platformSecretHex: string;
  readonly rootSeedHex: string;
  readonly admin?: { api_key: string; api_secret: string; passphrase: string };
  readonly traders?: { api_key: string; api_secret: string; passphrase: string; account_id: string }[];
  /**
   * Present when the instances settle: the chain simulator's JSON-RPC URL (its own process) and how
   * often an instance polls it. Orders then carry real VALID_INPUT proofs.
   */
  readonly chain?: { readonly url: string; readonly pollMs: number; readonly slotMs: number };
}

/**
 * The core of a settling failover world: Poseidon note commitments (real proofs), locks long enough
 * to outlive a few takeovers, and a root window that keeps the roots the test's notes were proved
 * against while settled batches add roots to their shard.
 */
export async function failoverCoreConfig(world: FailoverWorld): Promise<CoreConfig> {
  if (world.chain === undefined) return CRASH_CORE_CONFIG;
  const hasher = await loadNoteHasher();
  return {
    ...CRASH_CORE_CONFIG,
    lockDurationSlots: 600n,
    rootWindowMax: 64,
    noteCommitment: hasher.noteCommitment,
  };
}

/**
 * The settlement signer every instance of the world signs with: derived from the shared sealing key
 * (createEnclave's sealed signer), so one governance entry names every primary the test will have.
 */
export async function failoverSettlementSigner(world: FailoverWorld): Promise<string> {
  const enclave = await createEnclave({
    identity: await createBootIdentity(),
    platform: createSimulatedPlatform(
      tradingKeyFromSeed(Buffer.from(world.rootSeedHex, 'hex')),
      Buffer.from(world.platformSecretHex, 'hex'),
    ),
    measurement: FAILOVER_MEASUREMENT,
    nowMs: Date.now(),
    sealedSettlementSigner: true,
  });
  return enclave.settlementSigner.publicKey;
}

/** A match as the journal knows it: its order's note, and its outcome if one was journaled. */
export interface JournaledMatch {
  readonly marketId: string;
  readonly matchId: bigint;
  readonly noteCommitment: string;
  outcome: { readonly settled: true } | { readonly settled: false; readonly reason: string } | null;
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
 * snapshots ignored: what the live primary's state must equal. With `hashAtSeq` it also gives the
 * state hash right after that record (null if the stream has no such record), which tells a replay
 * that read more or fewer records than the primary journaled from one that applied them differently.
 */
export async function replayStreamStateHash(
  world: FailoverWorld,
  servers: readonly string[],
  stream: string,
  hashAtSeq?: bigint,
) {
  const platform = createSimulatedPlatform(
    tradingKeyFromSeed(Buffer.from(world.rootSeedHex, 'hex')),
    Buffer.from(world.platformSecretHex, 'hex'),
  );
  const link = await openJetStreamLink({ servers, stream, replicas: 3 });
  try {
    const core = new VenueCore(await failoverCoreConfig(world));
    const matches = new Map<string, JournaledMatch>();
    const key = (marketId: string, matchId: bigint) => `${marketId}/${matchId}`;
    let hashAt: string | null = null;
    const recovery = await recoverFromJetStream({
      link,
      sealingKey: platform.sealingKey(FAILOVER_MEASUREMENT),
      ignoreSnapshots: true,
      onCommand: (command, seq) => {
        const events: CoreEvent[] = core.apply(command);
        if (seq === hashAtSeq) hashAt = core.stateHash();
        for (const event of matchEventsOf(events)) {
          matches.set(key(event.marketId, event.matchId), {
            marketId: event.marketId,
            matchId: event.matchId,
            noteCommitment: event.noteCommitment,
            outcome: null,
          });
        }
        if (command.type === 'match_settled' || command.type === 'match_failed') {
          const match = matches.get(key(command.marketId, command.matchId));
          if (match === undefined) throw new Error(`an outcome of unknown match ${command.matchId}`);
          if (match.outcome !== null) throw new Error(`match ${command.matchId} has two outcomes`);
          match.outcome =
            command.type === 'match_settled' ? { settled: true } : { settled: false, reason: command.reason };
        }
      },
    });
    return {
      stateHash: core.stateHash(),
      /** The last record of the stream (the replay applied every record up to it). */
      records: recovery.position.seq,
      /** The stream message holding it. */
      lastMessage: recovery.position.message ?? null,
      replayed: recovery.replayed,
      hashAt: hashAt as string | null,
      slot: core.slot,
      snapshot: core.snapshot(),
      matches: [...matches.values()],
    };
  } finally {
    await link.close();
  }
}
