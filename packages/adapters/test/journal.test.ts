/**
 * The journal's write side (issue 9): what comes back is what went in, appends resolve only after
 * their round's fdatasync with gapless sequence numbers in call order, the disk never holds order
 * flow in clear, and after an I/O error the journal refuses every write with JOURNAL_UNAVAILABLE.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Command } from '@venue/core';
import { ERRORS, isVenueError } from '@venue/protocol';
import { faultyJournalFiles, openingCommands, orderBody, placeCommand, withTempDir } from '@venue/testing';
import {
  decodeRecord,
  FileJournal,
  type JournalFiles,
  NODE_JOURNAL_FILES,
  plainRecord,
  RecordEncoder,
  recoverJournal,
} from '../src/journal/index.ts';

const KEY = randomBytes(32);

async function recoverAll(dir: string, files?: JournalFiles) {
  const commands: Command[] = [];
  const seqs: bigint[] = [];
  const recovery = await recoverJournal({
    directory: dir,
    sealingKey: KEY,
    onCommand: (command, seq) => {
      commands.push(command);
      seqs.push(seq);
    },
    ...(files === undefined ? {} : { files }),
  });
  return { recovery, commands, seqs };
}

async function openJournal(dir: string, files?: JournalFiles): Promise<FileJournal> {
  const { recovery } = await recoverAll(dir, files);
  return FileJournal.open({
    directory: dir,
    sealingKey: KEY,
    recovery,
    ...(files === undefined ? {} : { files }),
  });
}

describe('journal: writing', () => {
  test('the codec gives back the same command, bigints and property order included', () => {
    const order = orderBody({ id: 7, amount: 2n ** 64n - 1n, minFill: 1n });
    const commands: Command[] = [
      ...openingCommands(),
      placeCommand(order, 12n, 'acct-a', 'conn-1'),
      { type: 'oracle_price', marketId: 'm', price: null, slot: 3n },
      {
        type: 'match_settled',
        marketId: 'm',
        matchId: 9n,
        changeNote: { commitment: 'c', value: 5n, treeId: 2 },
        slot: 1n,
      },
      { type: 'venue_gate', pauseReasons: ['drain', 'ünïcode'], slot: 2n },
    ];
    const encoder = new RecordEncoder();
    for (const command of commands) {
      const { command: decoded } = decodeRecord(Buffer.from(encoder.encode(plainRecord(command))));
      assert.deepEqual(decoded, command);
      assert.equal(
        JSON.stringify(decoded, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
        JSON.stringify(command, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      );
    }
  });

  test('round trip: appended commands come back in order with their sequence numbers', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      const commands = openingCommands();
      const seqs: bigint[] = [];
      for (const command of commands) seqs.push((await journal.append(plainRecord(command))).seq);
      await journal.close();
      assert.deepEqual(seqs, [1n, 2n, 3n, 4n]);
      const { commands: back, seqs: backSeqs, recovery } = await recoverAll(dir);
      assert.deepEqual(back, commands);
      assert.deepEqual(backSeqs, seqs);
      assert.equal(recovery.position.seq, 4n);
      assert.equal(recovery.truncated, null);
    });
  });

  test('group commit: concurrent appends resolve after durability, in order, gapless, in few rounds', async () => {
    await withTempDir(async (dir) => {
      const counting = faultyJournalFiles(NODE_JOURNAL_FILES);
      const journal = await openJournal(dir, counting.files);
      counting.arm({});
      const count = 2_000;
      const resolvedInOrder: bigint[] = [];
      const pending: Promise<{ seq: bigint }>[] = [];
      for (let i = 0; i < count; i++) {
        const command: Command = { type: 'tick', slot: BigInt(i) };
        const promise = journal.append(plainRecord(command));
        promise.then(({ seq }) => resolvedInOrder.push(seq));
        pending.push(promise);
        if (i % 250 === 249) await new Promise((resolve) => setImmediate(resolve)); // let rounds run
      }
      assert.ok(journal.inFlight > 0, 'appends wait for a round');
      const results = await Promise.all(pending);
      assert.equal(journal.inFlight, 0);
      assert.deepEqual(
        results.map((r) => r.seq),
        Array.from({ length: count }, (_, i) => BigInt(i + 1)),
      );
      assert.deepEqual(
        resolvedInOrder,
        results.map((r) => r.seq),
        'acknowledged in sequence order',
      );
      assert.ok(counting.syncs <= 20, `${count} appends took ${counting.syncs} fdatasync rounds`);
      // Everything acknowledged is on disk: a recovery while the journal is still open sees it all.
      const { commands } = await recoverAll(dir);
      assert.equal(commands.length, count);
      assert.deepEqual(commands.at(-1), { type: 'tick', slot: BigInt(count - 1) });
      await journal.close();
    });
  });

  test('the state directory never holds an order in clear', async () => {
    await withTempDir(async (dir) => {
      const journal = await openJournal(dir);
      const order = orderBody({ id: 4242 });
      const command = placeCommand(order, 0n, 'acct-distinctive-plaintext-marker');
      await journal.append(plainRecord(command));
      await journal.writeSnapshot(`{"order":"${order.order_id}","who":"distinctive-plaintext-marker"}`, 0);
      await journal.close();
      const needles = [
        Buffer.from(order.order_id, 'utf8'),
        Buffer.from(order.order_id, 'hex'),
        Buffer.from('distinctive-plaintext-marker', 'utf8'),
        Buffer.from(order.note_commitment, 'utf8'),
      ];
      const names = await readdir(dir);
      assert.ok(names.some((n) => n.endsWith('.snap')) && names.some((n) => n.endsWith('.seg')));
      for (const name of names) {
        const bytes = await readFile(join(dir, name));
        for (const needle of needles)
          assert.equal(bytes.indexOf(needle), -1, `${name} holds ${needle.toString('hex')}`);
      }
    });
  });

  for (const [what, plan] of [
    ['write', { failWrite: 2 }],
    ['fdatasync', { failSync: 2 }],
  ] as const) {
    test(`a failed ${what} rejects its records and every later append with JOURNAL_UNAVAILABLE`, async () => {
      await withTempDir(async (dir) => {
        const faulty = faultyJournalFiles(NODE_JOURNAL_FILES);
        const journal = await openJournal(dir, faulty.files);
        faulty.arm(plan);
        assert.deepEqual(await journal.append(plainRecord({ type: 'tick', slot: 1n })), { seq: 1n });
        const lost = journal.append(plainRecord({ type: 'tick', slot: 2n }));
        const unavailable = (error: unknown) =>
          isVenueError(error) &&
          error.code === ERRORS.JOURNAL_UNAVAILABLE.code &&
          /refuses every write until the venue restarts/.test(error.message);
        await assert.rejects(lost, unavailable);
        assert.ok(journal.failure !== null);
        await assert.rejects(journal.append(plainRecord({ type: 'tick', slot: 3n })), unavailable);
        await assert.rejects(journal.writeSnapshot('{}', 0), unavailable);
        await journal.close();
        // Only the acknowledged record is certain to be on disk; recovery never invents more.
        const { commands } = await recoverAll(dir);
        assert.ok(commands.length >= 1 && commands.length <= 2);
        assert.deepEqual(commands[0], { type: 'tick', slot: 1n });
      });
    });
  }

  test('a new boot appends after what recovery found, in a new segment', async () => {
    await withTempDir(async (dir) => {
      const first = await openJournal(dir);
      await first.append(plainRecord({ type: 'tick', slot: 1n }));
      await first.close();
      const second = await openJournal(dir);
      assert.deepEqual(await second.append(plainRecord({ type: 'tick', slot: 2n })), { seq: 2n });
      await second.close();
      const { commands } = await recoverAll(dir);
      assert.deepEqual(commands, [
        { type: 'tick', slot: 1n },
        { type: 'tick', slot: 2n },
      ]);
      assert.equal((await readdir(dir)).filter((n) => n.endsWith('.seg')).length, 2);
    });
  });
});
