/**
 * The snapshot replica (docs/durability.md): a copy of the venue's state on its own thread, fed the
 * durable journal, produces the snapshots so the sequencer never stops for one. What users rely on:
 * a snapshot it writes is exactly the sequencer's state at that record (so a restart from it is
 * the venue they left), and a replica that fails or falls behind never blocks, loses or reorders an
 * acknowledged command.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Command, VenueCore } from '@venue/core';
import { isVenueError } from '@venue/protocol';
import {
  JOURNAL_TEST_MARKET,
  ManualClock,
  openingCommands,
  TEST_CORE_CONFIG,
  TEST_SESSION,
  testListing,
  withTempDir,
} from '@venue/testing';
import fc from 'fast-check';
import {
  decodeRecord,
  FileJournal,
  type JournalRecord,
  plainRecord,
  RecordEncoder,
  recoverJournal,
} from '../src/journal/index.ts';
import { coreSettingsOf, ReplicaState, SnapshotReplica } from '../src/replica/index.ts';
import { MatchFacts } from '../src/settlement/match-facts.ts';
import { NoteOpenings } from '../src/settlement/note-openings.ts';
import { bootEngine } from '../src/venue/engine-boot.ts';
import { composeSnapshot, parseSnapshot } from '../src/venue/state-companion.ts';
import { type UnstampedCommand, VenueEngine } from '../src/venue/venue-engine.ts';
import { HistoryBuilder, replicaAction } from './replica-commands.ts';
import { SequencerModel } from './sequencer-model.ts';

const COMPANION_NAMES = ['note-openings', 'match-facts'];

/** The sequencer's side in these tests: a core and its companions, as the engine keeps them. */
class Primary extends SequencerModel {
  constructor() {
    super([new NoteOpenings(), new MatchFacts()]);
  }
}

describe('snapshot replica: state', () => {
  test('its snapshot at every point equals the sequencer’s, byte for byte (random histories)', () => {
    fc.assert(
      fc.property(fc.array(replicaAction, { minLength: 20, maxLength: 160 }), (actions) => {
        const primary = new Primary();
        let replica = new ReplicaState(coreSettingsOf(TEST_CORE_CONFIG), COMPANION_NAMES, null);
        const encoder = new RecordEncoder();
        const journal = (record: JournalRecord) => {
          if (!primary.apply(record)) return;
          // The replica sees what the journal holds: the record encoded and decoded again.
          replica.apply(decodeRecord(Buffer.from(encoder.encode(record))));
        };
        for (const command of openingCommands()) journal(plainRecord(command));
        const builder = new HistoryBuilder();
        for (const action of actions) {
          if (action.kind === 'snapshot') assert.equal(replica.snapshot(), primary.snapshot());
          else if (action.kind === 'restart') {
            // A replica started from the sequencer's snapshot continues exactly as it would have.
            replica = new ReplicaState(coreSettingsOf(TEST_CORE_CONFIG), COMPANION_NAMES, primary.snapshot());
          } else {
            const record = builder.record(primary.core, action);
            if (record !== null) journal(record);
          }
        }
        assert.equal(replica.snapshot(), primary.snapshot());
        assert.equal(replica.core.stateHash(), primary.core.stateHash());
      }),
      { numRuns: 60 },
    );
  });
});

/** Drops the slot: the engine stamps commands itself. */
function unstamped(command: Command): UnstampedCommand {
  if (command.type === 'add_market') return command;
  const { slot: _slot, ...rest } = command;
  return rest as UnstampedCommand;
}

/**
 * Drives an engine through a random history: intake through submit (refusals are expected), venue
 * commands through record, ticks through the clock.
 */
async function drive(engine: VenueEngine, clock: ManualClock, seed: number, count: number): Promise<void> {
  const actions = fc.sample(replicaAction, { seed, numRuns: count });
  const builder = new HistoryBuilder();
  for (const action of actions) {
    if (action.kind === 'tick') {
      clock.advanceSlots(BigInt(action.slots));
      engine.catchUp();
      continue;
    }
    const record = builder.record(engine.core, action);
    if (record === null) continue;
    const { command, annotations } = record;
    if (
      command.type === 'match_settled' ||
      command.type === 'match_failed' ||
      command.type === 'disconnect'
    ) {
      engine.record(unstamped(command), annotations);
      continue;
    }
    await engine.submit(unstamped(command)).catch((error: unknown) => {
      if (!isVenueError(error)) throw error;
    });
  }
  await engine.settled();
}

async function openVenue(engine: VenueEngine): Promise<void> {
  for (const command of openingCommands()) {
    if (command.type === 'roots' || command.type === 'oracle_price') engine.record(unstamped(command));
  }
  await engine.settled();
}

/** What a restart rebuilds from the directory: the newest snapshot, then the records after it. */
async function recovered(
  dir: string,
  key: Uint8Array,
): Promise<{ state: string; snapshotSeq: bigint | null }> {
  const primary = new Primary();
  const recovery = await recoverJournal({
    directory: dir,
    sealingKey: key,
    onSnapshot: (text) => primary.restore(text),
    onCommand: (command, seq, annotations) =>
      assert.ok(primary.apply({ command, annotations }), `record ${seq} applies`),
  });
  return { state: primary.snapshot(), snapshotSeq: recovery.snapshot?.seq ?? null };
}

/** The state at `seq`, replayed from the journal's first record without any snapshot. */
async function replayedTo(dir: string, key: Uint8Array, seq: bigint): Promise<string> {
  const primary = new Primary();
  await recoverJournal({
    directory: dir,
    sealingKey: key,
    ignoreSnapshots: true,
    onCommand: (command, at, annotations) => {
      if (at <= seq) assert.ok(primary.apply({ command, annotations }), `record ${at} applies`);
    },
  });
  return primary.snapshot();
}

/** The newest snapshot's text, as recovery reads it. */
async function newestSnapshot(dir: string, key: Uint8Array): Promise<{ seq: bigint; text: string }> {
  const recovery = await recoverJournal({ directory: dir, sealingKey: key, onCommand: () => {} });
  assert.ok(recovery.snapshot !== null, 'a snapshot was written');
  return recovery.snapshot;
}

/** A venue whose replica the test configures, on a journal that keeps every segment. */
async function manualVenue(
  dir: string,
  key: Uint8Array,
  options: { backlogBytesMax?: number; restartsMax?: number },
) {
  const clock = new ManualClock();
  const companions = [new NoteOpenings(), new MatchFacts()];
  const recovery = await recoverJournal({ directory: dir, sealingKey: key, onCommand: () => {} });
  const journal = await FileJournal.open({
    directory: dir,
    sealingKey: key,
    recovery,
    snapshotIntervalRecords: 40,
    pruneSegments: false,
    nowMs: clock.nowMs(),
  });
  const failures: Error[] = [];
  let failed: () => void = () => {};
  const firstFailure = new Promise<void>((resolve) => {
    failed = resolve;
  });
  const replica = new SnapshotReplica({
    config: TEST_CORE_CONFIG,
    companions,
    sealingKey: key,
    onFailure: (error) => {
      failures.push(error);
      failed();
    },
    ...options,
  });
  replica.start(null);
  journal.onDurable((records) => replica.feed(records));
  const snapshotErrors: unknown[] = [];
  const engine = new VenueEngine(
    new VenueCore(TEST_CORE_CONFIG),
    clock,
    journal,
    (error) => snapshotErrors.push(error),
    companions,
    replica,
  );
  await engine.boot(TEST_SESSION);
  await engine.addMarket(testListing(JOURNAL_TEST_MARKET));
  await openVenue(engine);
  const state = () => composeSnapshot(engine.core.snapshot(), companions);
  return { engine, clock, replica, failures, firstFailure, snapshotErrors, state };
}

describe('snapshot replica: in a venue', () => {
  test('its snapshot files equal a replay to their record; a restart from one rebuilds the venue left', async () => {
    await withTempDir(async (dir) => {
      const key = randomBytes(32);
      const clock = new ManualClock();
      const snapshotErrors: unknown[] = [];
      const { engine } = await bootEngine({
        config: TEST_CORE_CONFIG,
        clock,
        sessionId: TEST_SESSION,
        markets: [testListing(JOURNAL_TEST_MARKET)],
        state: { directory: dir, sealingKey: key, snapshotIntervalRecords: 40, pruneSegments: false },
        onSnapshotError: (error) => snapshotErrors.push(error),
        companions: [new NoteOpenings(), new MatchFacts()],
      });
      assert.equal(engine.replica?.running, true, 'a venue with a state directory snapshots on a replica');
      await openVenue(engine);
      await drive(engine, clock, 11, 300);
      const left = engine.core.stateHash();
      await engine.close();
      assert.deepEqual(snapshotErrors, []);
      // Every snapshot came from the replica (none inline: it never failed, so none seeded a restart).
      assert.ok((engine.replica?.stats.snapshots ?? 0) >= 1, 'the replica wrote the snapshots');
      assert.equal(engine.replica?.stats.failures, 0);

      const journalDir = join(dir, 'journal');
      const newest = await newestSnapshot(journalDir, key);
      assert.equal(newest.text, await replayedTo(journalDir, key, newest.seq));
      const restart = await recovered(journalDir, key);
      assert.equal(restart.snapshotSeq, newest.seq);
      assert.equal(createHashOf(parseSnapshot(restart.state).core), left);
    });
  });

  test('a replica that fails mid-run is dropped, one snapshot goes inline, and a fresh replica takes over', async () => {
    await withTempDir(async (dir) => {
      const key = randomBytes(32);
      const venue = await manualVenue(dir, key, {});
      await drive(venue.engine, venue.clock, 21, 60);
      // Damaged bytes make the replica's thread fail, as any bug or crash there would.
      venue.replica.feed({ frames: randomBytes(4096), key: randomBytes(32) });
      await venue.firstFailure;
      assert.equal(venue.replica.running, false);
      const before = venue.replica.stats.snapshots;
      // Acknowledged commands keep flowing while the replica is gone and after it is back.
      await drive(venue.engine, venue.clock, 22, 200);
      const state = venue.state();
      await venue.engine.close();
      assert.equal(venue.replica.stats.restarts, 1, 'the inline snapshot seeded one fresh replica');
      assert.ok(venue.replica.stats.snapshots > before, 'the fresh replica wrote the later snapshots');
      const newest = await newestSnapshot(dir, key);
      assert.equal(newest.text, await replayedTo(dir, key, newest.seq));
      assert.equal((await recovered(dir, key)).state, state);
    });
  });

  test('a replica that falls behind its backlog limit is dropped; commands are never held back for it', async () => {
    await withTempDir(async (dir) => {
      const key = randomBytes(32);
      // A backlog of one byte: every replica falls behind at its first batch.
      const venue = await manualVenue(dir, key, { backlogBytesMax: 1, restartsMax: 2 });
      await drive(venue.engine, venue.clock, 31, 300);
      const state = venue.state();
      await venue.engine.close();
      assert.equal(venue.replica.stats.failures, 3, 'the first replica and both restarts fell behind');
      assert.equal(venue.replica.stats.restarts, 2, 'restarts stop at restartsMax');
      assert.ok(venue.failures.every((error) => /REPLICA_BACKLOG_BYTES_MAX/.test(error.message)));
      // Snapshots went inline; recovery from them gives the venue that was left.
      const newest = await newestSnapshot(dir, key);
      assert.equal(newest.text, await replayedTo(dir, key, newest.seq));
      assert.equal((await recovered(dir, key)).state, state);
    });
  });
});

function createHashOf(coreText: string): string {
  return createHash('sha256').update(coreText).digest('hex');
}
