// Annotations survive a restart exactly as the live companions saw them (docs/durability.md,
// records): over random histories with settlement outcomes whose records carry a change opening
// and a landed batch number, the companions rebuilt by recovery, from a snapshot taken at a random
// record and the records after it, or by replaying the whole journal, equal the live ones byte for
// byte; a change opening journaled is remembered, as derived, exactly while an open order rests on
// that change note (issue 20: an ended order's note backs nothing, so its opening goes).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { openingCommands, withTempDir } from '@venue/testing';
import fc from 'fast-check';
import {
  type Annotations,
  type ChangeOpening,
  FileJournal,
  type JournalRecord,
  plainRecord,
  recoverJournal,
} from '../src/journal/index.ts';
import { LandedBatches } from '../src/settlement/landed-batches.ts';
import { MatchFacts } from '../src/settlement/match-facts.ts';
import { NoteOpenings } from '../src/settlement/note-openings.ts';
import { HistoryBuilder, replicaAction } from './replica-commands.ts';
import { SequencerModel } from './sequencer-model.ts';

const KEY = randomBytes(32);

/** A core and its companions, applying records the way the sequencer and recovery do. */
class Venue extends SequencerModel {
  readonly openings: NoteOpenings;

  constructor() {
    const openings = new NoteOpenings();
    super([openings, new MatchFacts(), new LandedBatches()]);
    this.openings = openings;
  }
}

async function recovered(dir: string, ignoreSnapshots: boolean): Promise<Venue> {
  const venue = new Venue();
  await recoverJournal({
    directory: dir,
    sealingKey: KEY,
    ignoreSnapshots,
    onSnapshot: (text) => venue.restore(text),
    onCommand: (command, seq, annotations) =>
      assert.ok(venue.apply({ command, annotations }), `record ${seq} applies again`),
  });
  return venue;
}

test('change openings and landed batch numbers come back from a snapshot and from replay exactly as live', async () => {
  let changeOpenings = 0;
  let stillBacking = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(replicaAction, { minLength: 30, maxLength: 140 }),
      fc.nat(),
      async (actions, cut) => {
        await withTempDir(async (dir) => {
          const recovery = await recoverJournal({ directory: dir, sealingKey: KEY, onCommand: () => {} });
          const journal = await FileJournal.open({
            directory: dir,
            sealingKey: KEY,
            recovery,
            snapshotIntervalRecords: 1_000_000,
            pruneSegments: false,
          });
          const live = new Venue();
          const openings: ChangeOpening[] = [];
          const writes: Promise<unknown>[] = [];
          const snapshotAt = cut % actions.length;
          const journaled = (record: JournalRecord) => {
            if (live.apply(record)) writes.push(journal.append(record));
          };
          for (const command of openingCommands()) journaled(plainRecord(command));
          const builder = new HistoryBuilder();
          for (const [index, action] of actions.entries()) {
            if (index === snapshotAt) writes.push(journal.writeSnapshot(live.snapshot(), 0));
            const record = builder.record(live.core, action);
            if (record === null) continue;
            if (record.command.type !== 'match_settled') {
              journaled(record);
              continue;
            }
            const annotations: Annotations = { ...record.annotations, landedBatchSeq: BigInt(index) };
            journaled({ command: record.command, annotations });
            if (annotations.changeOpening !== undefined) openings.push(annotations.changeOpening);
          }
          await Promise.all(writes);
          await journal.close();

          const fromSnapshot = await recovered(dir, false);
          const replayed = await recovered(dir, true);
          assert.equal(fromSnapshot.snapshot(), live.snapshot(), 'snapshot and the records after it');
          assert.equal(replayed.snapshot(), live.snapshot(), 'every record from the first');
          changeOpenings += openings.length;
          for (const opening of openings) {
            const kept = live.openings.get(opening.commitment);
            assert.deepEqual(replayed.openings.get(opening.commitment), kept, 'replay keeps what live keeps');
            assert.deepEqual(fromSnapshot.openings.get(opening.commitment), kept, 'so does the snapshot');
            if (kept === undefined) continue;
            stillBacking += 1;
            assert.deepEqual(kept, {
              ownerCommitment: opening.ownerCommitment,
              innerHash: opening.innerHash,
              derived: true,
            });
          }
        });
      },
    ),
    { seed: 18, numRuns: 25 },
  );
  assert.ok(changeOpenings > 10, `the histories journaled ${changeOpenings} change openings`);
  assert.ok(stillBacking > 0, `${stillBacking} change notes still backed an open order at the end`);
});
