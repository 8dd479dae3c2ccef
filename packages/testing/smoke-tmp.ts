import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startNatsCluster } from '@venue/testing';
import { createFailoverWorld } from './src/failover-world.ts';

const child = '/work/wt/i22b/packages/testing/src/failover-venue-child.ts';
const cluster = await startNatsCluster();
const dir = await mkdtemp(join(tmpdir(), 'fo-'));
await createFailoverWorld(dir);
function start(role: string, name: string, port: number) {
  const p = spawn(process.execPath, ['--import', 'tsx', child, JSON.stringify({ dir, role, servers: cluster.servers, stream: 'smoke', port, traders: 2, name, leaseTtlMs: 1000, leaseRenewMs: 250 })], { stdio: ['ignore', 'pipe', 'inherit'], cwd: '/work/wt/i22b/packages/testing' });
  const lines: any[] = [];
  const waiters: ((l: any) => void)[] = [];
  createInterface({ input: p.stdout! }).on('line', (l) => { console.log(name, l); const j = JSON.parse(l); lines.push(j); for (const w of waiters) w(j); });
  return { p, ready: new Promise<any>((res) => waiters.push((j) => j.ready && res(j.ready))) };
}
const t0 = Date.now();
const a = start('primary', 'a', 24101);
console.log('primary ready', await a.ready, Date.now() - t0);
const b = start('standby', 'b', 24102);
await new Promise((r) => setTimeout(r, 3000));
const killAt = Date.now();
a.p.kill('SIGKILL');
const r = await b.ready;
console.log('takeover ms', r.readyAtMs - killAt, 'lease free after', r.leaseFreeAtMs - killAt);
b.p.kill('SIGTERM');
await new Promise((r) => b.p.once('exit', r));
await cluster.stop();
