import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const MODULE = new URL('../src/thread-priority.ts', import.meta.url).href;

/**
 * Run in a process of its own: lowering is for the whole life of a thread, and the test runner's
 * own threads must keep their priority.
 */
const CHILD = `
import { readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { lowerOtherThreads } from ${JSON.stringify(MODULE)};
const own = getPriority(process.pid);
const present = readdirSync('/proc/self/task').map(Number);
const lowered = lowerOtherThreads(5);
const nices = present.map((tid) => [tid, getPriority(tid)]);
// A worker started afterwards: its thread is new, and nothing lowered it.
const worker = new Worker(
  "import { parentPort } from 'node:worker_threads'; import { readlinkSync } from 'node:fs';" +
    " parentPort.postMessage(readlinkSync('/proc/thread-self').split('/').at(-1));",
  { eval: true },
);
const workerTid = Number(await new Promise((resolve) => worker.once('message', resolve)));
const workerNice = getPriority(workerTid);
await worker.terminate();
process.stdout.write(JSON.stringify({ pid: process.pid, own, lowered, nices, workerTid, workerNice, after: getPriority(process.pid) }));
`;

test('lowerOtherThreads moves every thread the process has but the caller, and not a worker started later (D138)', (t) => {
  if (process.platform !== 'linux') {
    t.diagnostic('thread priorities are per thread only on Linux');
    return;
  }
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    encoding: 'utf8',
  });
  const report = JSON.parse(out) as {
    pid: number;
    own: number;
    lowered: number;
    nices: [number, number][];
    workerTid: number;
    workerNice: number;
    after: number;
  };
  const others = report.nices.filter(([tid]) => tid !== report.pid);
  // Node and V8 start helper threads with the process: there are some to lower.
  assert.ok(others.length >= 4, `threads besides the main one: ${others.length}`);
  assert.equal(report.lowered, others.length, 'each of them was lowered');
  for (const [tid, nice] of others) {
    assert.equal(nice, Math.min(19, report.own + 5), `thread ${tid} runs 5 steps lower`);
  }
  assert.equal(report.after, report.own, 'the calling thread keeps its priority');
  assert.ok(!report.nices.some(([tid]) => tid === report.workerTid), 'the worker has a thread of its own');
  assert.equal(
    report.workerNice,
    report.own,
    'a worker started afterwards keeps the priority of the process',
  );
});
