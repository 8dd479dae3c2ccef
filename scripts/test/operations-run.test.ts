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
import { REPO_ROOT, runToEnd } from '../../packages/sdk/test/dev-venue-process.ts';
import { type Block, codeBlocks } from './doc-blocks.ts';

const DOC = 'operations.md';
/** Generous: under a loaded CI machine a block of CLI commands with proofs can take minutes. */
const BLOCK_TIMEOUT_MS = 300_000;

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
  // Only reached with processes still running when a block failed: no orphan outlives the test.
  for (const process_ of running) signalGroup(process_.child, 'SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * What an operator's SIGTERM reaches: the command itself, not the `npx` and shell wrappers above it
 * (npm dies of the signal at once, while the venue drains for up to seconds). These are the
 * processes of the block's group that are no other member's parent; the wrappers then exit with
 * the command's own status.
 */
function stopCommand(child: ChildProcess): void {
  const members: { pid: number; parent: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command name: state, ppid, pgrp, ...
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === child.pid) members.push({ pid: Number(entry), parent: Number(ppid) });
    } catch {
      // exited while listed
    }
  }
  const parents = new Set(members.map((m) => m.parent));
  for (const member of members.filter((m) => !parents.has(m.pid))) process.kill(member.pid, 'SIGTERM');
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

test('docs/operations.md: an operator goes from an empty folder to a served venue that settles a signed cross', async (t) => {
  for (const block of codeBlocks(DOC).filter((b) => b.run)) {
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
    const logs = running.map((b) => `--- ${where(b.block)}\n${b.output()}`).join('\n');
    assert.equal(
      run.code,
      0,
      `${where(block)} failed (exit ${run.code}):\n${block.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}\n${logs}`,
    );
  }
  // The page's stop: SIGTERM, the venue first, then the publisher and the chain; each exits 0.
  for (const background of [...running].reverse()) {
    stopCommand(background.child);
    assert.equal(
      await background.exit,
      0,
      `${where(background.block)} did not stop cleanly:\n${background.output()}`,
    );
    running.splice(running.indexOf(background), 1);
  }
});

function isReadyLine(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null && 'ready' in parsed;
  } catch {
    return false;
  }
}
