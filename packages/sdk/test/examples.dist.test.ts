import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type DevVenueProcess, REPO_ROOT, runToEnd, startDevVenueProcess } from './dev-venue-process.ts';
import { startProxy, type TestProxy } from './proxies.ts';

/**
 * The bots of examples/ run as a reader runs them: plain `node` on the files as they are, resolving
 * @venue/sdk to the workspace's built package, against a dev venue in its own process. The quoting
 * bot reaches the venue through a TCP proxy that the test cuts, as a network failure would: the
 * venue cancels its quotes (cancel on disconnect) and the bot must put both back after it
 * reconnects. Then the taker buys one lot, which only the bot's ask can sell it, and waits for its
 * fill memo; the bot must see the fill and quote that side again.
 */
const EXAMPLES = join(REPO_ROOT, 'examples');
const STEP_WAIT_MS = 120_000;

let venue: DevVenueProcess;
let proxy: TestProxy;
let traders: string;
const children: ChildProcess[] = [];

before(async () => {
  venue = await startDevVenueProcess();
  proxy = await startProxy(Number(new URL(venue.restUrl).port), { key: '', cert: '' }, () => 'pass');
  traders = mkdtempSync(join(tmpdir(), 'venue-examples-'));
});

after(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await proxy?.close();
  await venue?.stop();
  rmSync(traders, { recursive: true, force: true });
});

interface BotLine {
  bot: string;
  side?: string;
  order_id?: string;
  state?: string;
  why?: string;
}

/** The quoting bot as a child process, with its JSON lines and a way to wait for one. */
function startBot(url: string) {
  const child = spawn(process.execPath, ['quoting-bot.mjs', 'bob'], {
    cwd: EXAMPLES,
    env: { ...process.env, ...venue.env, VENUE_URL: url, TRADERS_DIR: traders, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: BotLine[] = [];
  let buffered = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part) as BotLine);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const waitFor = (what: string, found: (seen: readonly BotLine[]) => boolean) =>
    new Promise<void>((done, fail) => {
      const timer = setTimeout(
        () =>
          fail(
            new Error(`bot: no ${what} within ${STEP_WAIT_MS} ms; lines ${JSON.stringify(lines)}\n${stderr}`),
          ),
        STEP_WAIT_MS,
      );
      const check = () => {
        if (found(lines)) {
          clearTimeout(timer);
          done();
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          fail(
            new Error(`bot exited (${child.exitCode}) before ${what}: ${JSON.stringify(lines)}\n${stderr}`),
          );
        } else waiters.push(check);
      };
      child.once('exit', check);
      check();
    });
  return { child, lines, waitFor };
}

const quotedSince = (lines: readonly BotLine[], from: number, side: string) =>
  lines.slice(from).some((line) => line.bot === 'quoted' && line.side === side);

test('the quoting bot re-quotes after a reconnect, the taker fills against it and reads its memo', async () => {
  const bot = startBot(`https://127.0.0.1:${proxy.port}`);
  await bot.waitFor('two quotes', (lines) => quotedSince(lines, 0, 'bid') && quotedSince(lines, 0, 'ask'));
  const first = bot.lines.filter((line) => line.bot === 'quoted').map((line) => line.order_id);

  // A network failure: the venue drops the quotes, the bot reconnects and quotes both sides again.
  const beforeCut = bot.lines.length;
  proxy.dropAll();
  await bot.waitFor(
    'both quotes back after the reconnect',
    (lines) => quotedSince(lines, beforeCut, 'bid') && quotedSince(lines, beforeCut, 'ask'),
  );
  const ended = bot.lines.slice(beforeCut).filter((line) => line.bot === 'quote ended');
  assert.deepEqual(new Set(ended.map((line) => line.order_id)), new Set(first), 'both old quotes ended');
  assert.ok(
    ended.every((line) => line.state === 'cancelled'),
    'cancelled by the venue on disconnect',
  );

  // The taker's bid crosses the bot's ask (nobody else trades on this venue).
  const beforeTake = bot.lines.length;
  const taker = await runToEnd(process.execPath, ['taker.mjs', 'bid', 'alice'], {
    cwd: EXAMPLES,
    env: { ...venue.env, TRADERS_DIR: traders, NODE_OPTIONS: '' },
  });
  assert.equal(taker.code, 0, `taker failed:\n${taker.stdout}\n${taker.stderr}`);
  const filled = JSON.parse(taker.stdout.trim().split('\n').at(-1) ?? '{}');
  assert.equal(filled.taker, 'filled');
  assert.ok(BigInt(filled.fill_quantity) > 0n);

  await bot.waitFor('the ask filled and quoted again', (lines) => {
    const after = lines.slice(beforeTake);
    return after.some((line) => line.bot === 'filled') && quotedSince(after, 0, 'ask');
  });

  bot.child.kill('SIGTERM');
  await bot.waitFor('a clean stop', (lines) => lines.some((line) => line.bot === 'stopped'));
  const code = await new Promise((done) =>
    bot.child.exitCode === null ? bot.child.once('exit', done) : done(bot.child.exitCode),
  );
  assert.equal(code, 0);
});
