/**
 * Recovery (issue 9): the latest valid snapshot plus the journal's tail gives back the state the
 * venue had; a torn tail is cut off and never applied; damage anywhere else, a broken hash chain or
 * the wrong sealing key stops the boot with an error that says where and what.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFile, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Command, VenueCore } from '@venue/core';
import {
  applied,
  faultyJournalFiles,
  freshTestCore,
  openingCommands,
  randomCommands,
  TEST_CORE_CONFIG,
  withTempDir,
} from '@venue/testing';
import {
  FileJournal,
  JournalRecoveryError,
  NODE_JOURNAL_FILES,
  plainRecord,
  recoverJournal,
} from '../src/journal/index.ts';
import { encodeHead, HEAD_FILE_NAME } from '../src/journal/journal-head.ts';

const KEY = randomBytes(32);

async function recoverAll(dir: string, key: Uint8Array = KEY) {
  const commands: Command[] = [];
  const recovery = await recoverJournal({
    directory: dir,
    sealingKey: key,
    onCommand: (command) => commands.push(command),
  });
  return { recovery, commands };
}

async function openJournal(dir: string, options: { snapshotIntervalRecords?: number } = {}) {
  const { recovery } = await recoverAll(dir);
  return FileJournal.open({ directory: dir, sealingKey: KEY, recovery, ...options });
}

/** Writes `count` ticks, each in its own commit batch (each append awaited). */
async function ticks(journal: FileJournal, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++)
    await journal.append(plainRecord({ type: 'tick', slot: BigInt(i) }));
}

async function segments(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.seg')).sort();
}

const recoveryError = (pattern: RegExp) => (error: unknown) =>
  error instanceof JournalRecoveryError && pattern.test(error.message);

describe('journal: recovery', () => {
  test('snapshot + tail replay gives the stateHash of a straight run (random commands)', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir, { snapshotIntervalRecords: 150 });
      const straight = freshTestCore();
      const journaled: Command[] = [];
      const acks: Promise<unknown>[] = [];
      for (const command of openingCommands()) {
        assert.ok(applied(straight, command));
        journaled.push(command);
        acks.push(journal.append(plainRecord(command)));
      }
      // randomCommands reads the core's slot as it goes: each command is applied before the next is built.
      for (const command of randomCommands(straight, 7, 600)) {
        if (!applied(straight, command)) continue;
        journaled.push(command);
        acks.push(journal.append(plainRecord(command)));
        if (journal.snapshotDue(0)) acks.push(journal.writeSnapshot(straight.snapshot(), 0));
      }
      await Promise.all(acks);
      await journal.close();

      const { recovery, commands } = await recoverAll(dir);
      assert.ok(recovery.snapshot !== null, 'a snapshot was taken');
      assert.ok(commands.length < journaled.length, 'only the tail after the snapshot is replayed');
      assert.deepEqual(commands, journaled.slice(journaled.length - commands.length));
      const restored = VenueCore.restore(TEST_CORE_CONFIG, recovery.snapshot.text);
      for (const command of commands) restored.apply(command);
      assert.equal(restored.stateHash(), straight.stateHash());
      restored.validateInternalState();

      // And a replay of every journaled command from an empty core agrees too.
      const replayed = freshTestCore();
      for (const command of journaled) replayed.apply(command);
      assert.equal(replayed.stateHash(), straight.stateHash());
    });
  });

  test('a torn tail (partial record, then garbage) is cut off and the journal continues', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 5);
      await journal.close();
      const [segment] = await segments(dir);
      assert.ok(segment !== undefined);
      const path = join(dir, segment);
      const size = (await stat(path)).size;
      await truncate(path, size - 7); // the last record lost its last 7 bytes
      await appendFile(path, randomBytes(300)); // and garbage follows
      const { recovery, commands } = await recoverAll(dir);
      assert.equal(commands.length, 4, 'the torn record is never applied');
      assert.equal(recovery.position.seq, 4n);
      assert.equal(recovery.truncated?.file, segment);
      assert.ok((await stat(path)).size < size - 7, 'the tail was truncated on disk');

      const next = await openJournal(dir);
      assert.deepEqual(await next.append(plainRecord({ type: 'tick', slot: 99n })), { seq: 5n });
      await next.close();
      const again = await recoverAll(dir);
      assert.equal(again.commands.length, 5);
      assert.equal(again.recovery.truncated, null);
    });
  });

  test('a damaged record followed by later commit batches stops the boot', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 6);
      await journal.close();
      const [segment] = await segments(dir);
      const path = join(dir, segment ?? '');
      const bytes = await readFile(path);
      const second = 84 + 56 + bytes.readUInt32LE(84);
      bytes.writeUInt8(bytes.readUInt8(second + 60) ^ 0xff, second + 60); // inside record 2's sealed bytes
      await writeFile(path, bytes);
      await assert.rejects(recoverAll(dir), recoveryError(/corruption in the middle of the journal/));
    });
  });

  test('damage in a segment that is not the last stops the boot', async () => {
    await withTempDir(async (dir) => {
      const first = await openJournal(dir);
      await ticks(first, 1, 3);
      await first.close();
      const second = await openJournal(dir);
      await ticks(second, 4, 3);
      await second.close();
      const [older] = await segments(dir);
      const path = join(dir, older ?? '');
      const size = (await stat(path)).size;
      await truncate(path, size - 3);
      await assert.rejects(recoverAll(dir), recoveryError(/later segments follow it/));
    });
  });

  test('a record whose CRC is valid but whose previous-hash is wrong breaks the chain', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 4);
      await journal.close();
      const [segment] = await segments(dir);
      const path = join(dir, segment ?? '');
      const bytes = await readFile(path);
      // Rewrite record 3's previous-hash field and fix its CRC, as a careless or hostile edit would.
      let offset = 84;
      for (let i = 0; i < 2; i++) offset += 56 + bytes.readUInt32LE(offset);
      bytes.writeUInt8(bytes.readUInt8(offset + 24) ^ 0x01, offset + 24);
      const { crc32 } = await import('node:zlib');
      const frame = bytes.subarray(offset, offset + 56 + bytes.readUInt32LE(offset));
      frame.writeUInt32LE(crc32(frame.subarray(8), crc32(frame.subarray(0, 4))), 4);
      await writeFile(path, bytes);
      await assert.rejects(recoverAll(dir), recoveryError(/hash chain is broken/));
    });
  });

  test('the wrong sealing key stops the boot and says so', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 2);
      await journal.close();
      await assert.rejects(
        recoverAll(dir, randomBytes(32)),
        recoveryError(/does not open under this sealing key/),
      );
    });
  });

  test('old snapshots and segments are pruned; recovery needs only what is kept', async () => {
    await withTempDir(async (dir) => {
      let journal = await openJournal(dir);
      const core = freshTestCore();
      for (let boot = 0; boot < 4; boot++) {
        for (const command of boot === 0
          ? openingCommands()
          : [{ type: 'tick', slot: BigInt(boot) } as const]) {
          core.apply(command);
          await journal.append(plainRecord(command));
        }
        await journal.writeSnapshot(core.snapshot(), 0);
        await journal.close();
        journal = await openJournal(dir);
      }
      await journal.close();
      const names = await readdir(dir);
      assert.equal(names.filter((n) => n.endsWith('.snap')).length, 2);
      assert.ok((await segments(dir)).length < 5, `segments left: ${names.join(', ')}`);
      const { recovery } = await recoverAll(dir);
      assert.equal(recovery.snapshot?.seq, 7n);
      assert.equal(
        VenueCore.restore(TEST_CORE_CONFIG, recovery.snapshot?.text ?? '').stateHash(),
        core.stateHash(),
      );
    });
  });

  test('a deleted newest segment stops the boot and names it (the head saw it created)', async () => {
    await withTempDir(async (dir) => {
      let journal = await openJournal(dir);
      await ticks(journal, 1, 3);
      await journal.close();
      journal = await openJournal(dir); // a second boot: a second segment, acknowledged records in it
      await ticks(journal, 4, 3);
      await journal.close();
      const names = await segments(dir);
      assert.equal(names.length, 2);
      const { commands } = await recoverAll(dir);
      assert.equal(commands.length, 6, 'whole, the journal recovers every record');
      await rm(join(dir, names[1] as string));
      await assert.rejects(recoverAll(dir), recoveryError(new RegExp(`${names[1]}, the newest segment`)));
    });
  });

  test('a missing head while segments exist stops the boot', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 2);
      await journal.close();
      await rm(join(dir, HEAD_FILE_NAME));
      await assert.rejects(recoverAll(dir), recoveryError(/journal\.head is missing/));
    });
  });

  test('a head rolled back to an older segment under a forged MAC stops the boot', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      await ticks(journal, 1, 2);
      await journal.close();
      await writeFile(join(dir, HEAD_FILE_NAME), encodeHead(randomBytes(32), 1n));
      await assert.rejects(recoverAll(dir), recoveryError(/journal\.head .* damaged or forged/));
    });
  });

  test('a crash between creating a segment and naming it in the head loses nothing', async () => {
    await withTempDir(async (dir) => {
      let journal = await openJournal(dir);
      await ticks(journal, 1, 3);
      await journal.close();
      // The next boot creates its segment durably, then dies writing the head (its fdatasync fails).
      const faulty = faultyJournalFiles(NODE_JOURNAL_FILES);
      faulty.arm({ failSync: 2 });
      const { recovery } = await recoverAll(dir);
      await assert.rejects(
        FileJournal.open({ directory: dir, sealingKey: KEY, recovery, files: faulty.files }),
        /EIO/,
      );
      assert.equal((await segments(dir)).length, 2, 'the new segment exists, holding no record');
      const after = await recoverAll(dir);
      assert.equal(after.commands.length, 3);
      journal = await openJournal(dir);
      await ticks(journal, 4, 2);
      await journal.close();
      assert.equal((await recoverAll(dir)).commands.length, 5);
    });
  });
});
