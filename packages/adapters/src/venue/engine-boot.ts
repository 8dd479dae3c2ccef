import { join } from 'node:path';
import { type CoreConfig, VenueCore } from '@venue/core';
import type { VenueClock } from '../chain/clock.ts';
import { checkLimitRelations } from '../config/limits.ts';
import { FileJournal } from '../journal/file-journal.ts';
import type { JournalFiles } from '../journal/files.ts';
import { JournalRecoveryError, type Recovery, recoverJournal } from '../journal/recovery.ts';
import { replicaSupports } from '../replica/companion-registry.ts';
import { SnapshotReplica } from '../replica/snapshot-replica.ts';
import type { MarketListing } from './market-listing.ts';
import { loadCompanions, parseSnapshot, type StateCompanion } from './state-companion.ts';
import { VenueEngine } from './venue-engine.ts';

/** Where the venue keeps its state, and the key that seals it (the enclave's, stable across boots). */
export interface StateDirectory {
  readonly directory: string;
  readonly sealingKey: Uint8Array;
  readonly files?: JournalFiles;
  readonly snapshotIntervalRecords?: number;
  readonly snapshotIntervalMs?: number;
  /** Keep every journal segment (audit archives, replay-from-scratch checks); see FileJournal. */
  readonly pruneSegments?: boolean;
  /**
   * Who serialises snapshots: `replica`, a worker thread that follows the journal (the sequencer never
   * stops for a snapshot), or `inline`, the sequencer itself in the step the snapshot is due (it
   * stops for as long as serialising the state takes, ~2 s at 100,000 resting orders). Default:
   * `replica`, except on injected `files` (a simulated disk), where one seed must reproduce a run and
   * a thread's timing would not.
   */
  readonly snapshots?: SnapshotMode;
}

export type SnapshotMode = 'replica' | 'inline';

export interface EngineBootOptions {
  readonly config: CoreConfig;
  readonly clock: VenueClock;
  readonly sessionId: string;
  readonly markets: readonly MarketListing[];
  /** Null runs the venue from memory only: nothing survives the process. */
  readonly state: StateDirectory | null;
  readonly onSnapshotError?: (error: unknown) => void;
  /** Adapter state kept in snapshots and rebuilt from the journal (settlement's note openings). */
  readonly companions?: readonly StateCompanion[];
}

export interface EngineBoot {
  readonly engine: VenueEngine;
  /** What recovery found and did; null without a state directory. */
  readonly recovery: Recovery | null;
}

/** The journal lives in `<state>/journal`; other durable files (accounts) sit beside it. */
export function journalDirectoryOf(state: StateDirectory): string {
  return join(state.directory, 'journal');
}

/**
 * Boots the sequencer. With a state directory: the newest readable snapshot is restored, every
 * journaled command after it is applied again in order (the core is deterministic, so this rebuilds
 * exactly the state that was acknowledged), the journal reopens after the last record, and then this
 * boot's session starts, journaled like any command, so every earlier session's signatures are stale
 * from here on. Markets already in the recovered state keep their books.
 */
export async function bootEngine(options: EngineBootOptions): Promise<EngineBoot> {
  checkLimitRelations();
  const { config, clock, state } = options;
  const companions = options.companions ?? [];
  if (state === null) {
    const engine = new VenueEngine(new VenueCore(config), clock, null, undefined, companions);
    await engine.boot(options.sessionId);
    for (const listing of options.markets) await engine.addMarket(listing);
    return { engine, recovery: null };
  }
  const directory = journalDirectoryOf(state);
  const replica = snapshotReplicaFor(options, state, companions);
  let core = new VenueCore(config);
  let seeded = false;
  const seed = (text: string | null, at?: { seq: bigint; hash: Buffer }) => {
    seeded = true;
    replica?.start(text, at);
  };
  let recovery: Recovery;
  try {
    recovery = await recoverJournal({
      directory,
      sealingKey: state.sealingKey,
      ...(state.files === undefined ? {} : { files: state.files }),
      onSnapshot: (text, seq, hash) => {
        const snapshot = parseSnapshot(text);
        core = VenueCore.restore(config, snapshot.core);
        loadCompanions(companions, snapshot.parts);
        seed(text, { seq, hash });
      },
      onCommand: (command, seq, annotations) => {
        try {
          const events = core.apply(command);
          for (const companion of companions) companion.follow({ command, annotations }, events);
        } catch (error) {
          const detail = error instanceof Error ? error.message : String(error);
          throw new JournalRecoveryError(
            `record ${seq} (a ${command.type} command) no longer applies to the recovered state (${detail}); the core's rules changed since it was written, or the journal belongs to another configuration`,
          );
        }
      },
      ...(replica === null
        ? {}
        : {
            onRecord: (frame: Buffer, key: Buffer) => {
              // Without a snapshot the replica starts empty, before the first record.
              if (!seeded) seed(null);
              replica.feedRecovered(frame, key);
            },
          }),
    });
  } catch (error) {
    await replica?.close();
    throw error;
  }
  if (replica !== null) {
    if (!seeded) seed(null);
    replica.flushRecovered();
  }
  const journal = await FileJournal.open({
    directory,
    sealingKey: state.sealingKey,
    recovery,
    nowMs: clock.nowMs(),
    ...(state.files === undefined ? {} : { files: state.files }),
    ...(state.snapshotIntervalRecords === undefined
      ? {}
      : { snapshotIntervalRecords: state.snapshotIntervalRecords }),
    ...(state.snapshotIntervalMs === undefined ? {} : { snapshotIntervalMs: state.snapshotIntervalMs }),
    ...(state.pruneSegments === undefined ? {} : { pruneSegments: state.pruneSegments }),
  });
  if (replica !== null) journal.onDurable((records) => replica.feed(records));
  const engine = new VenueEngine(core, clock, journal, options.onSnapshotError, companions, replica);
  await engine.boot(options.sessionId);
  for (const listing of options.markets) await engine.addMarket(listing);
  return { engine, recovery };
}

/** The replica this boot uses, or null for inline snapshots (StateDirectory.snapshots). */
function snapshotReplicaFor(
  options: EngineBootOptions,
  state: StateDirectory,
  companions: readonly StateCompanion[],
): SnapshotReplica | null {
  const supported = replicaSupports(companions);
  const mode = state.snapshots ?? (state.files === undefined && supported ? 'replica' : 'inline');
  if (mode === 'inline') return null;
  if (!supported) {
    // An operator error at start-up: the boot stops with this message.
    throw new Error(
      `snapshots: 'replica' needs every state companion to be registered in replica/companion-registry.ts (got ${companions.map((c) => c.name).join(', ')}); register it, or use snapshots: 'inline'`,
    );
  }
  const onFailure = options.onSnapshotError;
  return new SnapshotReplica({
    config: options.config,
    companions,
    sealingKey: state.sealingKey,
    ...(onFailure === undefined ? {} : { onFailure }),
  });
}
