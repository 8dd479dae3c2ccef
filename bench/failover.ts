/**
 * Failover time (issue 22): from the SIGKILL of the primary to the moment a hot standby has taken
 * over and accepts orders (its `ready` line: listening, intake open), p50 and p99 over KILLS kills.
 * Primary and standbys are processes on a journal stream of a three-node JetStream cluster on
 * loopback (lease TTL 1 s, renewed every 250 ms); a new standby replaces each one that took over.
 *
 * Baseline, in the same run: a cold restart of a venue on the file journal (the same core, markets
 * and machine): SIGKILL, start the process again, until its `ready` line. Both are timed by this
 * process from the kill to the line's arrival.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createFailoverWorld, freePort, startNatsCluster } from '@venue/testing';
import { type Figure, figure } from './harness.ts';

const FAILOVER_CHILD = new URL('../packages/testing/src/failover-venue-child.ts', import.meta.url).pathname;
const CRASH_CHILD = new URL('../packages/testing/src/crash-venue-child.ts', import.meta.url).pathname;

interface Proc {
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves with this process's clock reading when the line arrived. */
  readonly line: (key: string) => Promise<number>;
  readonly exited: Promise<void>;
  /** The last line printed under each key. */
  readonly lines: Map<string, unknown>;
}

function spawnVenue(script: string, config: object, port: number): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiting = new Map<string, (atMs: number) => void>();
  const seen = new Map<string, number>();
  const lines = new Map<string, unknown>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    const at = performance.now();
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const key of Object.keys(parsed)) {
      lines.set(key, parsed[key]);
      seen.set(key, at);
      waiting.get(key)?.(at);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    port,
    exited,
    lines,
    line: (key) =>
      new Promise<number>((resolve, reject) => {
        const at = seen.get(key);
        if (at !== undefined) resolve(at);
        waiting.set(key, resolve);
        void exited.then(() => reject(new Error(`the venue process exited before its "${key}" line`)));
      }),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function failoverTimes(kills: number): Promise<number[]> {
  const cluster = await startNatsCluster();
  const dir = await mkdtemp(join(tmpdir(), 'bench-failover-'));
  const live = new Set<Proc>();
  try {
    await createFailoverWorld(dir);
    const base = {
      dir,
      servers: cluster.servers,
      stream: 'bench',
      traders: 1,
      leaseTtlMs: 1000,
      leaseRenewMs: 250,
    };
    const start = (role: string, port: number, name: string) => {
      const proc = spawnVenue(FAILOVER_CHILD, { ...base, role, port, name }, port);
      live.add(proc);
      void proc.exited.then(() => live.delete(proc));
      return proc;
    };
    let primary = start('primary', await freePort(), 'p0');
    await primary.line('ready');
    let standbys = [start('standby', await freePort(), 's1'), start('standby', await freePort(), 's2')];
    const times: number[] = [];
    for (let kill = 0; kill < kills; kill += 1) {
      await Promise.race(standbys.map((standby) => standby.line('following')));
      // Let the standby follow the primary's records for a moment, as it would in service.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const killedAt = performance.now();
      const killedAtMs = Date.now();
      primary.child.kill('SIGKILL');
      const winner = await Promise.race(
        standbys.map((standby) => standby.line('ready').then((at) => ({ standby, at }))),
      );
      times.push(winner.at - killedAt);
      const ready = winner.standby.lines.get('ready') as Record<string, number>;
      const since = (key: string) => ((ready[key] ?? 0) - killedAtMs).toFixed(0);
      process.stderr.write(
        `failover ${kill + 1}/${kills}: ${(winner.at - killedAt).toFixed(0)} ms (since the kill: lease free ${since('leaseFreeAtMs')}, took over ${since('tookOverAtMs')}, identity ${since('identityAtMs')}, assembled ${since('assembledAtMs')}, listening ${since('readyAtMs')})\n`,
      );
      await primary.exited;
      const next = start('standby', primary.port, `s${kill + 3}`);
      primary = winner.standby;
      standbys = [...standbys.filter((standby) => standby !== winner.standby), next];
    }
    return times;
  } finally {
    for (const proc of live) proc.child.kill('SIGKILL');
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function coldRestartTimes(restarts: number): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-restart-'));
  try {
    const config = { dir, traders: 1, snapshotIntervalRecords: 400 };
    let venue = spawnVenue(CRASH_CHILD, config, 0);
    await venue.line('ready');
    const times: number[] = [];
    for (let restart = 0; restart < restarts; restart += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const killedAt = performance.now();
      venue.child.kill('SIGKILL');
      await venue.exited;
      venue = spawnVenue(CRASH_CHILD, config, 0);
      const at = await venue.line('ready');
      times.push(at - killedAt);
      process.stderr.write(`cold restart ${restart + 1}/${restarts}: ${(at - killedAt).toFixed(0)} ms\n`);
    }
    venue.child.kill('SIGKILL');
    await venue.exited;
    return times;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(quick: boolean): Promise<Figure[]> {
  const kills = quick ? 5 : 20;
  const ours = (await failoverTimes(kills)).sort((a, b) => a - b);
  const cold = (await coldRestartTimes(quick ? 3 : 10)).sort((a, b) => a - b);
  const suffix = quick ? '_quick' : '';
  const at = (values: readonly number[], p: number) => ({
    median: percentile(values, p),
    spread: 0,
    runs: values.length,
  });
  return [
    figure('failover', `hot_standby_takeover_p50${suffix}`, 'ms', 'lower', at(ours, 0.5), {
      name: 'cold restart of a file-journal venue (SIGKILL to ready), p50',
      value: Math.round(percentile(cold, 0.5)),
    }),
    figure('failover', `hot_standby_takeover_p99${suffix}`, 'ms', 'lower', at(ours, 0.99), {
      name: 'cold restart of a file-journal venue (SIGKILL to ready), p99',
      value: Math.round(percentile(cold, 0.99)),
    }),
  ];
}
