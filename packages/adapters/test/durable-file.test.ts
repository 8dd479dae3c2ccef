// The venue's one durable whole-file write (adapters/src/journal/durable-file.ts), on the real disk
// with real fdatasync and directory fsync: what a reader finds after each write, after a failure,
// and after a crash that left a temp file behind.
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { faultyJournalFiles, withTempDir } from '@venue/testing';
import fc from 'fast-check';
import { createFileDurably, NODE_JOURNAL_FILES, writeFileDurably } from '../src/index.ts';

test('each durable write leaves the target holding exactly its bytes, and nothing else in the folder', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 4096 }), { minLength: 1, maxLength: 4 }),
      async (versions) =>
        withTempDir(async (dir) => {
          const target = join(dir, 'state.bin');
          for (const bytes of versions) {
            await writeFileDurably(NODE_JOURNAL_FILES, target, bytes);
            assert.deepEqual(new Uint8Array(await readFile(target)), bytes);
            assert.deepEqual(await readdir(dir), ['state.bin']);
          }
        }),
    ),
    { numRuns: 15 },
  );
});

test('a failed fdatasync keeps the old file whole and removes the temp file', async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, 'state.bin');
    await writeFileDurably(NODE_JOURNAL_FILES, target, Buffer.from('old'));
    const faulty = faultyJournalFiles(NODE_JOURNAL_FILES);
    faulty.arm({ failSync: 1 });
    await assert.rejects(writeFileDurably(faulty.files, target, Buffer.from('new')), /EIO/);
    assert.equal(await readFile(target, 'utf8'), 'old');
    assert.deepEqual(await readdir(dir), ['state.bin']);
  });
});

test('a failed write of a new file leaves neither the file nor its temp', async () => {
  await withTempDir(async (dir) => {
    const faulty = faultyJournalFiles(NODE_JOURNAL_FILES);
    faulty.arm({ failWrite: 1 });
    await assert.rejects(writeFileDurably(faulty.files, join(dir, 'state.bin'), Buffer.from('new')), /EIO/);
    assert.deepEqual(await readdir(dir), []);
  });
});

test('a failed rename (the target is a folder) leaves the folder as it was and no temp file', async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'inside'), 'kept');
    await assert.rejects(writeFileDurably(NODE_JOURNAL_FILES, target, Buffer.from('new')));
    assert.deepEqual(await readdir(dir), ['taken']);
    assert.equal(await readFile(join(target, 'inside'), 'utf8'), 'kept');
  });
});

test('a temp file left by a crash is replaced, not an obstacle', async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, 'state.bin');
    await writeFile(`${target}.tmp`, 'half of an earlier wri');
    await writeFileDurably(NODE_JOURNAL_FILES, target, Buffer.from('whole'));
    assert.equal(await readFile(target, 'utf8'), 'whole');
    assert.deepEqual(await readdir(dir), ['state.bin']);
  });
});

test('a file created durably holds its header under its name and stays open for appends', async () => {
  await withTempDir(async (dir) => {
    const target = join(dir, 'segment');
    const file = await createFileDurably(NODE_JOURNAL_FILES, target, Buffer.from('header|'));
    assert.equal(await readFile(target, 'utf8'), 'header|');
    await file.write(Buffer.from('record'));
    await file.datasync();
    await file.close();
    assert.equal(await readFile(target, 'utf8'), 'header|record');
    assert.deepEqual(await readdir(dir), ['segment']);
  });
});
