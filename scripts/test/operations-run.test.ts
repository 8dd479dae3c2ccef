// docs/operations.md's walkthrough, run as an operator would run it: from one empty folder inside
// the checkout, its blocks in order, each background block (chain, oracle publisher, venue) left
// running once it has printed its ready line, until the last block has crossed two signed orders
// and seen them settle on the chain. Then every background process is stopped with SIGTERM, the
// venue first, and must exit cleanly: the stop the page tells the operator to use.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { REPO_ROOT, runToEnd, signalGroup } from '../../packages/sdk/test/dev-venue-process.ts';
import { type Block, codeBlocks } from './doc-blocks.ts';

const DOC = 'operations.md';
/** Generous: under a loaded CI machine a block of CLI commands with proofs can take minutes. */
const BLOCK_TIMEOUT_MS = 300_000;
/** A process that drains on SIGTERM exits within seconds; a minute is a stop that failed. */
const STOP_TIMEOUT_MS = 60_000;
/**
 * The whole walkthrough: about 100 s on a loaded 2-core machine. Below run-tests.mjs's 600 s file
 * ceiling, so a hang is reported by this test, with its step, and `after` kills what it started.
 */
const WALKTHROUGH_TIMEOUT_MS = 480_000;

interface Background {
  readonly block: Block;
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exit: Promise<number | null>;
}

const running: Background[] = [];
mkdirSync(join(REPO_ROOT, 'tmp'), { recursive: true });
const folder = mkdtempSync(join(REPO_ROOT, 'tmp', 'operations-run-'));
// As a reader's shell: no test-runner options leak into the commands.
const env = { ...process.env, NODE_OPTIONS: '', NODE_ENV: '' } as Record<string, string>;
delete env['VENUE_URL'];
delete env['VENUE_CHAIN_RPC'];

after(async () => {
  // Only reached with processes still running when a step failed or the test timed out: no orphan
  // outlives the test, and the step it stopped at is reported with what each process printed.
  if (running.length > 0) {
    process.stderr.write(`# stopped at ${step}; still running, now killed:\n${backgroundLogs()}\n`);
  }
  for (const process_ of running) signalGroup(process_.child, 'SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

/** The step under way, for the report of a failure or a timeout. */
let step = 'the start';

const backgroundLogs = () => running.map((b) => `--- ${where(b.block)}\n${b.output()}`).join('\n');

/**
 * What an operator's SIGTERM reaches: the command itself, not the `npx` and shell wrappers above it
 * (npm dies of the signal at once, while the venue drains for up to seconds), nor the helpers below
 * it (tsx's esbuild service, a child of the venue while it compiles: signalling the group's leaves
 * once hit esbuild instead of the venue, which then never stopped). `npx` runs the command from
 * `sh -c`, so it is the child of the group's `sh`; a block without npx is its group's leader.
 */
function stopCommand(child: ChildProcess): void {
  const members: { pid: number; parent: number; name: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      // `pid (name) state ppid pgrp ...`
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === child.pid) members.push({ pid: Number(entry), parent: Number(ppid), name });
    } catch {
      // exited while listed
    }
  }
  const shells = new Set(members.filter((m) => m.name === 'sh').map((m) => m.pid));
  const commands = members.filter((m) => shells.has(m.parent)).map((m) => m.pid);
  for (const pid of commands.length > 0 ? commands : [child.pid as number]) process.kill(pid, 'SIGTERM');
}

/**
 * Starts a background block in a process group of its own (so that SIGTERM reaches the command
 * behind `npx` too) and resolves once its stdout printed the ready line.
 */
function startBackground(block: Block): Promise<Background> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', block.code], {
    cwd: folder,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: Background = { block, child, output: () => output, exit };
  running.push(started);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${where(block)} printed no ready line in ${BLOCK_TIMEOUT_MS} ms:\n${output}`)),
      BLOCK_TIMEOUT_MS,
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      output += `${line}\n`;
      // chain start and oracle publish print {"ready": ...}; serve prints a JSON log line with a
      // `ready` field.
      if (isReadyLine(line)) {
        clearTimeout(timer);
        resolve(started);
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${where(block)} exited ${code} before it was ready:\n${block.code}\n${output}`));
    });
  });
}

const where = (block: Block) => `${block.doc} line ${block.line}`;

test('every block of the walkthrough is run (none is left for the reader alone)', () => {
  const blocks = codeBlocks(DOC);
  for (const block of blocks) assert.ok(block.run, `${where(block)}: mark the block \`run\`:\n${block.code}`);
  assert.equal(blocks.filter((b) => b.background).length, 3, 'chain, oracle publisher and venue');
});

test('docs/operations.md: an operator goes from an empty folder to a served venue that settles a signed cross', {
  timeout: WALKTHROUGH_TIMEOUT_MS,
}, async (t) => {
  for (const block of codeBlocks(DOC).filter((b) => b.run)) {
    step = where(block);
    const started = Date.now();
    const done = () => t.diagnostic(`${where(block)}: ${Date.now() - started} ms`);
    if (block.background) {
      await startBackground(block);
      done();
      continue;
    }
    const run = await runToEnd('bash', ['-euo', 'pipefail', '-c', block.code], {
      cwd: folder,
      env,
      timeoutMs: BLOCK_TIMEOUT_MS,
    });
    done();
    assert.equal(
      run.code,
      0,
      `${where(block)} failed (exit ${run.code}):\n${block.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n${backgroundLogs()}`,
    );
  }
  // The page's stop: SIGTERM, the venue first, then the publisher and the chain; each exits 0.
  for (const background of [...running].reverse()) {
    step = `the stop of ${where(background.block)}`;
    stopCommand(background.child);
    assert.equal(
      await exitWithin(background, STOP_TIMEOUT_MS),
      0,
      `${where(background.block)} did not stop cleanly:\n${background.output()}`,
    );
    running.splice(running.indexOf(background), 1);
  }
});

/** The exit code, or 'still running' after `ms` (then `after` kills it). */
async function exitWithin(background: Background, ms: number): Promise<number | null | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still running ${ms} ms after SIGTERM`), ms);
  });
  try {
    return await Promise.race([background.exit, late]);
  } finally {
    clearTimeout(timer);
  }
}

function isReadyLine(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null && 'ready' in parsed;
  } catch {
    return false;
  }
}
