import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JetStreamLease, openJetStreamLink } from '@venue/adapters';
import { startNatsCluster } from '@venue/testing';
import { createFailoverWorld } from './src/failover-world.ts';
const cluster = await startNatsCluster();
const dir = await mkdtemp(join(tmpdir(), 'fo-'));
await createFailoverWorld(dir);
const p = spawn(process.execPath, ['--import', 'tsx', './src/failover-venue-child.ts', JSON.stringify({ dir, role: 'primary', servers: cluster.servers, stream: 'smoke', port: 24111, traders: 2, name: 'a', leaseTtlMs: 1000, leaseRenewMs: 250 })], { stdio: ['ignore', 'inherit', 'inherit'] });
await new Promise((r) => setTimeout(r, 8000));
const link = await openJetStreamLink({ servers: cluster.servers, stream: 'smoke', replicas: 3 });
for (let i = 0; i < 30; i++) {
  await new Promise((r) => setTimeout(r, 500));
  const t = Date.now();
  console.log(Date.now(), JSON.stringify(await JetStreamLease.holder(link, { ttlMs: 1000, renewEveryMs: 250 })), Date.now() - t);
}
p.kill('SIGKILL');
for (let i = 0; i < 10; i++) {
  await new Promise((r) => setTimeout(r, 200));
  console.log(Date.now(), JSON.stringify(await JetStreamLease.holder(link, { ttlMs: 1000, renewEveryMs: 250 })));
}
await link.close();
await cluster.stop();
