/**
 * `/health` under a stream flood (issue 20, "Done when": 50 sockets that never read, from several
 * accounts, each flooding frames for 30 s; `/health` answers in under 50 ms throughout).
 *
 * The flood is the memory test's (packages/adapters/test/stream-memory.test.ts): a child process
 * opens 4 accounts x 10 logged-in sockets plus 10 sockets that never log in; each stops reading and
 * sends one-byte frames (each draws an error reply) as fast as the venue takes them, reconnecting
 * when dropped. Meanwhile a third process (packages/testing/src/health-poll-child.mjs) calls `/health`
 * every 50 ms, each call on a new TLS connection as a load balancer's probe makes it, and records
 * how long it took: the client's half of each handshake is not on the venue's event loop.
 *
 * Three phases in one run, each on a fresh venue (TestVenue: stub proofs, no journal):
 * - idle: no flood (what `/health` costs on this machine right now);
 * - flood with the read budget lifted (the behaviour before it: every socket read as fast as the
 *   event loop goes), the baseline;
 * - flood with the shipped read budget (STREAM_READ_BUCKET, STREAM_LOGIN_READ_BUCKET).
 * STREAM_FLOOD_SECONDS sets each flood's length (30 s; 8 s with --quick).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { TestVenue } from '@venue/testing';
import { log } from './bench-venue.ts';
import { type Figure, figure } from './harness.ts';

const FLOOD_CHILD = fileURLToPath(new URL('../packages/testing/src/stream-flood-child.mjs', import.meta.url));
const POLL_CHILD = fileURLToPath(new URL('../packages/testing/src/health-poll-child.mjs', import.meta.url));
const FLOOD_ACCOUNTS = 4;
const LOGGED_IN_SOCKETS_PER_ACCOUNT = 10;
const ANONYMOUS_SOCKETS = 10;
const POLL_PAUSE_MS = 50;
/** The issue's target for `/health` under the flood. */
const SLOW_MS = 50;
const PATH = '_stub_no_journal';
/** As the send-bound tests lift it: every socket read as fast as the event loop goes. */
const LIFTED_READ_BUCKET = { capacity: 1_000_000, refillPerSecond: 1_000_000 };

interface Phase {
  latencies: number[];
  /** The calls over SLOW_MS: [when it started in s from the first call, how long it took]. */
  slow: (readonly [number, number])[];
  framesSent: number;
  connections: number;
  readPauses: number;
  /** The venue process's CPU time per second of wall time while polling (user + system). */
  cpuPerS: number;
  /** Event-loop delay p99 in the venue's process while polling, beyond the 10 ms sampling. */
  loopP99Ms: number;
}

export async function run(quick: boolean): Promise<Figure[]> {
  const floodSeconds = Number(process.env['STREAM_FLOOD_SECONDS'] ?? (quick ? 8 : 30));
  const idleSeconds = quick ? 3 : 10;
  log(
    `stream-flood: /health every ${POLL_PAUSE_MS} ms; idle ${idleSeconds} s, then ${floodSeconds} s floods of ` +
      `${FLOOD_ACCOUNTS * LOGGED_IN_SOCKETS_PER_ACCOUNT + ANONYMOUS_SOCKETS} sockets with the read budget lifted and shipped; ` +
      'venue: stub proofs, no journal\n',
  );
  const idle = await phase(idleSeconds, null, undefined);
  log(`stream-flood: idle: ${describe(idle)}\n`);
  const lifted = await phase(floodSeconds, floodSeconds, LIFTED_READ_BUCKET);
  log(`stream-flood: flood, read budget lifted: ${describe(lifted)}\n`);
  const shipped = await phase(floodSeconds, floodSeconds, undefined);
  log(`stream-flood: flood, read budget shipped: ${describe(shipped)}\n`);
  const once = (value: number) => ({ median: value, spread: 0, runs: 1 });
  const stat = (p: Phase, name: 'p50' | 'p99' | 'max') => percentile(p.latencies, name);
  const lift = (name: 'p50' | 'p99' | 'max') => ({
    name: `health ${name} under the flood, read budget lifted`,
    value: round(stat(lifted, name)),
  });
  return [
    ...(['p50', 'p99', 'max'] as const).map((name) =>
      figure(
        'stream-flood',
        `health_${name}_ms_flood${PATH}`,
        'ms',
        'lower',
        once(stat(shipped, name)),
        lift(name),
      ),
    ),
    figure('stream-flood', `health_p99_ms_idle${PATH}`, 'ms', 'lower', once(stat(idle, 'p99')), null),
    figure('stream-flood', `venue_cpu_ms_per_s_flood${PATH}`, 'ms/s', 'lower', once(shipped.cpuPerS * 1000), {
      name: 'venue CPU under the flood, read budget lifted',
      value: round(lifted.cpuPerS * 1000),
    }),
    figure('stream-flood', `loop_delay_p99_ms_flood${PATH}`, 'ms', 'lower', once(shipped.loopP99Ms), {
      name: 'loop delay p99 under the flood, read budget lifted',
      value: round(lifted.loopP99Ms),
    }),
    figure(
      'stream-flood',
      `flood_frames_sent_per_s${PATH}`,
      'frames/s',
      'lower',
      once(shipped.framesSent / floodSeconds),
      {
        name: 'flood frames sent a second, read budget lifted',
        value: round(lifted.framesSent / floodSeconds),
      },
    ),
  ];
}

/** One venue, optionally flooded for `floodSeconds`, `/health` polled for `seconds`. */
async function phase(
  seconds: number,
  floodSeconds: number | null,
  readBucket: typeof LIFTED_READ_BUCKET | undefined,
): Promise<Phase> {
  const venue = await TestVenue.start(readBucket === undefined ? {} : { streamReadBucket: readBucket });
  let flooder: ChildProcess | null = null;
  let poller: ChildProcess | null = null;
  try {
    const tokens: (string | null)[] = [];
    if (floodSeconds !== null) {
      for (let i = 0; i < FLOOD_ACCOUNTS; i += 1) {
        const trader = await venue.trader(`flooder-${i}`);
        for (let s = 0; s < LOGGED_IN_SOCKETS_PER_ACCOUNT; s += 1) tokens.push(trader.token);
      }
      for (let s = 0; s < ANONYMOUS_SOCKETS; s += 1) tokens.push(null);
    }
    await venue.call('/health'); // warm the path
    if (floodSeconds !== null) flooder = spawnFlooder();
    const exited =
      flooder === null
        ? Promise.resolve('')
        : childOutput(flooder, {
            port: venue.port,
            ca: venue.identity.certPem,
            seconds: floodSeconds,
            tokens,
          });
    poller = spawn(process.execPath, [POLL_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
    const polled = childOutput(poller, {
      port: venue.port,
      ca: venue.identity.certPem,
      seconds,
      pauseMs: POLL_PAUSE_MS,
    });
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const {
      latenciesMs: latencies,
      startsMs,
      failures,
    } = JSON.parse(await polled) as { latenciesMs: number[]; startsMs: number[]; failures: string[] };
    const cpu = process.cpuUsage(cpuBefore);
    const cpuPerS = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
    loop.disable();
    if (failures.length > 0) throw new Error(`/health failed ${failures.length} times: ${failures[0]}`);
    const output = await exited;
    const counts = output === '' ? { framesSent: 0, connections: 0 } : JSON.parse(output);
    return {
      latencies,
      slow: latencies.flatMap((ms, i) => (ms > SLOW_MS ? [[startsMs[i] ?? 0, ms] as const] : [])),
      framesSent: counts.framesSent,
      connections: counts.connections,
      readPauses: venue.server.stream.readPauses,
      cpuPerS,
      loopP99Ms: Math.max(0, loop.percentile(99) / 1e6 - 10),
    };
  } finally {
    (flooder as ChildProcess | null)?.kill('SIGKILL');
    (poller as ChildProcess | null)?.kill('SIGKILL');
    await venue.stop();
  }
}

/**
 * The flooding clients at the lowest CPU priority (STREAM_FLOOD_PRIORITY=same keeps them at ours):
 * an attacker floods from machines of its own, and on a two-core machine a flooder at full priority
 * starves the venue and the prober of CPU, which is not what the venue does under a flood.
 */
function spawnFlooder(): ChildProcess {
  const child = spawn(process.execPath, [FLOOD_CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
  if (process.env['STREAM_FLOOD_PRIORITY'] !== 'same' && child.pid !== undefined) {
    setPriority(child.pid, constants.priority.PRIORITY_LOW);
  }
  return child;
}

/** Sends `input` to the child as one JSON line; resolves with what it printed once it exits. */
function childOutput(child: ChildProcess, input: unknown): Promise<string> {
  return new Promise((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('exit', () => resolve(output));
    child.stdin?.end(JSON.stringify(input));
  });
}

function percentile(values: readonly number[], which: 'p50' | 'p99' | 'max'): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  if (which === 'max') return sorted.at(-1) ?? 0;
  const q = which === 'p50' ? 0.5 : 0.99;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

function describe(p: Phase): string {
  return (
    `/health ${p.latencies.length} answers, median ${percentile(p.latencies, 'p50').toFixed(1)} ms, ` +
    `p99 ${percentile(p.latencies, 'p99').toFixed(1)} ms, max ${percentile(p.latencies, 'max').toFixed(1)} ms; ` +
    `${p.framesSent} frames sent on ${p.connections} connections, ${p.readPauses} read pauses; ` +
    `venue CPU ${(p.cpuPerS * 1000).toFixed(0)} ms/s, loop delay p99 ${p.loopP99Ms.toFixed(1)} ms; ` +
    `${p.slow.length} calls over ${SLOW_MS} ms${p.slow.length === 0 ? '' : ` (at s: ${p.slow.map(([at, ms]) => `${(at / 1000).toFixed(1)}:${ms.toFixed(0)}ms`).join(' ')})`}`
  );
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
