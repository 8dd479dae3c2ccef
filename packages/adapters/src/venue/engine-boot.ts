import { join } from 'node:path';
import { type CoreConfig, VenueCore } from '@venue/core';
import type { VenueClock } from '../chain/clock.ts';
import { checkLimitRelations } from '../config/limits.ts';
import { FileJournal } from '../journal/file-journal.ts';
import type { JournalFiles } from '../journal/files.ts';
import { JetStreamJournal, type JetStreamJournalOptions } from '../journal/jetstream/jetstream-journal.ts';
import { JetStreamLease, type LeaseTimings } from '../journal/jetstream/jetstream-lease.ts';
import {
  type JetStreamLink,
  type JetStreamSettings,
  openJetStreamLink,
} from '../journal/jetstream/jetstream-link.ts';
import { recoverFromJetStream } from '../journal/jetstream/jetstream-recovery.ts';
import { JournalRecoveryError, type Recovery, recoverJournal } from '../journal/recovery.ts';
import { replicaSupports } from '../replica/companion-registry.ts';
import { SnapshotReplica } from '../replica/snapshot-replica.ts';
import type { StreamFollower } from '../standby/stream-follower.ts';
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
  /**
   * Keep the journal and snapshots in a JetStream cluster instead of `<directory>/journal`
   * (docs/durability.md, "The journal on JetStream"); other durable files stay in `directory`.
   */
  readonly jetstream?: JetStreamJournalSetup;
  /**
   * A stream this instance took over as a hot standby (standby/takeover.ts): the follower has read
   * it to its end and holds the state, and the journal continues after it. Snapshots are taken
   * inline on this path for now.
   */
  readonly stream?: StreamJournalSource;
}

/** A stream the venue takes over: its connection, the caught-up follower, the lease it holds. */
export interface StreamJournalSource {
  readonly link: JetStreamLink;
  readonly follower: StreamFollower;
  /** Released when the journal closes, so the next standby need not wait it out. */
  readonly lease?: JetStreamLease;
  readonly journal?: Pick<
    JetStreamJournalOptions,
    'ackWindow' | 'publishTimeoutMs' | 'retryPauseMs' | 'stallAfterMs' | 'onStall'
  >;
}

/** A primary's journal on JetStream: the cluster, and the lease it holds while it runs. */
export interface JetStreamJournalSetup {
  readonly settings: JetStreamSettings;
  /** This instance's name in the lease (host name, pod name). */
  readonly holder: string;
  readonly lease: LeaseTimings;
  /** Told when the lease is lost; the journal's fencing still stops any write after a takeover. */
  readonly onLeaseLost?: (reason: string) => void;
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
  /** What recovery of the file journal found and did; null without a state directory or on JetStream. */
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
  if (state.stream !== undefined) return await bootFromStream(options, state, state.stream, companions);
  const directory = journalDirectoryOf(state);
  const replica = snapshotReplicaFor(options, state, companions);
  let core = new VenueCore(config);
  let seeded = false;
  const seed = (text: string | null, at?: { seq: bigint; hash: Buffer }) => {
    seeded = true;
    replica?.start(text, at);
  };
  const onSnapshot = (text: string, seq: bigint, hash: Buffer) => {
    const snapshot = parseSnapshot(text);
    core = VenueCore.restore(config, snapshot.core);
    loadCompanions(companions, snapshot.parts);
    seed(text, { seq, hash });
  };
  const onCommand: Parameters<typeof recoverJournal>[0]['onCommand'] = (command, seq, annotations) => {
    try {
      const events = core.apply(command);
      for (const companion of companions) companion.follow({ command, annotations }, events);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new JournalRecoveryError(
        `record ${seq} (a ${command.type} command) no longer applies to the recovered state (${detail}); the core's rules changed since it was written, or the journal belongs to another configuration`,
      );
    }
  };
  const onRecord =
    replica === null
      ? undefined
      : (frame: Buffer, key: Buffer) => {
          // Without a snapshot the replica starts empty, before the first record.
          if (!seeded) seed(null);
          replica.feedRecovered(frame, key);
        };
  let recovery: Recovery | null = null;
  let journal: FileJournal | JetStreamJournal | null = null;
  try {
    if (state.jetstream !== undefined) {
      journal = await openJetStreamJournal(state, state.jetstream, clock.nowMs(), {
        onSnapshot,
        onCommand,
        ...(onRecord === undefined ? {} : { onRecord }),
      });
    } else {
      recovery = await recoverJournal({
        directory,
        sealingKey: state.sealingKey,
        ...(state.files === undefined ? {} : { files: state.files }),
        onSnapshot,
        onCommand,
        ...(onRecord === undefined ? {} : { onRecord }),
      });
    }
  } catch (error) {
    await replica?.close();
    throw error;
  }
  if (replica !== null) {
    if (!seeded) seed(null);
    replica.flushRecovered();
  }
  if (recovery !== null) {
    journal = await FileJournal.open({
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
  }
  if (journal === null) throw new Error('bootEngine: no journal was opened');
  const opened = journal;
  if (replica !== null) opened.onDurable((records) => replica.feed(records));
  const engine = new VenueEngine(core, clock, opened, options.onSnapshotError, companions, replica);
  await engine.boot(options.sessionId);
  for (const listing of options.markets) await engine.addMarket(listing);
  return { engine, recovery };
}

/**
 * A primary's boot on JetStream: connect, take the lease (a boot while another instance holds it
 * stops here), recover from the stream, and open the journal after its last record.
 */
async function openJetStreamJournal(
  state: StateDirectory,
  setup: JetStreamJournalSetup,
  nowMs: number,
  callbacks: Pick<Parameters<typeof recoverFromJetStream>[0], 'onSnapshot' | 'onCommand' | 'onRecord'>,
): Promise<JetStreamJournal> {
  const link = await openJetStreamLink(setup.settings);
  try {
    const lease = await JetStreamLease.acquire({
      link,
      holder: setup.holder,
      timings: setup.lease,
      onLost: setup.onLeaseLost ?? (() => {}),
    });
    const found = await recoverFromJetStream({ link, sealingKey: state.sealingKey, ...callbacks });
    return new JetStreamJournal({
      link,
      sealingKey: state.sealingKey,
      position: found.position,
      snapshotSeq: found.snapshot?.seq ?? 0n,
      nowMs,
      lease,
      ...(state.snapshotIntervalRecords === undefined
        ? {}
        : { snapshotIntervalRecords: state.snapshotIntervalRecords }),
      ...(state.snapshotIntervalMs === undefined ? {} : { snapshotIntervalMs: state.snapshotIntervalMs }),
    });
  } catch (error) {
    await link.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Boots on a stream the follower has read to its end (a standby taking over): the follower's core
 * and companions become the venue's, and the journal appends after its last record. The first
 * append (this boot's session) expects exactly that record to be the stream's last, so if another
 * writer appended meanwhile the boot fails with JOURNAL_FENCED instead of forking the journal.
 */
async function bootFromStream(
  options: EngineBootOptions,
  state: StateDirectory,
  source: StreamJournalSource,
  companions: readonly StateCompanion[],
): Promise<EngineBoot> {
  const { follower } = source;
  loadCompanions(companions, follower.companionParts());
  const journal = new JetStreamJournal({
    link: source.link,
    sealingKey: state.sealingKey,
    position: follower.position,
    snapshotSeq: follower.snapshotSeq,
    nowMs: options.clock.nowMs(),
    ...(source.lease === undefined ? {} : { lease: source.lease }),
    ...(state.snapshotIntervalRecords === undefined
      ? {}
      : { snapshotIntervalRecords: state.snapshotIntervalRecords }),
    ...(state.snapshotIntervalMs === undefined ? {} : { snapshotIntervalMs: state.snapshotIntervalMs }),
    ...source.journal,
  });
  const engine = new VenueEngine(follower.core, options.clock, journal, options.onSnapshotError, companions);
  await engine.boot(options.sessionId);
  for (const listing of options.markets) await engine.addMarket(listing);
  return { engine, recovery: null };
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
