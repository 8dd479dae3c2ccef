// The code blocks of the client documents that a reader is told to run are run here, against a
// fresh dev venue, in the order the page gives them and from one folder, as a reader would from a
// checkout: a wrong amount, an off-tick price, a missing import or a program that never exits fails.
//
// Marking: a fence written ```sh run or ```ts run is executed; a plain ```sh or ```ts block is a
// fragment or a command that cannot run unattended (watch until Ctrl-C). getting-started.md may
// not leave a block unmarked without saying so: each of its plain blocks must be listed below.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type DevVenueProcess,
  REPO_ROOT,
  runToEnd,
  startDevVenueProcess,
} from '../../packages/sdk/test/dev-venue-process.ts';
import { codeBlocks } from './doc-blocks.ts';

/** The blocks of getting-started.md a reader cannot run as part of an unattended script, and why. */
const NOT_RUN_IN_GETTING_STARTED: ReadonlyArray<[RegExp, string]> = [
  [/^npm install\nnpm start/, 'starts the dev venue; the test starts its own'],
  [/^npx venue watch/, 'runs until Ctrl-C'],
  [/^npx venue withdraw --note <commitment>/, 'a template with the reader’s own note and address'],
];

const DOCS = ['getting-started.md', 'sdk.md'];
const BLOCK_TIMEOUT_MS = 240_000;
/**
 * All the blocks: about 90 s on a loaded 2-core machine. Below run-tests.mjs's 600 s file ceiling,
 * so a hang is reported here, naming the block under way, and `after` stops the venue.
 */
const ALL_BLOCKS_TIMEOUT_MS = 480_000;
/** The block under way, named in the report of a timeout. */
let step = 'none yet';

let folder: string;
let venue: DevVenueProcess;

before(async () => {
  // Inside the checkout (tmp/ is ignored by git), as a reader's shell is: `npx venue` finds the
  // workspace's command, and tsx finds the workspace's tsconfig.
  mkdirSync(join(REPO_ROOT, 'tmp'), { recursive: true });
  folder = mkdtempSync(join(REPO_ROOT, 'tmp', 'docs-run-'));
  venue = await startDevVenueProcess(join(folder, '.state', 'dev'));
});

after(async () => {
  if (step !== 'done') process.stderr.write(`# docs-run stopped at ${step}\n`);
  await venue?.stop();
  rmSync(folder, { recursive: true, force: true });
});

test('every block of getting-started.md is run, or listed here with the reason it cannot be', () => {
  const plain = codeBlocks('getting-started.md').filter((block) => !block.run);
  for (const block of plain) {
    assert.ok(
      NOT_RUN_IN_GETTING_STARTED.some(([pattern]) => pattern.test(block.code)),
      `getting-started.md line ${block.line}: mark the block \`run\` or say here why it cannot run:\n${block.code}`,
    );
  }
  assert.ok(codeBlocks('getting-started.md').filter((block) => block.run).length >= 3);
  // These pages run against the test's own dev venue: nothing of theirs is left running.
  assert.ok(!DOCS.flatMap(codeBlocks).some((block) => block.background), 'no background block here');
  assert.ok(
    codeBlocks('sdk.md').some((block) => block.run),
    'sdk.md has a complete program that runs',
  );
});

test('the run blocks of getting-started.md and sdk.md succeed against a dev venue, in order', {
  timeout: ALL_BLOCKS_TIMEOUT_MS,
}, async (t) => {
  const env = { ...venue.env, NODE_OPTIONS: '' };
  let index = 0;
  for (const block of DOCS.flatMap(codeBlocks).filter((b) => b.run)) {
    index += 1;
    const where = `${block.doc} line ${block.line}`;
    step = where;
    const started = Date.now();
    const run =
      block.lang === 'sh'
        ? await runToEnd('bash', ['-euo', 'pipefail', '-c', block.code], {
            cwd: folder,
            env,
            timeoutMs: BLOCK_TIMEOUT_MS,
          })
        : await runTs(block.code, `block-${index}.ts`, env);
    t.diagnostic(`${where}: ${Date.now() - started} ms`);
    assert.equal(
      run.code,
      0,
      `${where} failed (exit ${run.code}):\n${block.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`,
    );
  }
  step = 'done';
});

/** A ts block is a whole program: written to a file and run with tsx; it must end by itself. */
function runTs(code: string, name: string, env: Record<string, string>) {
  writeFileSync(join(folder, name), code);
  return runToEnd(process.execPath, ['--import', 'tsx', name], {
    cwd: folder,
    env,
    timeoutMs: BLOCK_TIMEOUT_MS,
  });
}
