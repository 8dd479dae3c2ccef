// The client side's one durable write (sdk/src/private-files.ts), on the real disk with real fsync:
// the target holds exactly the last text written, owner-only, with no temporary file beside it, and
// a failed write leaves the target as it was and removes its temporary file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { writePrivateFileSync } from '../src/index.ts';

function withTempDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'venue-sdk-files-'));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('each write leaves the target holding exactly its text, mode 0600, and nothing else in the folder', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 2000 }), { minLength: 1, maxLength: 4 }), (versions) =>
      withTempDir((dir) => {
        const target = join(dir, 'keys', 'state.json');
        for (const text of versions) {
          writePrivateFileSync(target, text);
          assert.equal(readFileSync(target, 'utf8'), text);
          assert.equal(statSync(target).mode & 0o777, 0o600);
          assert.deepEqual(readdirSync(join(dir, 'keys')), ['state.json']);
        }
      }),
    ),
    { numRuns: 15 },
  );
});

test('a failed rename (the target is a folder) leaves the folder as it was and no temporary file', () => {
  withTempDir((dir) => {
    const target = join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'kept');
    assert.throws(() => writePrivateFileSync(target, 'new'));
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.equal(readFileSync(join(target, 'inside'), 'utf8'), 'kept');
  });
});

test('an exclusive write refuses to replace a file and leaves it whole', () => {
  withTempDir((dir) => {
    const target = join(dir, 'key.json');
    writePrivateFileSync(target, 'first', true);
    assert.throws(() => writePrivateFileSync(target, 'second', true), /already exists/);
    assert.equal(readFileSync(target, 'utf8'), 'first');
    assert.deepEqual(readdirSync(dir), ['key.json']);
  });
});
