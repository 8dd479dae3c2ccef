/**
 * Soak (issue 20: "`npm run bench -- soak` runs mixed signed traffic with reconnects, slow readers
 * and oracle faults against one venue and reports RSS, event-loop delay p99 and acknowledged
 * operations per second at the start and the end: RSS flat within 10 %, no growth in handles").
 *
 * The venue: the bench venue (stub proofs, no journal, no settlement: figure names end in
 * `_stub_no_journal`; with `--journal` the journal is on and they end in `_stub_journal`; with
 * `--proofs` every place and modify carries a real VALID_INPUT proof that the venue's Groth16
 * verifier workers check, and names say `_groth16`) on a wall-clock slot clock, one market, and an oracle port fed by the
 * simulator every slot, with faults: an update under a wrong key and a replayed update (each pauses
 * the market until the next good update), and once in the middle of the run a feed that stops for
 * longer than the market's oracle age (the market goes stale, then recovers).
 *
 * The load, from a forked child process so that the venue's process measures only the venue:
 * - TRADERS accounts, one socket each, each cycling place -> modify (reprice in place) -> cancel,
 *   every frame signed, paced at RATE operations per second in total (well inside the trading
 *   limit). Every RECONNECT_MS one of them (in turn) leaves after its cycle and comes back on a new
 *   socket: alternately a clean close and a dropped TCP connection.
 * - SLOW_READERS accounts whose socket stops reading for 2 s while it sends a burst of places and
 *   pings, then reads everything and cancels what it placed.
 * Refusals that faults cause (5002 market paused) are expected and counted apart; anything else
 * (another error, a seq gap, a close the generator did not ask for) counts as an unexpected error.
 *
 * Measured in the venue's process: RSS and heap after a forced GC at the end of the first window
 * and at the end of the run, event-loop delay (p99 and max, beyond the 10 ms sampling interval) per
 * window, active handles (process.getActiveResourcesInfo, median of the samples every 500 ms of a
 * window), and acknowledged
 * operations per second per window (replies with a result, as the clients counted them). A window
 * is the first and last minute of the 10-minute run, or the first and last 10 % with --quick (one
 * minute). Each end figure carries its start figure as baseline: the run's own start is the only
 * fair comparison for a soak. SOAK_SECONDS, SOAK_RATE, SOAK_TRADERS override the shape.
 */
import { fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import {
  assembleVenue,
  assetOfOrder,
  createBootIdentity,
  createOracleSimulator,
  createWallSlotClock,
  type OracleMonitor,
  type VenueClock,
} from '@venue/adapters';
import { assetIdOfMint } from '@venue/notes';
import {
  CancelParamsSchema,
  generateTradingKey,
  ModifyRequestSchema,
  type OracleUpdate,
  type PlaceOrder,
  PlaceOrderSchema,
  signCancel,
  signModify,
  signOracleUpdate,
  signPlaceOrder,
  type TradingKey,
  tradingKeyFromSeed,
  wireJsonText,
} from '@venue/protocol';
import {
  chainlessPorts,
  fixedRoots,
  orderBody,
  TEST_CORE_CONFIG,
  testListing,
  testMarket,
} from '@venue/testing';
import WebSocket from 'ws';
import { collectGarbage, log, positiveFromEnv, traderTokens } from './bench-venue.ts';
import { type Figure, figure } from './harness.ts';
import { groth16Verifier, type NoteSpec, type ProvedNote, proveNotes } from './proved-notes.ts';

const TRADERS = positiveFromEnv('SOAK_TRADERS', 8);
const SLOW_READERS = 2;
/** Offered load of the traders, operations (place, modify, cancel) per second in total. */
const RATE = positiveFromEnv('SOAK_RATE', 240);
const SLOW_PAUSE_MS = 2_000;
const LOOP_RESOLUTION_MS = 10;
const SLOW_BURST = 30;
const LOAD_GENERATOR_ENV = 'VENUE_SOAK_LOAD_GENERATOR';
/**
 * `--journal`: the same run with the journal on (sealed records, fsync, snapshots by the replica
 * worker) in a temporary directory, the production path apart from real proofs.
 */
const JOURNAL = process.argv.includes('--journal');
/**
 * `--proofs`: real VALID_INPUT proofs, as `venue serve` checks them (Groth16 on the verifier's
 * workers, Poseidon commitments). The notes are made and proved once before the run, in a local
 * tree whose root the venue is given; each account reuses its notes, since a note backs one open
 * order at a time and a proof binds the note and the trading key, not the order.
 */
const PROOFS = process.argv.includes('--proofs');
const PATH = `_${PROOFS ? 'groth16' : 'stub'}_${JOURNAL ? 'journal' : 'no_journal'}`;
/** Notes per account with --proofs: a trader's cycle holds one, a slow reader's burst SLOW_BURST. */
const TRADER_NOTES = 2;
const MARKET = testMarket('SOL-USDC');
const ORDER_AMOUNT = 100n;
/** Far from each other and from the oracle price (1000): nothing ever crosses, nothing settles. */
const BID_PRICES = [950n, 940n] as const;
const ASK_PRICES = [1050n, 1060n] as const;

// ---- What parent and load generator exchange ----

interface Setup {
  port: number;
  certPem: string;
  sessionId: string;
  tokens: string[];
  /** With --proofs, per account: the proved note fields its orders carry, used in turn. */
  notes: ProvedNote[][] | null;
  expirySlot: string;
  seconds: number;
  reconnectMs: number;
}

/** Cumulative counts, sent every second. */
interface Progress {
  acked: number;
  expectedRefusals: number;
  unexpected: Record<string, number>;
  samples: string[];
  reconnects: number;
  slowBursts: number;
}

type ToChild = { type: 'setup'; setup: Setup } | { type: 'exit' };
type FromChild =
  | { type: 'ready'; progress: Progress }
  | { type: 'progress'; progress: Progress }
  | { type: 'done'; progress: Progress };

// ---- The benchmark (the venue's process) ----

interface WindowFigures {
  rssMb: number;
  heapMb: number;
  loopP99Ms: number;
  loopMaxMs: number;
  handles: number;
  ackedPerS: number;
  /** Order rows the core keeps (open, or finished and still readable) and compact remains. */
  orderRows: number;
  compactedOrders: number;
}

export async function run(quick: boolean): Promise<Figure[]> {
  const seconds = positiveFromEnv('SOAK_SECONDS', quick ? 60 : 600);
  const windowS = quick ? Math.max(1, Math.round(seconds / 10)) : Math.min(60, Math.round(seconds / 10));
  const reconnectMs = quick ? 3_000 : 10_000;
  log(
    `soak: ${seconds} s; windows: the first and last ${windowS} s; ${TRADERS} traders at ${RATE} ops/s in total ` +
      `(place -> modify -> cancel, signed), one reconnect every ${reconnectMs / 1000} s, ${SLOW_READERS} slow readers, ` +
      `oracle faults; load from a child process; venue: ${PROOFS ? 'Groth16 proofs' : 'stub proofs'}, ` +
      `${JOURNAL ? 'journal on' : 'no journal'}\n`,
  );
  const stateDir = JOURNAL ? await mkdtemp(join(tmpdir(), 'venue-soak-')) : null;
  const identity = await createBootIdentity();
  const clock = createWallSlotClock();
  const oracle = faultyOracle(clock, seconds);
  const proved = PROOFS ? await provedNotes(TRADERS + SLOW_READERS) : null;
  const ports = chainlessPorts(identity, clock);
  const { server } = await assembleVenue(
    {
      ...ports,
      oracle: oracle.port,
      ...(proved === null
        ? {}
        : { proofs: { verifier: proved.verifier }, hasher: proved.hasher, roots: fixedRoots([proved.root]) }),
    },
    {
      core:
        proved === null
          ? TEST_CORE_CONFIG
          : { ...TEST_CORE_CONFIG, noteCommitment: proved.hasher.noteCommitment },
      markets: [testListing(MARKET)],
      settles: false,
      proofMode: PROOFS ? 'groth16' : 'stub',
      ...(stateDir === null ? {} : { state: { directory: stateDir, sealingKey: randomBytes(32) } }),
    },
  );
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const runDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  try {
    log(`soak: creating and logging in ${TRADERS + SLOW_READERS} accounts...\n`);
    const tokens = await traderTokens(server, TRADERS + SLOW_READERS, 'soak');
    /** Handle counts, and acknowledged operations as the generator reports them (every 250 ms). */
    const handleSamples: { atMs: number; handles: number }[] = [];
    const acks: { atMs: number; acked: number }[] = [];
    let started = performance.now();
    let progress: Progress | null = null;
    const generator = startLoadGenerator((p) => {
      progress = p;
      acks.push({ atMs: performance.now() - started, acked: p.acked });
    });
    collectGarbage();
    await generator.setup({
      port,
      certPem: identity.certPem,
      sessionId: identity.sessionId,
      tokens,
      notes: proved?.notes ?? null,
      expirySlot: String(clock.slot() + 4000n),
      seconds,
      reconnectMs,
    });
    // The clock starts once every socket is logged in and the load is running.
    started = performance.now();
    acks.length = 0;
    const elapsedS = () => (performance.now() - started) / 1000;
    delay.enable();
    runDelay.enable();
    const sampler = setInterval(() => {
      handleSamples.push({
        atMs: performance.now() - started,
        handles: process.getActiveResourcesInfo().length,
      });
    }, 500);
    const measureWindow = (fromS: number, toS: number): WindowFigures => {
      const within = <T extends { atMs: number }>(list: T[]) =>
        list.filter((s) => s.atMs >= fromS * 1000 && s.atMs <= toS * 1000);
      const inside = within(handleSamples);
      const reported = within(acks);
      const first = reported[0];
      const last = reported.at(-1);
      const ackedPerS =
        first !== undefined && last !== undefined && last.atMs > first.atMs
          ? ((last.acked - first.acked) * 1000) / (last.atMs - first.atMs)
          : 0;
      collectGarbage();
      const memory = process.memoryUsage();
      const retained = server.engine.core.retainedOrders();
      const result: WindowFigures = {
        rssMb: memory.rss / 2 ** 20,
        heapMb: memory.heapUsed / 2 ** 20,
        loopP99Ms: lateMs(delay.percentile(99)),
        loopMaxMs: lateMs(delay.max),
        handles: median(inside.map((s) => s.handles)),
        ackedPerS,
        orderRows: retained.rows,
        compactedOrders: retained.compacted,
      };
      delay.reset();
      return result;
    };
    await sleepUntil(started, windowS);
    const start = measureWindow(0, windowS);
    log(`soak: first window: ${describe(start)}\n`);
    let reported = windowS;
    while (elapsedS() < seconds - windowS) {
      const next = Math.min(reported + (quick ? 10 : 60), seconds - windowS);
      await sleepUntil(started, next);
      reported = next;
      const memory = process.memoryUsage();
      const p = progress as Progress | null;
      log(
        `soak: ${Math.round(elapsedS())} s: rss ${fmt(memory.rss / 2 ** 20)} MB, acked ${p?.acked ?? 0}, ` +
          `expected refusals ${p?.expectedRefusals ?? 0}, reconnects ${p?.reconnects ?? 0}, oracle faults ${oracle.faults()}\n`,
      );
    }
    delay.reset();
    await sleepUntil(started, seconds);
    const end = measureWindow(seconds - windowS, seconds);
    // SOAK_HEAP_SNAPSHOT=FILE: what the venue holds at the end, for finding what grows.
    const snapshotFile = process.env['SOAK_HEAP_SNAPSHOT'];
    if (snapshotFile !== undefined) log(`soak: heap snapshot ${writeHeapSnapshot(snapshotFile)}\n`);
    clearInterval(sampler);
    const final = await generator.stop();
    const unexpected = Object.values(final.unexpected).reduce((a, b) => a + b, 0);
    log(`soak: last window: ${describe(end)}\n`);
    log(
      `soak: run: acked ${final.acked}, expected refusals (paused market) ${final.expectedRefusals}, ` +
        `reconnects ${final.reconnects}, slow-reader bursts ${final.slowBursts}, oracle faults ${oracle.faults()}; ` +
        `unexpected: ${unexpected === 0 ? 'none' : `${JSON.stringify(final.unexpected)} ${final.samples.join(' | ')}`}\n`,
    );
    return figures(start, end, runDelay, unexpected, windowS);
  } finally {
    oracle.stop();
    delay.disable();
    runDelay.disable();
    await server.close();
    await proved?.verifier.close();
    if (stateDir !== null) await rm(stateDir, { recursive: true, force: true });
  }
}

function figures(
  start: WindowFigures,
  end: WindowFigures,
  runDelay: ReturnType<typeof monitorEventLoopDelay>,
  unexpected: number,
  windowS: number,
): Figure[] {
  const once = (value: number) => ({ median: value, spread: 0, runs: 1 });
  const first = (name: string, value: number) => ({
    name: `${name} first ${windowS} s`,
    value: round(value),
  });
  return [
    figure(
      'soak',
      `rss_mb_last_${windowS}s${PATH}`,
      'MB',
      'lower',
      once(end.rssMb),
      first('rss_mb', start.rssMb),
    ),
    figure(
      'soak',
      `rss_growth_pct${PATH}`,
      '%',
      'lower',
      once(((end.rssMb - start.rssMb) / start.rssMb) * 100),
      null,
    ),
    figure(
      'soak',
      `heap_used_mb_last_${windowS}s${PATH}`,
      'MB',
      'lower',
      once(end.heapMb),
      first('heap_used_mb', start.heapMb),
    ),
    figure(
      'soak',
      `loop_delay_p99_ms_last_${windowS}s${PATH}`,
      'ms',
      'lower',
      once(end.loopP99Ms),
      first('loop_delay_p99_ms', start.loopP99Ms),
    ),
    figure(
      'soak',
      `loop_delay_p99_ms_run${PATH}`,
      'ms',
      'lower',
      once(lateMs(runDelay.percentile(99))),
      null,
    ),
    figure('soak', `loop_delay_max_ms_run${PATH}`, 'ms', 'lower', once(lateMs(runDelay.max)), null),
    figure(
      'soak',
      `acked_ops_per_s_last_${windowS}s${PATH}`,
      'ops/s',
      'higher',
      once(end.ackedPerS),
      first('acked_ops_per_s', start.ackedPerS),
    ),
    figure(
      'soak',
      `active_handles_last_${windowS}s${PATH}`,
      'count',
      'lower',
      once(end.handles),
      first('active_handles', start.handles),
    ),
    figure(
      'soak',
      `order_rows_last_${windowS}s${PATH}`,
      'count',
      'lower',
      once(end.orderRows),
      first('order_rows', start.orderRows),
    ),
    figure(
      'soak',
      `compacted_orders_last_${windowS}s${PATH}`,
      'count',
      'lower',
      once(end.compactedOrders),
      first('compacted_orders', start.compactedOrders),
    ),
    figure('soak', `handle_growth${PATH}`, 'count', 'lower', once(end.handles - start.handles), null),
    figure('soak', `unexpected_errors${PATH}`, 'count', 'lower', once(unexpected), null),
  ];
}

function describe(w: WindowFigures): string {
  return (
    `rss ${fmt(w.rssMb)} MB, heap ${fmt(w.heapMb)} MB, loop p99 ${w.loopP99Ms.toFixed(1)} ms ` +
    `(max ${w.loopMaxMs.toFixed(1)}), handles ${w.handles}, acked ${fmt(w.ackedPerS)} ops/s, ` +
    `order rows ${w.orderRows}, compacted orders ${w.compactedOrders}`
  );
}

/**
 * The simulator's feed, one update a slot, with faults: every FAULT_EVERY steps an update under a
 * stranger's key or a replay of the previous one; once, in the middle of the run, no updates for
 * longer than the market's oracle age.
 */
function faultyOracle(clock: VenueClock, seconds: number) {
  const simulator = createOracleSimulator({
    feeds: [{ feed: MARKET.oracleFeed, symbol: MARKET.symbol, startPrice: 1000n }],
  });
  const stranger = generateTradingKey();
  const listing = testListing(MARKET);
  const slotsPerSecond = 1000 / clock.slotDurationMs;
  const faultEvery = Math.round(5 * slotsPerSecond);
  const staleFrom = Math.round((seconds / 2) * slotsPerSecond);
  const staleUntil = staleFrom + Number(listing.oracleMaxAgeSlots) + Math.round(4 * slotsPerSecond);
  let step = 0;
  let faults = 0;
  let previous: OracleUpdate | null = null;
  let timer: NodeJS.Timeout | null = null;
  const port = {
    publisherKeys: simulator.publisherKeys,
    start(monitor: OracleMonitor) {
      const beat = (): void => {
        step += 1;
        const slot = clock.slot();
        if (step >= staleFrom && step < staleUntil) {
          if (step === staleFrom) faults += 1;
          return;
        }
        const updates = simulator.step(slot);
        if (step % faultEvery === 0 && previous !== null) {
          faults += 1;
          const fault: OracleUpdate =
            (step / faultEvery) % 2 === 0
              ? previous
              : signOracleUpdate({ ...previous, sequence: previous.sequence + 1000n }, stranger);
          // In place of this slot's good update: the market stays paused until the next beat.
          monitor.receive(fault, slot);
          return;
        }
        for (const update of updates) {
          monitor.receive(update, slot);
          previous = update;
        }
      };
      beat();
      timer = setInterval(beat, clock.slotDurationMs);
      return { stop: () => port.stopBeat() };
    },
    stopBeat() {
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
  return { port, faults: () => faults, stop: () => port.stopBeat() };
}

/**
 * The venue's side of --proofs: each account's notes, made in one tree and proved before the run
 * in child processes (bench/proved-notes.ts; the prover stays out of the venue's RSS), and the
 * Groth16 verifier the venue checks every place and modify with, on its worker threads as `venue
 * serve` does. A trader's notes back bids or asks by its index, as `trade` places them; a slow
 * reader's back bids. Each account's trading key is `keyOf(index)`, which the proofs bind.
 */
async function provedNotes(accounts: number) {
  const specs: (NoteSpec & { index: number })[] = [];
  for (let index = 0; index < accounts; index += 1) {
    const slow = index >= TRADERS;
    const side = slow || index % 2 === 0 ? 'bid' : 'ask';
    const spendingKey = BigInt(
      `0x${createHash('sha256').update(`soak-spend-${index}`).digest('hex').slice(0, 60)}`,
    );
    const assetId = assetIdOfMint(side === 'bid' ? MARKET.quoteMint : MARKET.baseMint);
    // Enough for the order at either price: a bid locks amount x its price as collateral.
    const value = side === 'bid' ? (ORDER_AMOUNT * BID_PRICES[0]) / MARKET.priceScale : ORDER_AMOUNT;
    const tradingKey = keyOf(index).publicKey;
    for (let n = 0; n < (slow ? SLOW_BURST : TRADER_NOTES); n += 1) {
      specs.push({ index, spendingKey, tradingKey, assetId, value });
    }
  }
  const proved = await proveNotes(specs, undefined, 'soak');
  const notes: ProvedNote[][] = Array.from({ length: accounts }, () => []);
  for (const [i, note] of proved.notes.entries()) notes[specs[i]?.index ?? -1]?.push(note);
  const { verifier, hasher } = await groth16Verifier(assetOfOrder(() => [MARKET]));
  return { hasher, verifier, notes, root: proved.root };
}

/** An account's trading key: the load generator signs with it, and --proofs binds its notes to it. */
function keyOf(index: number): TradingKey {
  return tradingKeyFromSeed(createHash('sha256').update(`soak-key-${index}`).digest());
}

interface LoadGenerator {
  setup(setup: Setup): Promise<void>;
  /** Asks the generator to finish; resolves with its final counts. */
  stop(): Promise<Progress>;
}

function startLoadGenerator(onProgress: (progress: Progress) => void): LoadGenerator {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [LOAD_GENERATOR_ENV]: '1' },
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = once(child, 'exit');
  let done: ((progress: Progress) => void) | null = null;
  let ready: (() => void) | null = null;
  child.on('message', (message: FromChild) => {
    onProgress(message.progress);
    if (message.type === 'ready') ready?.();
    if (message.type === 'done') done?.(message.progress);
  });
  return {
    async setup(setup) {
      const connected = new Promise<void>((resolve, reject) => {
        ready = resolve;
        child.once('exit', (code) => reject(new Error(`soak: the load generator exited with ${code}`)));
      });
      child.send({ type: 'setup', setup } satisfies ToChild);
      await connected;
    },
    async stop() {
      const final = new Promise<Progress>((resolve, reject) => {
        done = resolve;
        child.once('exit', (code) => reject(new Error(`soak: the load generator exited with ${code}`)));
      });
      child.send({ type: 'exit' } satisfies ToChild);
      const progress = await final;
      await exited;
      return progress;
    },
  };
}

// ---- The load generator (child process) ----

type Frame = Record<string, unknown>;
type OnReply = (reply: Frame | null) => void;

class Counts {
  readonly progress: Progress = {
    acked: 0,
    expectedRefusals: 0,
    unexpected: {},
    samples: [],
    reconnects: 0,
    slowBursts: 0,
  };

  unexpected(key: string, sample: string): void {
    this.progress.unexpected[key] = (this.progress.unexpected[key] ?? 0) + 1;
    if (this.progress.samples.length < 5) this.progress.samples.push(`${key}: ${sample.slice(0, 160)}`);
  }

  /** A ping is not an operation: its pong is only checked. */
  pong(reply: Frame | null): void {
    if (reply !== null && reply['op'] !== 'pong')
      this.unexpected(`ping answered ${reply['op']}`, JSON.stringify(reply));
  }

  /** Counts a reply; true when it carries a result. */
  reply(op: string, reply: Frame | null): boolean {
    if (reply === null) return false; // the socket went away; counted where it closed
    if (reply['result'] !== undefined) {
      this.progress.acked += 1;
      return true;
    }
    // Oracle faults pause the market: places and modifies are refused then, by design.
    if (reply['code'] === 5002) this.progress.expectedRefusals += 1;
    else this.unexpected(`${op} error ${reply['code']}`, String(reply['message']));
    return false;
  }
}

/** One socket: replies matched by request_id, seq checked, unexpected closes counted. */
class Link {
  readonly socket: WebSocket;
  readonly #pending = new Map<string, OnReply>();
  #expectedSeq = 1;
  #leaving = false;

  private constructor(
    socket: WebSocket,
    readonly counts: Counts,
  ) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => this.#receive(data));
    socket.on('error', () => undefined);
    socket.on('close', (code, reason) => {
      if (!this.#leaving) counts.unexpected(`socket closed ${code}`, reason.toString('utf8'));
      for (const onReply of this.#pending.values()) onReply(null);
      this.#pending.clear();
    });
  }

  static async open(port: number, ca: string, token: string, counts: Counts): Promise<Link> {
    const socket = new WebSocket(`wss://127.0.0.1:${port}/v1/stream`, { ca, perMessageDeflate: false });
    await once(socket, 'open');
    const link = new Link(socket, counts);
    const login = await link.ask({ op: 'login', token });
    const subscribed = await link.ask({ op: 'subscribe', channels: ['orders', 'fills'] });
    if (login?.['result'] === undefined || subscribed?.['result'] === undefined) {
      throw new Error(
        `soak: login or subscribe failed: ${JSON.stringify(login)} ${JSON.stringify(subscribed)}`,
      );
    }
    return link;
  }

  /** Leaves on purpose: a clean close, or a dropped connection. */
  async leave(clean: boolean): Promise<void> {
    this.#leaving = true;
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = once(this.socket, 'close');
    if (clean) this.socket.close(1000);
    else this.socket.terminate();
    await closed;
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  send(requestId: string, text: string, onReply: OnReply): void {
    if (!this.open) {
      queueMicrotask(() => onReply(null));
      return;
    }
    this.#pending.set(requestId, onReply);
    this.socket.send(text);
  }

  ask(frame: Frame): Promise<Frame | null> {
    const requestId = `s${nextSerial()}`;
    return new Promise((resolve) =>
      this.send(requestId, JSON.stringify({ ...frame, request_id: requestId }), resolve),
    );
  }

  request(requestId: string, text: string): Promise<Frame | null> {
    return new Promise((resolve) => this.send(requestId, text, resolve));
  }

  #receive(data: Buffer): void {
    // Every number in these frames (seq, slots, test amounts) is below 2^53.
    const frame = JSON.parse(data.toString('utf8')) as Frame;
    const seq = frame['seq'];
    if (seq !== this.#expectedSeq)
      this.counts.unexpected('seq gap', `expected ${this.#expectedSeq}, got ${seq}`);
    this.#expectedSeq = (typeof seq === 'number' ? seq : this.#expectedSeq) + 1;
    if (frame['channel'] !== undefined) return;
    const requestId = frame['request_id'];
    const onReply = typeof requestId === 'string' ? this.#pending.get(requestId) : undefined;
    if (typeof requestId === 'string' && onReply !== undefined) {
      this.#pending.delete(requestId);
      onReply(frame);
    } else if (frame['op'] === 'error') {
      this.counts.unexpected(`error ${frame['code']} (no request)`, String(frame['message']));
    }
  }
}

interface Account {
  readonly index: number;
  readonly token: string;
  readonly key: TradingKey;
  nonce: bigint;
  cancelNonce: bigint;
  link: Link;
  /** With --proofs: the account's proved notes, and the next one to use. */
  notes: ProvedNote[] | null;
  nextNote: number;
}

let serial = 0;
function nextSerial(): number {
  serial += 1;
  return serial;
}

/** A signed order; `note` keeps a modify's replacement on its order's proved note. */
function signedOrder(
  account: Account,
  setup: Setup,
  id: number,
  price: bigint,
  side: 'bid' | 'ask',
  note?: ProvedNote | null,
): PlaceOrder {
  account.nonce += 1n;
  const unsigned = orderBody({
    id,
    side,
    price,
    amount: ORDER_AMOUNT,
    nonce: account.nonce,
    note: `soak-${id}`,
    expiry: BigInt(setup.expirySlot),
  });
  const proved = note ?? nextNote(account);
  const withNote =
    proved === null
      ? unsigned
      : {
          ...unsigned,
          ...proved.fields,
          ...(BigInt(proved.value) === orderNominal(side, price)
            ? {}
            : { collateral_amount: BigInt(proved.value) }),
        };
  return signPlaceOrder(
    { ...withNote, trading_key: account.key.publicKey, session_id: setup.sessionId },
    account.key,
  );
}

/** The account's next proved note in turn (--proofs), or null on the stub path. */
function nextNote(account: Account): ProvedNote | null {
  if (account.notes === null) return null;
  const note = account.notes[account.nextNote % account.notes.length] ?? null;
  account.nextNote += 1;
  return note;
}

/** What an order locks without a collateral_amount: its amount, or for a bid amount x price. */
function orderNominal(side: 'bid' | 'ask', price: bigint): bigint {
  return side === 'bid' ? (ORDER_AMOUNT * price) / MARKET.priceScale : ORDER_AMOUNT;
}

function placeFrame(requestId: string, order: PlaceOrder): string {
  return `{"op":"order.place","request_id":"${requestId}","params":${wireJsonText(PlaceOrderSchema, order)}}`;
}

function cancelFrame(requestId: string, account: Account, setup: Setup, orderId: string): string {
  account.cancelNonce += 1n;
  const body = {
    order_id: orderId,
    trading_key: account.key.publicKey,
    cancel_nonce: account.cancelNonce,
    session_id: setup.sessionId,
  };
  const params = wireJsonText(CancelParamsSchema, {
    trading_key: body.trading_key,
    cancel_nonce: body.cancel_nonce,
    session_id: setup.sessionId,
    trading_key_signature: signCancel(body, account.key),
  });
  return `{"op":"order.cancel","request_id":"${requestId}","order_id":"${orderId}","params":${params}}`;
}

/** Place -> modify (reprice in place) -> cancel, one operation every `intervalMs`. */
async function trade(
  account: Account,
  setup: Setup,
  counts: Counts,
  intervalMs: number,
  until: () => boolean,
) {
  const side = account.index % 2 === 0 ? 'bid' : 'ask';
  const prices = side === 'bid' ? BID_PRICES : ASK_PRICES;
  let due = performance.now() + Math.random() * intervalMs;
  const pace = async () => {
    due += intervalMs;
    await sleep(due - performance.now());
  };
  while (!until()) {
    const id = nextSerial();
    const note = nextNote(account);
    const order = signedOrder(account, setup, id, prices[0], side, note);
    await pace();
    const placed = counts.reply(
      'order.place',
      await account.link.request(`p${id}`, placeFrame(`p${id}`, order)),
    );
    if (!placed) {
      if (!account.link.open) {
        // The socket went away under the place: it may have booked. Take it out from the new
        // socket, so its note is free again (--proofs reuses notes) and the book does not grow.
        await reconnectIfClosed(account, setup, counts);
        const again = await account.link.request(
          `o${id}`,
          cancelFrame(`o${id}`, account, setup, order.order_id),
        );
        if (again?.['code'] !== 1300 && again?.['code'] !== 1205) counts.reply('order.cancel', again);
      }
      continue;
    }
    await pace();
    account.cancelNonce += 1n;
    const replacement = signedOrder(account, setup, id, prices[1], side, note);
    const request = signModify(order.order_id, account.cancelNonce, replacement, account.key);
    const modifyText = `{"op":"order.modify","request_id":"m${id}","order_id":"${order.order_id}","params":${wireJsonText(ModifyRequestSchema, request)}}`;
    counts.reply('order.modify', await account.link.request(`m${id}`, modifyText));
    await pace();
    const cancelled = await account.link.request(
      `c${id}`,
      cancelFrame(`c${id}`, account, setup, order.order_id),
    );
    if (cancelled !== null || account.link.open) {
      counts.reply('order.cancel', cancelled);
      continue;
    }
    // The socket went away under the cycle (a reconnect): take the order out from the new socket,
    // unless the venue did already (cancel-on-disconnect: 1205), so the book does not grow.
    await reconnectIfClosed(account, setup, counts);
    const again = await account.link.request(`r${id}`, cancelFrame(`r${id}`, account, setup, order.order_id));
    if (again?.['code'] !== 1205) counts.reply('order.cancel', again);
  }
}

async function reconnectIfClosed(account: Account, setup: Setup, counts: Counts): Promise<void> {
  if (account.link.open) return;
  account.link = await Link.open(setup.port, setup.certPem, account.token, counts);
  counts.progress.reconnects += 1;
}

/** A reader that stops reading while it sends a burst, then catches up and cancels what it placed. */
async function readSlowly(account: Account, setup: Setup, counts: Counts, until: () => boolean) {
  while (!until()) {
    const link = account.link;
    link.socket.pause();
    const orders = Array.from({ length: SLOW_BURST }, () =>
      signedOrder(account, setup, nextSerial(), BID_PRICES[1], 'bid'),
    );
    const placed = orders.map((order) =>
      link.request(`p${order.order_id}`, placeFrame(`p${order.order_id}`, order)),
    );
    const pings = Array.from({ length: SLOW_BURST }, () => link.ask({ op: 'ping' }));
    await sleep(SLOW_PAUSE_MS);
    link.socket.resume();
    const replies = await Promise.all(placed);
    for (const reply of await Promise.all(pings)) counts.pong(reply);
    const booked = orders.filter((_, i) => counts.reply('order.place', replies[i] ?? null));
    await Promise.all(
      booked.map(async (order) => {
        const requestId = `c${order.order_id}`;
        counts.reply(
          'order.cancel',
          await link.request(requestId, cancelFrame(requestId, account, setup, order.order_id)),
        );
      }),
    );
    counts.progress.slowBursts += 1;
    await reconnectIfClosed(account, setup, counts);
    await sleep(1_000);
  }
}

async function generate(setup: Setup, counts: Counts, stopping: () => boolean): Promise<void> {
  const accounts: Account[] = [];
  for (const [index, token] of setup.tokens.entries()) {
    accounts.push({
      index,
      token,
      key: keyOf(index),
      nonce: 0n,
      cancelNonce: 0n,
      link: await Link.open(setup.port, setup.certPem, token, counts),
      notes: setup.notes?.[index] ?? null,
      nextNote: 0,
    });
  }
  process.send?.({ type: 'ready', progress: counts.progress } satisfies FromChild);
  const traders = accounts.slice(0, TRADERS);
  const slow = accounts.slice(TRADERS);
  // Reconnects: the next trader in turn leaves, alternately cleanly and by a dropped connection; its
  // loop notices the closed socket after its cycle and comes back on a new one.
  let turn = 0;
  const reconnects = setInterval(() => {
    const account = traders[turn % traders.length];
    turn += 1;
    if (account?.link.open) void account.link.leave(turn % 2 === 0);
  }, setup.reconnectMs);
  const intervalMs = (1000 * traders.length) / RATE;
  await Promise.all([
    ...traders.map((a) => trade(a, setup, counts, intervalMs, stopping)),
    ...slow.map((a) => readSlowly(a, setup, counts, stopping)),
  ]);
  clearInterval(reconnects);
  for (const account of accounts) await account.link.leave(true);
}

function serveLoad(): void {
  const counts = new Counts();
  let stopping = false;
  let finished: Promise<void> | null = null;
  process.on('message', (message: ToChild) => {
    if (message.type === 'setup') {
      finished = generate(message.setup, counts, () => stopping);
      finished.catch((error: unknown) => {
        process.stderr.write(
          `soak: load generator failed: ${error instanceof Error ? error.stack : error}\n`,
        );
        process.exit(1);
      });
      return;
    }
    stopping = true;
    void finished?.then(() => {
      process.send?.({ type: 'done', progress: counts.progress } satisfies FromChild, () => process.exit(0));
    });
  });
  // Progress every 250 ms: its `acked` is what the venue's windows are measured on.
  setInterval(() => process.send?.({ type: 'progress', progress: counts.progress } satisfies FromChild), 250);
  process.on('disconnect', () => process.exit(0));
}

// ---- Small helpers ----

/**
 * The histogram records the whole interval between its timer's runs, resolution included (an idle
 * loop reads ~10.1 ms at 10 ms): the delay is what lies beyond the resolution.
 */
function lateMs(recordedNs: number): number {
  return Math.max(0, recordedNs / 1e6 - LOOP_RESOLUTION_MS);
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

function sleepUntil(startedMs: number, seconds: number): Promise<void> {
  return sleep(startedMs + seconds * 1000 - performance.now());
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function fmt(value: number): string {
  return String(Math.round(value));
}

if (process.env[LOAD_GENERATOR_ENV] === '1' && process.send !== undefined) serveLoad();
