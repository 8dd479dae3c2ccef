/**
 * REST intake over HTTPS on loopback (issue: "`npm run bench -- rest` reports signed place+cancel
 * round trips per second over HTTPS on loopback with a load generator, next to the same framework
 * serving a trivial route, as a ratio").
 *
 * The venue: createVenueServer with a wall-clock slot clock (its rate limiter refills in real time),
 * the test core configuration (sha256 note commitments), one market and the default signature
 * checks. Every connection sends POST /orders then DELETE /orders/{id}, each body pre-signed with
 * real Ed25519 keys (unique order ids and notes, increasing nonces per key). One round trip = both
 * answered 200; any other answer is counted as an error and reported.
 *
 * Baseline: a bare Fastify 5 HTTPS server with the same TLS settings (TLS 1.3, this boot's
 * self-signed certificate) serving a trivial JSON POST route, sent the same place-order body and
 * Authorization header, with the same connections and a comparable duration.
 *
 * Load generation: autocannon in a child process (this file, forked), so it does not share the
 * servers' event loop; on a 2-core machine the two processes get a core each. Bodies are signed in
 * the child before each timed run, outside the timing.
 *
 * The per-account trading limit (400 units burst, 200 units/s, place 2 + cancel 1) would cap one
 * account at ~67 round trips/s, so the load is spread over ACCOUNTS_PER_CONNECTION accounts per
 * connection, rotating per round trip; the output states the account count and that ceiling.
 *
 * Figures: venue requests/s (places + cancels answered 200) against the trivial route's requests/s
 * (the ratio); round trips/s; p50/p99 per-request latency under this closed-loop load (each
 * connection sends its next request when the answer arrives), beside the trivial route's; and the
 * count of non-200 answers. Each run is a fixed number of requests per connection, timed from the
 * start to the last response (autocannon itself only notices the end on its next 1 s tick).
 * REST_BENCH_CONNECTIONS and REST_BENCH_ACCOUNTS_PER_CONNECTION override the load shape.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  type BootIdentity,
  createBootIdentity,
  createWallSlotClock,
  TRADING_BUCKET,
  TRADING_COST,
} from '@venue/adapters';
import {
  CancelParamsSchema,
  PlaceOrderSchema,
  signCancel,
  signPlaceOrder,
  type TradingKey,
  tradingKeyFromSeed,
  wireJsonText,
} from '@venue/protocol';
import { orderBody } from '@venue/testing';
import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';
import {
  claimsOfNotes,
  collectGarbage,
  fmt,
  log,
  ordersOfNotes,
  PROVED_ORDER,
  type ProductionProofs,
  type ProvedNote,
  poolAloneRate,
  positiveFromEnv,
  proveBidNotes,
  startBenchVenue,
  startProductionVenue,
  traderTokens,
} from './bench-venue.ts';
import { type Baseline, type Figure, figure, type Sampled, summarise } from './harness.ts';
import { type LoopDelay, loopDelayFigures, watchLoop } from './loop-delay.ts';
import {
  type CpuPerPlace,
  countPlaceCpu,
  describePlaceCpu,
  placeCpuFigures,
  proofCpuBaseline,
  type VenueThreads,
} from './place-cpu.ts';
import { batchedRateMeter, coresAloneBaseline, poolAloneBaseline } from './proved-notes.ts';

/** Concurrent connections of both load runs; REST_BENCH_CONNECTIONS overrides it for exploring. */
const CONNECTIONS = positiveFromEnv('REST_BENCH_CONNECTIONS', 16);
const ACCOUNTS_PER_CONNECTION = positiveFromEnv('REST_BENCH_ACCOUNTS_PER_CONNECTION', 3);
/**
 * Connections of the production path, one account and one proved note each: with real proofs a
 * place waits for a batch verification, so more requests must be in flight to keep the verifier's
 * workers fed; each connection's note is free again once its cancel is answered.
 */
const PROVED_CONNECTIONS = positiveFromEnv('REST_BENCH_PROVED_CONNECTIONS', 64);
const STUB_PATH = 'stub_proofs_no_journal';
const PRODUCTION_PATH = 'real_proofs_journal_fsync';
/** The same venue with its default reuse of verified proofs: every place after a note's first is a requote. */
const REQUOTE_PATH = 'requotes_real_proofs_journal_fsync';
const LOAD_GENERATOR_ENV = 'VENUE_REST_BENCH_LOAD_GENERATOR';
const BASELINE_NAME = 'fastify trivial JSON POST';

// ---- What parent and load generator exchange ----

interface VenueJob {
  kind: 'venue';
  port: number;
  pairsPerConnection: number;
  sessionId: string;
  expirySlot: string;
  /** Bearer tokens of the accounts each connection rotates over. */
  tokens: string[][];
  /** Per account (same shape as tokens): the label its trading key is derived from. */
  keyLabels: string[][];
  /** Production path: per account (same shape), the proved note every one of its places spends. */
  notes: ProvedNote[][] | null;
}

interface BaselineJob {
  kind: 'baseline';
  port: number;
  requestsPerConnection: number;
  sessionId: string;
  token: string;
}

type Job = VenueJob | BaselineJob;

interface LoadResult {
  seconds: number;
  /** Responses with status 200. */
  ok: number;
  /** Place and cancel both answered 200. */
  pairs: number;
  /** Every answer that was not a 200, by status, plus connection errors and timeouts. */
  failures: Record<string, number>;
  /** The first few failure bodies, to say what went wrong. */
  failureSamples: string[];
  p50Us: number;
  p99Us: number;
  /** CPU the load generator used during the run, in cores (1 = one core busy all the time). */
  generatorCores: number;
}

type ToChild = { type: 'run'; job: Job } | { type: 'exit' };
type FromChild = { type: 'result'; result: LoadResult } | { type: 'error'; message: string };

// ---- The benchmark (parent process) ----

interface Measured {
  requestsPerSecond: number;
  pairsPerSecond: number;
  p50Us: number;
  p99Us: number;
  errors: number;
  /** CPU of the servers' process (all its threads) and of the load generator, in cores. */
  serverCores: number;
  generatorCores: number;
  /** The servers' event loop over the run. */
  loop: LoopDelay;
  /** Production path: CPU per place+cancel round trip by part of the machine, µs. */
  cpuPerPlaceUs: CpuPerPlace | null;
}

export async function run(quick: boolean): Promise<Figure[]> {
  const runs = quick ? 3 : 5;
  const targetSeconds = quick ? 1.5 : 8;
  const accounts = CONNECTIONS * ACCOUNTS_PER_CONNECTION;
  const perAccountPairs = TRADING_BUCKET.refillPerSecond / (TRADING_COST.place + TRADING_COST.cancel);
  log(
    `rest: ${STUB_PATH}: ${CONNECTIONS} connections, ${accounts} trader accounts (${ACCOUNTS_PER_CONNECTION} per connection, ` +
      `rotating per round trip; rate-limit ceiling ~${Math.round(accounts * perAccountPairs)} round trips/s), ` +
      `${runs} runs of ~${targetSeconds} s per side after a warm-up\n` +
      `rest: ${PRODUCTION_PATH}: ${PROVED_CONNECTIONS} connections, one account and one proved note each ` +
      `(${PROVED_CONNECTIONS} distinct proofs cycled), Groth16 verifier workers, sealed file journal with fdatasync, ` +
      'reuse of verified proofs off (every place verified); ' +
      'baseline: batched Groth16 verification alone on one thread x the cores, measured in this run\n' +
      `rest: ${REQUOTE_PATH}: the same, with the venue's default reuse of verified proofs (each note's first place verified)\n` +
      "rest: load generator: autocannon in a child process (not in the servers' process), closed loop: " +
      'one request at a time per connection; latency is per request under that load\n',
  );

  const identity = await createBootIdentity();
  const clock = createWallSlotClock();
  // Proving takes every core for a while: before anything is timed.
  const provedLabels = Array.from({ length: PROVED_CONNECTIONS }, (_, i) => `rest-bench-proved-${i}`);
  const provedKeys = provedLabels.map((label) => keyStateOf(label).key.publicKey);
  const proved = await proveBidNotes(provedKeys, 1, 'rest');
  const generator = startLoadGenerator();
  try {
    const stub = await runStubPath(generator, identity, clock, quick, runs, targetSeconds);
    const notes = { labels: provedLabels, keys: provedKeys, ...proved };
    const production = (proofs: ProductionProofs) =>
      runProductionPath(generator, identity, clock, quick, runs, targetSeconds, notes, proofs);
    const verified = await production('every_place_verified');
    const requotes = await production('requotes');
    const cpuOf = (ours: Measured[]) =>
      ours.flatMap((m) => (m.cpuPerPlaceUs === null ? [] : [m.cpuPerPlaceUs]));
    return [
      ...stubFigures(stub.ours, stub.theirs),
      ...productionFigures(verified.ours, verified.coresAlone, verified.poolAlone, stub.theirs),
      ...placeCpuFigures('rest', PRODUCTION_PATH, cpuOf(verified.ours), verified.proofCpuUs),
      ...requoteFigures(requotes.ours, requotes.coresAlone, stub.ours),
      ...placeCpuFigures('rest', REQUOTE_PATH, cpuOf(requotes.ours), requotes.proofCpuUs),
    ];
  } finally {
    generator.stop();
  }
}

/** Stub proofs, no journal: the venue's wire and signature path against a trivial Fastify route. */
async function runStubPath(
  generator: LoadGenerator,
  identity: BootIdentity,
  clock: ReturnType<typeof createWallSlotClock>,
  quick: boolean,
  runs: number,
  targetSeconds: number,
): Promise<{ ours: Measured[]; theirs: Measured[] }> {
  const accounts = CONNECTIONS * ACCOUNTS_PER_CONNECTION;
  const venue = await startBenchVenue(identity, clock);
  const baseline = await startBaseline(identity);
  try {
    log(`rest: creating and logging in ${accounts} accounts (scrypt, ~0.1 s each)...\n`);
    const tokens = await traderTokens(venue.server, accounts, 'bench');
    const perConnection = Array.from({ length: CONNECTIONS }, (_, c) =>
      tokens.slice(c * ACCOUNTS_PER_CONNECTION, (c + 1) * ACCOUNTS_PER_CONNECTION),
    );
    const venueJob = (pairsPerConnection: number): VenueJob => ({
      kind: 'venue',
      port: venue.port,
      pairsPerConnection,
      sessionId: identity.sessionId,
      // Well inside the 4,500-slot maximum lifetime, and far beyond any run.
      expirySlot: String(clock.slot() + 4000n),
      tokens: perConnection,
      keyLabels: perConnection,
      notes: null,
    });
    const baselineJob = (requestsPerConnection: number): BaselineJob => ({
      kind: 'baseline',
      port: baseline.port,
      requestsPerConnection,
      sessionId: identity.sessionId,
      token: tokens[0] ?? '',
    });

    // Warm-up: JIT, TLS session setup, and a rate estimate to size the timed runs.
    const warmVenue = await generator.run(venueJob(quick ? 25 : 60));
    const warmBaseline = await generator.run(baselineJob(quick ? 100 : 300));
    // Each timed run is sized from the rate last measured, so that it lasts about targetSeconds.
    let venueRate = Math.max(warmVenue.ok / warmVenue.seconds, 100);
    let baselineRate = Math.max(warmBaseline.ok / warmBaseline.seconds, 100);
    log(`rest: warm-up ${Math.round(venueRate)} venue req/s, ${Math.round(baselineRate)} trivial req/s\n`);
    reportFailures('warm-up venue', warmVenue);

    const ours: Measured[] = [];
    const theirs: Measured[] = [];
    for (let i = 0; i < runs; i++) {
      const pairsPerConnection = Math.ceil((venueRate * targetSeconds) / (2 * CONNECTIONS));
      const requestsPerConnection = Math.ceil((baselineRate * targetSeconds) / CONNECTIONS);
      collectGarbage();
      const v = await generator.measure(venueJob(pairsPerConnection));
      collectGarbage();
      const b = await generator.measure(baselineJob(requestsPerConnection));
      ours.push(v.measured);
      theirs.push(b.measured);
      venueRate = Math.max(v.measured.requestsPerSecond, 100);
      baselineRate = Math.max(b.measured.requestsPerSecond, 100);
      reportFailures(`run ${i + 1} venue`, v.result);
      reportFailures(`run ${i + 1} baseline`, b.result);
      log(
        `rest: ${STUB_PATH} run ${i + 1}/${runs} (${pairsPerConnection} round trips, ${requestsPerConnection} trivial requests ` +
          `per connection): venue ${describe(v.measured, v.result.seconds, true)} | ` +
          `trivial ${describe(b.measured, b.result.seconds, false)}\n`,
      );
    }
    return { ours, theirs };
  } finally {
    await venue.server.close();
    await baseline.app.close();
  }
}

/**
 * Real proofs, the journal on: each connection places with its account's proved note and cancels,
 * so every place is a Groth16 verification on the venue's pool and every command a sealed,
 * fdatasynced journal record. Its baseline, measured first with the venue idle: what the machine's
 * cores verify alone, batched (issue 21 item 4: intake should reach 0.8 of it).
 */
async function runProductionPath(
  generator: LoadGenerator,
  identity: BootIdentity,
  clock: ReturnType<typeof createWallSlotClock>,
  quick: boolean,
  runs: number,
  targetSeconds: number,
  proved: { labels: string[]; keys: string[]; notes: ProvedNote[][]; root: string },
  proofs: ProductionProofs,
): Promise<{ ours: Measured[]; coresAlone: Baseline; poolAlone: Baseline; proofCpuUs: Baseline }> {
  const PATH = proofs === 'requotes' ? REQUOTE_PATH : PRODUCTION_PATH;
  const venue = await startProductionVenue(identity, clock, proved.root, proofs);
  let meter: Awaited<ReturnType<typeof batchedRateMeter>> | null = null;
  try {
    log(`rest: ${PATH}: logging in ${PROVED_CONNECTIONS} accounts...\n`);
    const tokens = await traderTokens(venue.server, PROVED_CONNECTIONS, 'bench-proved');
    log(`rest: ${PATH}: baseline, batched verification on one thread...\n`);
    const opened = await batchedRateMeter(claimsOfNotes(proved.notes, proved.keys));
    meter = opened;
    const alone: number[] = [];
    const aloneCpuUs: number[] = [];
    const poolAlone: number[] = [];
    const poolOrders = ordersOfNotes(proved.notes, proved.keys);
    const sampleAlone = async (): Promise<number> => {
      alone.push(await opened.sample(quick ? 128 : 256));
      aloneCpuUs.push(opened.cpuUsPerProof());
      return alone.at(-1) ?? 0;
    };
    const venueJob = (pairsPerConnection: number): VenueJob => ({
      kind: 'venue',
      port: venue.port,
      pairsPerConnection,
      sessionId: identity.sessionId,
      expirySlot: String(clock.slot() + 4000n),
      tokens: tokens.map((t) => [t]),
      keyLabels: proved.labels.map((l) => [l]),
      notes: proved.notes,
    });
    const warm = await generator.run(venueJob(quick ? 2 : 4));
    reportFailures(`${PATH} warm-up`, warm);
    let rate = Math.max(warm.ok / warm.seconds, 20);
    log(`rest: ${PATH} warm-up ${Math.round(rate)} req/s\n`);
    const ours: Measured[] = [];
    for (let i = 0; i < runs; i++) {
      const pairsPerConnection = Math.max(2, Math.ceil((rate * targetSeconds) / (2 * PROVED_CONNECTIONS)));
      const aloneNow = (await sampleAlone()) * availableParallelism();
      // With reuse on, the pool alone would answer these very orders from its table: not measured.
      if (proofs === 'every_place_verified') {
        poolAlone.push(await poolAloneRate(venue.verifier, poolOrders, quick ? 128 : 256));
      }
      collectGarbage();
      const v = await generator.measure(venueJob(pairsPerConnection), venue.threads);
      ours.push(v.measured);
      rate = Math.max(v.measured.requestsPerSecond, 20);
      reportFailures(`${PATH} run ${i + 1}`, v.result);
      if (v.measured.cpuPerPlaceUs !== null) {
        const split = describePlaceCpu(v.measured.cpuPerPlaceUs, aloneCpuUs.at(-1) ?? 0);
        log(`rest: ${PATH} run ${i + 1}/${runs}: ${split}\n`);
      }
      log(
        `rest: ${PATH} run ${i + 1}/${runs} (${pairsPerConnection} round trips per connection): ` +
          `${describe(v.measured, v.result.seconds, true)}; the venue's pool alone ${fmt(poolAlone.at(-1))}, ` +
          `reused verdicts ${venue.verifier.reuse().reused}, ` +
          `cores verifying alone just before ${fmt(aloneNow)} ` +
          `proofs/s, places/s against it ${(v.measured.pairsPerSecond / aloneNow).toFixed(2)}\n`,
      );
    }
    return {
      ours,
      coresAlone: coresAloneBaseline(summarise(alone)),
      poolAlone: poolAloneBaseline(poolAlone),
      proofCpuUs: proofCpuBaseline(aloneCpuUs),
    };
  } finally {
    await meter?.close();
    await venue.close();
  }
}

const pick = (list: Measured[], key: Exclude<keyof Measured, 'loop' | 'cpuPerPlaceUs'>): Sampled =>
  summarise(list.map((m) => m[key]));

function stubFigures(ours: Measured[], theirs: Measured[]): Figure[] {
  const baselineOf = (key: Exclude<keyof Measured, 'loop' | 'cpuPerPlaceUs'>, suffix = ''): Baseline => ({
    name: `${BASELINE_NAME}${suffix}`,
    value: Math.round(pick(theirs, key).median),
  });
  const path = STUB_PATH;
  return [
    figure(
      'rest',
      `place_cancel_requests_per_s_${path}`,
      'req/s',
      'higher',
      pick(ours, 'requestsPerSecond'),
      baselineOf('requestsPerSecond'),
    ),
    figure(
      'rest',
      `place_cancel_round_trips_per_s_${path}`,
      'pairs/s',
      'higher',
      pick(ours, 'pairsPerSecond'),
      null,
    ),
    ...latencyAndErrorFigures(path, ours, {
      p50: baselineOf('p50Us', ' p50'),
      p99: baselineOf('p99Us', ' p99'),
      loop: { name: `${BASELINE_NAME} (same process)`, runs: theirs.map((m) => m.loop) },
    }),
  ];
}

function productionFigures(
  ours: Measured[],
  coresAlone: Baseline,
  poolAlone: Baseline,
  trivial: Measured[],
): Figure[] {
  const path = PRODUCTION_PATH;
  return [
    // Issue 21 item 4: places accepted per second against the cores' batched verification alone.
    placeRate(path, 'cores_verifying_alone', ours, coresAlone),
    // The same against the venue's own pool verifying alone: what intake loses, apart from the machine.
    placeRate(path, 'venue_pool_alone', ours, poolAlone),
    figure(
      'rest',
      `place_cancel_requests_per_s_${path}`,
      'req/s',
      'higher',
      pick(ours, 'requestsPerSecond'),
      { name: BASELINE_NAME, value: Math.round(pick(trivial, 'requestsPerSecond').median) },
    ),
    ...latencyAndErrorFigures(path, ours, {}),
  ];
}

/**
 * Requotes: places against notes the venue has verified before. Beside the cores verifying alone
 * (the ceiling when every place costs a proof) and the stub path of the same run (the ceiling of
 * the wire, signatures and journal with no proof work at all; it has no journal, so it is the
 * higher of the two).
 */
function requoteFigures(ours: Measured[], coresAlone: Baseline, stub: Measured[]): Figure[] {
  const path = REQUOTE_PATH;
  return [
    placeRate(path, 'cores_verifying_alone', ours, coresAlone),
    placeRate(path, 'stub_path', ours, {
      name: `the ${STUB_PATH} path of this run`,
      value: Math.round(pick(stub, 'pairsPerSecond').median),
    }),
    ...latencyAndErrorFigures(path, ours, {}),
  ];
}

/** Places accepted per second on `path`, against `baseline` (named `against` in the figure). */
function placeRate(path: string, against: string, ours: Measured[], baseline: Baseline): Figure {
  return figure(
    'rest',
    `place_per_s_${path}_vs_${against}`,
    'orders/s',
    'higher',
    pick(ours, 'pairsPerSecond'),
    baseline,
  );
}

/** Per-request latency, non-200 answers and the event loop's delay of one path, each with its baseline if any. */
function latencyAndErrorFigures(
  path: string,
  ours: Measured[],
  baselines: { p50?: Baseline; p99?: Baseline; loop?: { name: string; runs: Measured['loop'][] } },
): Figure[] {
  const errors = ours.reduce((sum, m) => sum + m.errors, 0);
  return [
    figure('rest', `request_p50_us_${path}`, 'us', 'lower', pick(ours, 'p50Us'), baselines.p50 ?? null),
    figure('rest', `request_p99_us_${path}`, 'us', 'lower', pick(ours, 'p99Us'), baselines.p99 ?? null),
    figure(
      'rest',
      `non_200_answers_${path}`,
      'count',
      'lower',
      { median: errors, spread: 0, runs: ours.length },
      null,
    ),
    ...loopDelayFigures(
      'rest',
      path,
      ours.map((m) => m.loop),
      baselines.loop,
    ),
  ];
}

function measured(result: LoadResult, serverCores: number, loop: LoopDelay): Measured {
  return {
    requestsPerSecond: result.ok / result.seconds,
    pairsPerSecond: result.pairs / result.seconds,
    p50Us: result.p50Us,
    p99Us: result.p99Us,
    errors: Object.values(result.failures).reduce((a, b) => a + b, 0),
    serverCores,
    generatorCores: result.generatorCores,
    loop,
    cpuPerPlaceUs: null,
  };
}

function describe(m: Measured, seconds: number, pairs: boolean): string {
  return (
    `${seconds.toFixed(1)} s, ${fmt(m.requestsPerSecond)} req/s${pairs ? ` (${fmt(m.pairsPerSecond)} round trips/s)` : ''}, ` +
    `p50 ${fmt(m.p50Us)} us, p99 ${fmt(m.p99Us)} us, ${m.errors} errors, ` +
    `CPU server ${m.serverCores.toFixed(2)} / load generator ${m.generatorCores.toFixed(2)} cores, ` +
    `loop delay max ${m.loop.maxMs.toFixed(1)} / p99 ${m.loop.p99Ms.toFixed(1)} ms`
  );
}

function reportFailures(label: string, result: LoadResult): void {
  const total = Object.values(result.failures).reduce((a, b) => a + b, 0);
  if (total === 0) return;
  log(
    `rest: ${label}: ${total} errors ${JSON.stringify(result.failures)}; first: ${result.failureSamples.join(' | ')}\n`,
  );
}

/** The same framework and TLS settings, one trivial JSON POST route. */
async function startBaseline(identity: BootIdentity): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify({ https: { ...identity.tlsCredentials(), minVersion: 'TLSv1.3' }, logger: false });
  app.post('/trivial', async () => ({ status: 'accepted' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('baseline: no port');
  return { app, port: address.port };
}

/** Trader accounts, logged in two at a time (the venue refuses more concurrent credential checks). */

interface LoadGenerator {
  run(job: Job): Promise<LoadResult>;
  /**
   * Runs a job and measures this (the servers') process's CPU while it runs; given the venue's
   * worker threads, also where each round trip's CPU went.
   */
  measure(job: Job, threads?: VenueThreads): Promise<{ result: LoadResult; measured: Measured }>;
  stop(): void;
}

function startLoadGenerator(): LoadGenerator {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [LOAD_GENERATOR_ENV]: '1' },
    // stdout is for figures only: the child's output goes to stderr.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  let pending: { resolve: (r: LoadResult) => void; reject: (e: Error) => void } | null = null;
  child.on('message', (message: FromChild) => {
    const waiting = pending;
    pending = null;
    if (message.type === 'result') waiting?.resolve(message.result);
    else waiting?.reject(new Error(`load generator: ${message.message}`));
  });
  child.on('exit', (code) => {
    pending?.reject(new Error(`load generator exited with ${code}`));
    pending = null;
  });
  const run = (job: Job): Promise<LoadResult> =>
    new Promise((resolve, reject) => {
      pending = { resolve, reject };
      child.send({ type: 'run', job } satisfies ToChild);
    });
  return {
    run,
    async measure(job, threads) {
      const cpuBefore = process.cpuUsage();
      const placeCpu = threads === undefined ? null : countPlaceCpu(threads);
      const watch = watchLoop();
      const result = await run(job);
      const loop = watch.stop();
      const cpu = process.cpuUsage(cpuBefore);
      // This process idles while the child signs before the run, so its CPU is spread over the run.
      const cores = (cpu.user + cpu.system) / 1e6 / result.seconds;
      const split = placeCpu?.stop(result.pairs, result.generatorCores * result.seconds) ?? null;
      return { result, measured: { ...measured(result, cores, loop), cpuPerPlaceUs: split } };
    },
    stop() {
      if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
    },
  };
}

// ---- The load generator (child process) ----

interface KeyState {
  key: TradingKey;
  nonce: bigint;
  cancelNonce: bigint;
}

interface PreparedPair {
  authorization: string;
  place: string;
  cancelPath: string;
  cancel: string;
}

/** Trading keys per account token, with their nonces, kept across runs (nonces only increase). */
const keyStates = new Map<string, KeyState>();
let serial = 0;

/** The trading key derived from `label` (the parent derives it too, to bind proved notes to it). */
function keyStateOf(label: string): KeyState {
  let state = keyStates.get(label);
  if (state === undefined) {
    const seed = createHash('sha256').update(`rest-bench-key-${label}`).digest();
    state = { key: tradingKeyFromSeed(seed), nonce: 0n, cancelNonce: 0n };
    keyStates.set(label, state);
  }
  return state;
}

/**
 * A signed place body and its signed cancel, for the next order of `keyLabel`'s key, sent with
 * `token`. With a proved note, the place spends it (the production path); otherwise a stub proof.
 */
function preparePair(
  token: string,
  keyLabel: string,
  sessionId: string,
  expirySlot: bigint,
  note: ProvedNote | null = null,
): PreparedPair {
  const state = keyStateOf(keyLabel);
  state.nonce += 1n;
  state.cancelNonce += 1n;
  serial += 1;
  const unsigned = orderBody({
    id: serial,
    nonce: state.nonce,
    note: `rest-bench-${serial}`,
    expiry: expirySlot,
    price: PROVED_ORDER.price,
    amount: PROVED_ORDER.amount,
  });
  const order = signPlaceOrder(
    {
      ...unsigned,
      ...(note === null ? {} : note.fields),
      trading_key: state.key.publicKey,
      session_id: sessionId,
    },
    state.key,
  );
  const cancelBody = {
    order_id: order.order_id,
    trading_key: state.key.publicKey,
    cancel_nonce: state.cancelNonce,
    session_id: sessionId,
  };
  return {
    authorization: `Bearer ${token}`,
    place: wireJsonText(PlaceOrderSchema, order),
    cancelPath: `/orders/${order.order_id}`,
    cancel: wireJsonText(CancelParamsSchema, {
      trading_key: cancelBody.trading_key,
      cancel_nonce: cancelBody.cancel_nonce,
      session_id: sessionId,
      trading_key_signature: signCancel(cancelBody, state.key),
    }),
  };
}

async function drive(job: Job): Promise<LoadResult> {
  const latenciesUs: number[] = [];
  const failures: Record<string, number> = {};
  const failureSamples: string[] = [];
  let ok = 0;
  let pairs = 0;
  const tally = (label: string, status: number, body: string): boolean => {
    if (status === 200) {
      ok += 1;
      return true;
    }
    const key = `${label} ${status}`;
    failures[key] = (failures[key] ?? 0) + 1;
    if (failureSamples.length < 3) failureSamples.push(`${key}: ${body.slice(0, 160)}`);
    return false;
  };

  let sequences: autocannon.Request[][];
  let perConnection: number;
  if (job.kind === 'venue') {
    const expiry = BigInt(job.expirySlot);
    const prepared = job.tokens.map((accounts, c) =>
      Array.from({ length: job.pairsPerConnection }, (_, p) =>
        preparePair(
          accounts[p % accounts.length] ?? '',
          job.keyLabels[c]?.[p % accounts.length] ?? '',
          job.sessionId,
          expiry,
          job.notes?.[c]?.[p % accounts.length] ?? null,
        ),
      ),
    );
    perConnection = 2 * job.pairsPerConnection;
    sequences = prepared.map((queue): autocannon.Request[] => {
      let next = 0;
      let placed = false;
      const pair = (): PreparedPair => {
        const current = queue[Math.min(next, queue.length - 1)];
        if (current === undefined) throw new Error('no prepared round trip');
        return current;
      };
      return [
        {
          method: 'POST',
          path: '/orders',
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            headers: {
              ...request.headers,
              'content-type': 'application/json',
              authorization: pair().authorization,
            },
            body: pair().place,
          }),
          onResponse: (status: number, body: string) => {
            placed = tally('place', status, body);
          },
        },
        {
          method: 'DELETE',
          path: '/orders',
          setupRequest: (request: autocannon.Request) => {
            const current = pair();
            next += 1;
            return {
              ...request,
              path: current.cancelPath,
              headers: {
                ...request.headers,
                'content-type': 'application/json',
                authorization: current.authorization,
              },
              body: current.cancel,
            };
          },
          onResponse: (status: number, body: string) => {
            if (tally('cancel', status, body) && placed) pairs += 1;
          },
        },
      ];
    });
  } else {
    // The same body and header sizes as the venue's place requests.
    const sample = preparePair(job.token, `baseline-${job.token}`, job.sessionId, 1_000_000n);
    perConnection = job.requestsPerConnection;
    const request: autocannon.Request = {
      method: 'POST',
      path: '/trivial',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}` },
      body: sample.place,
      onResponse: (status: number, body: string) => {
        tally('trivial', status, body);
      },
    };
    sequences = Array.from({ length: CONNECTIONS }, () => [request]);
  }

  let nextClient = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  // autocannon notices that a fixed amount is done only on its next 1 s tick: time the run up to
  // its last response instead of using its duration.
  let lastResponseAt = started;
  const result = await autocannon({
    url: `https://127.0.0.1:${job.port}`,
    connections: sequences.length,
    amount: sequences.length * perConnection,
    timeout: 10,
    requests: [{ method: 'GET', path: '/' }],
    setupClient: (client) => {
      const sequence = sequences[nextClient] ?? [];
      nextClient += 1;
      client.on('response', (_status: number, _bytes: number, milliseconds: number) => {
        latenciesUs.push(milliseconds * 1000);
        lastResponseAt = performance.now();
      });
      client.setRequests(sequence);
    },
  });
  const seconds = (lastResponseAt - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (result.errors > 0) failures['connection errors'] = result.errors;
  if (result.timeouts > 0) failures['timeouts'] = result.timeouts;
  latenciesUs.sort((a, b) => a - b);
  return {
    seconds,
    ok,
    pairs,
    failures,
    failureSamples,
    p50Us: latenciesUs[Math.floor(latenciesUs.length * 0.5)] ?? 0,
    p99Us: latenciesUs[Math.floor(latenciesUs.length * 0.99)] ?? 0,
    generatorCores: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

function serveJobs(): void {
  process.on('message', (message: ToChild) => {
    if (message.type === 'exit') process.exit(0);
    drive(message.job).then(
      (result) => process.send?.({ type: 'result', result } satisfies FromChild),
      (error: unknown) =>
        process.send?.({
          type: 'error',
          message: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies FromChild),
    );
  });
  // The parent going away ends the load generator too.
  process.on('disconnect', () => process.exit(0));
}

if (process.env[LOAD_GENERATOR_ENV] === '1' && process.send !== undefined) serveJobs();
