/**
 * A real JetStream cluster for tests: three (or any number of) `nats-server` processes of the
 * machine's binary on free loopback ports, each with its own temporary store directory, routed to
 * one another. Tests kill and restart single nodes to make the broker lose and regain its quorum.
 * The binary comes from the machine (Debian package `nats-server`; scripts/ensure-machine.mjs
 * installs it where missing): PATH first, then /usr/sbin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePorts } from './free-ports.ts';

export interface NatsNode {
  readonly name: string;
  readonly clientPort: number;
  readonly clusterPort: number;
  readonly monitorPort: number;
  readonly storeDir: string;
  process: ChildProcess | null;
}

export interface NatsCluster {
  /** Client URLs of every node (`nats://127.0.0.1:port`), for the journal's `servers`. */
  readonly servers: readonly string[];
  readonly nodes: readonly NatsNode[];
  /** SIGKILLs node `index` (no flush, no goodbye to its peers) and waits for it to exit. */
  kill(index: number): Promise<void>;
  /**
   * Starts node `index` again on the same ports and store, and waits until it serves clients and
   * the cluster is ready again (`waitReady`).
   */
  restart(index: number): Promise<void>;
  /** Restarts every node that is not running (a test's `finally`). */
  restartKilled(): Promise<void>;
  /**
   * Waits until the running nodes agree on a metadata leader and every stream (or those named) has
   * a leader whose replicas on running nodes are all current: what a test waits for before its
   * appends, so it does not meet an election it did not cause.
   */
  waitReady(streams?: readonly string[]): Promise<void>;
  /** Kills every node and removes the store directories. */
  stop(): Promise<void>;
}

export interface NatsClusterOptions {
  readonly nodes?: number;
  /** Forwarded to every node, e.g. ['-DV'] while debugging. */
  readonly extraArgs?: readonly string[];
}

/** The machine's nats-server binary, or an Error naming what to install. */
export function natsServerBinary(): string {
  const dirs = [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    if (dir === '') continue;
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    'nats-server is not installed: run `node scripts/ensure-machine.mjs` (or `apt-get install nats-server`) to get it',
  );
}

/** Starts the cluster and resolves once every node answers its health check with JetStream ready. */
export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const count = options.nodes ?? 3;
  const binary = natsServerBinary();
  const root = await mkdtemp(join(tmpdir(), 'venue-nats-'));
  const ports = await freePorts(count * 3);
  const nodes: NatsNode[] = [];
  for (let i = 0; i < count; i++) {
    nodes.push({
      name: `n${i + 1}`,
      clientPort: ports[i * 3] as number,
      clusterPort: ports[i * 3 + 1] as number,
      monitorPort: ports[i * 3 + 2] as number,
      storeDir: join(root, `n${i + 1}`),
      process: null,
    });
  }
  const argsOf = (node: NatsNode): string[] => [
    '-a',
    '127.0.0.1',
    '-p',
    String(node.clientPort),
    '-m',
    String(node.monitorPort),
    '-n',
    node.name,
    '-js',
    '-sd',
    node.storeDir,
    '--cluster_name',
    'venue-test',
    '--cluster',
    `nats://127.0.0.1:${node.clusterPort}`,
    '--routes',
    nodes
      .filter((other) => other !== node)
      .map((other) => `nats://127.0.0.1:${other.clusterPort}`)
      .join(','),
    ...(options.extraArgs ?? []),
  ];
  const launch = (node: NatsNode): void => {
    const child = spawn(binary, argsOf(node), { stdio: ['ignore', 'ignore', 'pipe'] });
    // nats-server logs to stderr; keep the pipe drained so a chatty node never blocks.
    child.stderr?.resume();
    node.process = child;
    child.once('exit', () => {
      if (node.process === child) node.process = null;
    });
  };
  const cluster: NatsCluster = {
    servers: nodes.map((node) => `nats://127.0.0.1:${node.clientPort}`),
    nodes,
    async kill(index) {
      const node = nodeAt(nodes, index);
      const child = node.process;
      if (child === null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    },
    async restart(index) {
      const node = nodeAt(nodes, index);
      if (node.process !== null) throw new Error(`node ${node.name} is still running`);
      launch(node);
      // Healthy means the node caught up with the cluster's JetStream state; ready, that the streams
      // it holds elected their leaders again.
      await waitHealthy(node);
      await cluster.waitReady();
    },
    async restartKilled() {
      for (let i = 0; i < nodes.length; i++) if (nodeAt(nodes, i).process === null) await cluster.restart(i);
    },
    waitReady: (streams) => waitReady(nodes, streams),
    async stop() {
      for (let i = 0; i < nodes.length; i++) await cluster.kill(i);
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    for (const node of nodes) launch(node);
    // JetStream in a cluster is healthy once a metadata leader exists, which needs a quorum of nodes.
    await Promise.all(nodes.map((node) => waitHealthy(node)));
    await cluster.waitReady();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

function nodeAt(nodes: readonly NatsNode[], index: number): NatsNode {
  const node = nodes[index];
  if (node === undefined) throw new Error(`the cluster has no node ${index}`);
  return node;
}

/** Generous: on a loaded machine a node's JetStream can take many seconds to elect its leaders. */
const START_TIMEOUT_MS = 45_000;
const POLL_MS = 50;

/**
 * Polls the node's /healthz until it answers 200: the node serves clients, its JetStream has a
 * metadata leader and the streams it holds have caught up.
 */
async function waitHealthy(node: NatsNode): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (node.process === null) throw new Error(`nats-server ${node.name} exited while starting`);
    if ((await httpStatus(node.monitorPort, '/healthz')) === 200) return;
    if (Date.now() > deadline) throw new Error(`nats-server ${node.name} did not become healthy in time`);
    await sleep(POLL_MS);
  }
}

/** What a node's /jsz says about the cluster (the parts waitReady reads; nats-server 2.9+). */
interface Jsz {
  readonly meta_cluster?: { readonly leader?: string };
  readonly account_details?: readonly {
    readonly stream_detail?: readonly {
      readonly name: string;
      readonly cluster?: {
        readonly leader?: string;
        readonly replicas?: readonly { readonly name: string; readonly current?: boolean }[];
      };
    }[];
  }[];
}

/** What keeps the cluster from being ready, or null when it is: for waitReady's error message. */
function notReady(
  running: readonly NatsNode[],
  views: readonly (Jsz | null)[],
  streams: readonly string[] | undefined,
): string | null {
  const metaLeaders = new Set(views.map((view) => view?.meta_cluster?.leader ?? ''));
  const [metaLeader] = metaLeaders;
  if (metaLeaders.size !== 1 || metaLeader === undefined || metaLeader === '')
    return `no agreed metadata leader (${[...metaLeaders].join(', ')})`;
  const names = new Set(running.map((node) => node.name));
  // Right after a kill the others may still name the dead node until they notice.
  if (!names.has(metaLeader)) return `metadata leader ${metaLeader} is not running`;
  const wanted = new Set(streams ?? []);
  const leaderViews = new Map<string, { leader: string; lagging: string[] }>();
  for (let i = 0; i < running.length; i++) {
    const node = running[i] as NatsNode;
    for (const account of views[i]?.account_details ?? []) {
      for (const detail of account.stream_detail ?? []) {
        if (streams === undefined) wanted.add(detail.name);
        // The leader's own view is the one that knows whether its replicas are current.
        if (detail.cluster?.leader !== node.name) continue;
        const lagging = (detail.cluster.replicas ?? [])
          .filter((replica) => names.has(replica.name) && replica.current !== true)
          .map((replica) => replica.name);
        leaderViews.set(detail.name, { leader: node.name, lagging });
      }
    }
  }
  for (const stream of wanted) {
    const view = leaderViews.get(stream);
    if (view === undefined) return `stream ${stream} has no leader`;
    if (view.lagging.length > 0) return `stream ${stream}: replicas ${view.lagging.join(', ')} not current`;
  }
  return null;
}

async function waitReady(nodes: readonly NatsNode[], streams?: readonly string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const running = nodes.filter((node) => node.process !== null);
    const views = await Promise.all(
      running.map((node) => httpJson<Jsz>(node.monitorPort, '/jsz?accounts=true&streams=true')),
    );
    const missing = notReady(running, views, streams);
    if (missing === null) return;
    if (Date.now() > deadline) throw new Error(`the NATS cluster did not become ready in time: ${missing}`);
    await sleep(POLL_MS);
  }
}

function httpJson<T>(port: number, path: string): Promise<T | null> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path, timeout: 1000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as T);
        } catch {
          resolve(null);
        }
      });
      response.on('error', () => resolve(null));
    });
    request.on('error', () => resolve(null));
    request.on('timeout', () => {
      request.destroy();
      resolve(null);
    });
  });
}

function httpStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path, timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    request.on('timeout', () => {
      request.destroy();
      resolve(0);
    });
  });
}
