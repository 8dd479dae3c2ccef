/**
 * Session stream intake over WebSocket on TLS 1.3, loopback (issue: "`npm run bench -- stream`
 * reports signed orders per second placed over one and over many sockets, and p50/p99 ack latency
 * at a fixed offered load, next to a bare `ws` echo server on the same machine, as a ratio").
 *
 * The venue: createVenueServer with a wall-clock slot clock (its rate limiter refills in real time;
 * a manual clock would never refill it), the test core configuration, one market and the default
 * signature checks on worker threads. SOCKETS trader accounts, one socket each (a socket belongs to
 * the one account it logged in as), each logged in and subscribed to `orders`, so the venue also
 * sends an order event per accepted and per cancelled order, as it would to a real client.
 *
 * Baseline: a bare `ws` server on node:https with the same TLS settings (TLS 1.3, this boot's
 * self-signed certificate, no compression, the same 64 KiB frame cap) that JSON.parses each frame
 * and answers a small ack echoing op and request_id. It is sent the very same frame texts (same
 * sizes) over the same number of sockets, with the same windows and the same pacing.
 *
 * Load generation: `ws` clients in a child process (this file, forked), so they do not share the
 * servers' event loop. Every place and cancel frame is signed in the child (real Ed25519 keys,
 * unique order ids and notes, increasing nonces per key) before the timed part of each phase.
 *
 * Phases, each run on the venue and then on the baseline with the same frames:
 *  - burst, one socket: BURST_ORDERS pipelined places over a single socket with at most WINDOW
 *    awaiting their acks, timed from the first send to the last ack; after the timing the orders
 *    are cancelled (untimed). Several bursts per run; their places / their summed time is the rate.
 *  - burst, many sockets: the same on all SOCKETS sockets at once (each its own account).
 *  - paced: PACED_RATE places per second in total, round-robin over the sockets on a fixed
 *    schedule; each place's cancel is sent when its ack arrives. Latency is send -> reply of the
 *    place frames (the cancels are load, their latency is printed on stderr).
 * Only place frames answered with a result count as orders placed.
 *
 * Why bursts: the per-account trading limit (400 units, 200 units/s, place 2, cancel 1, places may
 * not spend the last 50) allows one account ~100 places/s sustained, and a socket is one account;
 * a sustained rate over one socket would measure the limit, not the stream. So each burst stays
 * within a full bucket (100 of the ~175 places it allows), the generator keeps a model of every
 * account's bucket and waits (untimed) until it has refilled before a burst and before the cancels,
 * and the one-socket bursts rotate over the already open sockets (one socket carries all the load
 * while a burst runs) so that accounts refill while others work. The paced load stays far below
 * the limit (~94 of the 200 units/s per account).
 * Any error reply, seq gap or unexpected close is counted; the `error_replies` figure must be 0.
 * STREAM_BENCH_SOCKETS, STREAM_BENCH_WINDOW and STREAM_BENCH_RATE override the load shape.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  type BootIdentity,
  createBootIdentity,
  createWallSlotClock,
  STREAM_FRAME_HARD_BYTES_MAX,
  STREAM_FRAMES_IN_FLIGHT_MAX,
  TRADING_BUCKET,
  TRADING_COST,
  TRADING_RESERVE_UNITS,
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
import WebSocket, { WebSocketServer } from 'ws';
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
} from './place-cpu.ts';
import { batchedRateMeter, coresAloneBaseline, poolAloneBaseline } from './proved-notes.ts';

/** Sockets of the many-socket and paced phases, one trader account each. */
const SOCKETS = positiveFromEnv('STREAM_BENCH_SOCKETS', 16);
/** Place frames a socket may have awaiting acks in the burst phases. */
const WINDOW = positiveFromEnv('STREAM_BENCH_WINDOW', 64);
/** Offered load of the paced phase, places per second over all sockets. */
const PACED_RATE = positiveFromEnv('STREAM_BENCH_RATE', 500);
/**
 * Places per socket per burst. A full bucket would allow ~175; 100 leaves room to send the cancels
 * right after a burst without waiting for a refill.
 */
const BURST_ORDERS = 100;
const PHASE_TIMEOUT_MS = 120_000;
/**
 * Production path: lanes per socket, each its own trading key and proved note, cycling place ->
 * (ack) cancel -> (ack) the next place on the same note. SOCKETS x LANES notes are proved.
 */
const LANES = positiveFromEnv('STREAM_BENCH_PROVED_LANES', 4);
const STUB_PATH = 'stub_proofs_no_journal';
const PRODUCTION_PATH = 'real_proofs_journal_fsync';
/** The same venue with its default reuse of verified proofs: every place after a note's first is a requote. */
const REQUOTE_PATH = 'requotes_real_proofs_journal_fsync';
const LOAD_GENERATOR_ENV = 'VENUE_STREAM_BENCH_LOAD_GENERATOR';
const BASELINE_NAME = 'bare ws parse+ack';

/**
 * Requotes run the same SOCKETS x LANES lanes one per socket, each socket its own account: a
 * place+cancel cycle costs 3 of an account's 200 trading units a second, so four lanes on one
 * account are capped at about 66 cycles a second by the venue's limit, below what requotes reach
 * (the refusals were counted as error replies). Lanes in flight stay the same.
 */
const REQUOTE_LANES_PER_SOCKET = 1;

/** Sockets (and accounts) a production-path variant spreads its SOCKETS x LANES lanes over. */
function provedSockets(path: string): number {
  return path === REQUOTE_PATH ? (SOCKETS * LANES) / REQUOTE_LANES_PER_SOCKET : SOCKETS;
}

// ---- What parent and load generator exchange ----

type Phase =
  | { kind: 'burst'; sockets: 'one' | 'all'; bursts: number; perBurst: number; window: number }
  | { kind: 'paced'; ratePerSecond: number; seconds: number };

interface Setup {
  venuePort: number;
  baselinePort: number;
  certPem: string;
  sessionId: string;
  /** One account token per socket. */
  tokens: string[];
}

interface PhaseResult {
  /** Place frames answered with a result. */
  placed: number;
  /** Cancel frames answered with a result. */
  cancelled: number;
  /** Timed seconds: the bursts' send-to-last-ack time, or the paced run's length. */
  seconds: number;
  placeP50Us: number;
  placeP99Us: number;
  cancelP50Us: number;
  cancelP99Us: number;
  /** Error frames by op and code, seq gaps, sockets closed under us. */
  errors: Record<string, number>;
  errorSamples: string[];
  /** Channel frames (order events) received. */
  events: number;
  /** CPU the load generator used during the timed parts, in cores. */
  generatorCores: number;
}

/** Wall time of one phase's parts in the load generator, in seconds (progress on stderr). */
interface PhaseTiming {
  sign: number;
  venue: number;
  baseline: number;
}

/** The production path's sockets: one account each, its lanes' key labels and proved notes. */
interface ProvedSetup {
  port: number;
  certPem: string;
  sessionId: string;
  tokens: string[];
  lanes: { label: string; note: ProvedNote }[][];
}

type ToChild =
  | { type: 'setup'; setup: Setup }
  | { type: 'run'; phase: Phase; expirySlot: string }
  | { type: 'setup-proved'; setup: ProvedSetup }
  | { type: 'run-proved'; cyclesPerLane: number; expirySlot: string }
  | { type: 'exit' };
type FromChild =
  | { type: 'ready' }
  | { type: 'result'; venue: PhaseResult; baseline: PhaseResult; timing: PhaseTiming }
  | { type: 'proved-result'; result: PhaseResult; signSeconds: number }
  | { type: 'error'; message: string };
/**
 * Sent by the load generator when a timed part starts on the venue and when it moves on to the
 * baseline (not replies): the servers' process watches its event loop over each part.
 */
type Mark = { type: 'mark'; part: 'venue' | 'baseline' };

// ---- The benchmark (parent process) ----

interface RunFigures {
  oneSocket: number;
  manySockets: number;
  p50: number;
  p99: number;
  /** The servers' event loop over the venue's (or the baseline's) parts of the run's phases. */
  loop: LoopDelay;
}

export async function run(quick: boolean): Promise<Figure[]> {
  if (WINDOW > STREAM_FRAMES_IN_FLIGHT_MAX) {
    throw new Error(`STREAM_BENCH_WINDOW must be at most ${STREAM_FRAMES_IN_FLIGHT_MAX} (frames in flight)`);
  }
  const runs = quick ? 3 : 5;
  const oneSocketBursts = quick ? 8 : 32;
  const manyBursts = quick ? 1 : 4;
  const pacedSeconds = quick ? 1 : 8;
  const placeOnly = TRADING_BUCKET.refillPerSecond / TRADING_COST.place;
  log(
    `stream: ${STUB_PATH}: ${SOCKETS} sockets, one trader account each, logged in and subscribed to orders; ${runs} runs after a warm-up\n` +
      "stream: load generator: `ws` clients in a child process (not in the servers' process); frames signed before timing\n" +
      `stream: burst phases: ${BURST_ORDERS} pipelined places per socket per burst (window ${WINDOW}), cancelled after ` +
      `the timing; one socket: ${oneSocketBursts} bursts per run rotating over the sockets, many: ${manyBursts} ` +
      `burst(s) of ${SOCKETS} x ${BURST_ORDERS}; the trading limit allows ~${placeOnly} places/s per account sustained, ` +
      'so bursts stay within a full bucket and the generator waits (untimed) for refills\n' +
      `stream: paced phase: ${PACED_RATE} places/s over ${SOCKETS} sockets for ${pacedSeconds} s, each cancelled on ` +
      'its ack; latency = place frame sent -> its reply\n' +
      `stream: ${PRODUCTION_PATH}: ${SOCKETS} sockets x ${LANES} lanes, each lane its own trading key and proved note ` +
      `(${SOCKETS * LANES} distinct proofs cycled), place -> cancel -> next place on the same note; Groth16 verifier ` +
      'workers, sealed file journal with fdatasync, reuse of verified proofs off (every place verified); baseline: batched ' +
      'Groth16 verification alone on one thread x the cores\n' +
      `stream: ${REQUOTE_PATH}: the same lanes one per socket (${SOCKETS * LANES} sockets, one account each: the trading limit ` +
      `allows ~${Math.floor(TRADING_BUCKET.refillPerSecond / (TRADING_COST.place + TRADING_COST.cancel))} place+cancel cycles/s per account), ` +
      "with the venue's default reuse of verified proofs (each note's first place verified)\n",
  );

  const identity = await createBootIdentity();
  const clock = createWallSlotClock();
  // Proving takes every core for a while: before anything is timed.
  const laneLabels = Array.from({ length: SOCKETS }, (_, s) =>
    Array.from({ length: LANES }, (_, l) => `stream-bench-proved-${s}-${l}`),
  );
  const laneKeys = laneLabels.flat().map((label) => provedKeyOf(label).publicKey);
  const proved = await proveBidNotes(laneKeys, 1, 'stream');
  const venue = await startBenchVenue(identity, clock);
  const baseline = await startBaseline(identity);
  const generator = startLoadGenerator();
  try {
    log(`stream: creating and logging in ${SOCKETS} accounts (scrypt, ~0.1 s each)...\n`);
    const tokens = await traderTokens(venue.server, SOCKETS, 'stream-bench');
    await generator.setup({
      venuePort: venue.port,
      baselinePort: baseline.port,
      certPem: identity.certPem,
      sessionId: identity.sessionId,
      tokens,
    });
    const errors: Record<string, number> = {};
    const baselineErrors: Record<string, number> = {};
    const phase = async (label: string, p: Phase) => {
      // Well inside the 4,500-slot maximum lifetime (30 min at 400 ms), and far beyond any run.
      const result = await generator.run(p, String(clock.slot() + 4000n));
      addErrors(errors, label, result.venue);
      addErrors(baselineErrors, label, result.baseline);
      return result;
    };
    const oneSocket: Phase = {
      kind: 'burst',
      sockets: 'one',
      bursts: oneSocketBursts,
      perBurst: BURST_ORDERS,
      window: WINDOW,
    };
    const many: Phase = {
      kind: 'burst',
      sockets: 'all',
      bursts: manyBursts,
      perBurst: BURST_ORDERS,
      window: WINDOW,
    };
    const paced: Phase = { kind: 'paced', ratePerSecond: PACED_RATE, seconds: pacedSeconds };

    // Warm-up: JIT on both sides, the signature workers, TLS and socket buffers.
    log('stream: warm-up...\n');
    await phase('warm-up many sockets', { ...many, bursts: 1 });
    await phase('warm-up one socket', { ...oneSocket, bursts: quick ? 2 : 8 });
    await phase('warm-up paced', { ...paced, seconds: quick ? 0.3 : 1 });

    const ours: RunFigures[] = [];
    const theirs: RunFigures[] = [];
    for (let i = 0; i < runs; i++) {
      collectGarbage();
      const all = await phase(`run ${i + 1} many sockets`, many);
      collectGarbage();
      const one = await phase(`run ${i + 1} one socket`, oneSocket);
      collectGarbage();
      const steady = await phase(`run ${i + 1} paced`, paced);
      const loop = worstOf(all.venueLoop, one.venueLoop, steady.venueLoop);
      const baseLoop = worstOf(all.baselineLoop, one.baselineLoop, steady.baselineLoop);
      const mine: RunFigures = {
        oneSocket: rate(one.venue),
        manySockets: rate(all.venue),
        p50: steady.venue.placeP50Us,
        p99: steady.venue.placeP99Us,
        loop,
      };
      const base: RunFigures = {
        oneSocket: rate(one.baseline),
        manySockets: rate(all.baseline),
        p50: steady.baseline.placeP50Us,
        p99: steady.baseline.placeP99Us,
        loop: baseLoop,
      };
      ours.push(mine);
      theirs.push(base);
      log(
        `stream: ${STUB_PATH} run ${i + 1}/${runs}\n` +
          row('', 'venue', BASELINE_NAME) +
          row('1 socket, places/s', fmt(mine.oneSocket), fmt(base.oneSocket)) +
          row(`${SOCKETS} sockets, places/s`, fmt(mine.manySockets), fmt(base.manySockets)) +
          row(
            `paced place p50/p99 us`,
            `${fmt(mine.p50)} / ${fmt(mine.p99)}`,
            `${fmt(base.p50)} / ${fmt(base.p99)}`,
          ) +
          row(
            'paced cancel p50/p99 us',
            `${fmt(steady.venue.cancelP50Us)} / ${fmt(steady.venue.cancelP99Us)}`,
            `${fmt(steady.baseline.cancelP50Us)} / ${fmt(steady.baseline.cancelP99Us)}`,
          ) +
          row(
            'burst 1/many place p99 us',
            `${fmt(one.venue.placeP99Us)} / ${fmt(all.venue.placeP99Us)}`,
            `${fmt(one.baseline.placeP99Us)} / ${fmt(all.baseline.placeP99Us)}`,
          ) +
          row(
            'generator cores 1/many/paced',
            cores(one.venue, all.venue, steady.venue),
            cores(one.baseline, all.baseline, steady.baseline),
          ) +
          row(
            'order events received',
            String(one.venue.events + all.venue.events + steady.venue.events),
            String(one.baseline.events + all.baseline.events + steady.baseline.events),
          ) +
          row(
            'event loop max/p99 ms',
            `${loop.maxMs.toFixed(1)} / ${loop.p99Ms.toFixed(1)}`,
            `${baseLoop.maxMs.toFixed(1)} / ${baseLoop.p99Ms.toFixed(1)}`,
          ),
      );
    }
    const errorTotal = Object.values(errors).reduce((a, b) => a + b, 0);
    const baselineErrorTotal = Object.values(baselineErrors).reduce((a, b) => a + b, 0);
    if (baselineErrorTotal > 0) log(`stream: baseline errors ${JSON.stringify(baselineErrors)}\n`);
    log(`stream: venue errors (warm-up included): ${errorTotal === 0 ? 'none' : JSON.stringify(errors)}\n`);
    const notes = { labels: laneLabels, keys: laneKeys, ...proved };
    const verified = await runProductionPath(
      generator,
      identity,
      clock,
      quick,
      runs,
      notes,
      'every_place_verified',
    );
    const requotes = await runProductionPath(generator, identity, clock, quick, runs, notes, 'requotes');
    const stubMany = summarise(ours.map((r) => r.manySockets)).median;
    return [
      ...figures(ours, theirs, errorTotal),
      ...productionFigures(verified, PRODUCTION_PATH),
      ...productionFigures(requotes, REQUOTE_PATH, {
        name: `${STUB_PATH}, ${SOCKETS} sockets, this run`,
        value: Math.round(stubMany),
      }),
    ];
  } finally {
    await generator.stop();
    await venue.server.close();
    await baseline.close();
  }
}

interface ProductionRun {
  placesPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  loop: LoopDelay;
  cpu: CpuPerPlace;
}

/**
 * Real proofs, the journal on: SOCKETS x LANES lanes keep a place in flight each (its cancel once
 * it is acked), so the verifier's pool is always fed. Its baseline, measured first with the venue
 * idle: what the machine's cores verify alone, batched (issue 21 item 4: intake should reach 0.8).
 */
async function runProductionPath(
  generator: LoadGenerator,
  identity: BootIdentity,
  clock: ReturnType<typeof createWallSlotClock>,
  quick: boolean,
  runs: number,
  proved: { labels: string[][]; keys: string[]; notes: ProvedNote[][]; root: string },
  proofs: ProductionProofs,
): Promise<{
  runs: ProductionRun[];
  coresAlone: Baseline;
  poolAlone: Baseline | null;
  proofCpuUs: Baseline;
}> {
  const PATH = proofs === 'requotes' ? REQUOTE_PATH : PRODUCTION_PATH;
  const targetSeconds = quick ? 1.5 : 8;
  const venue = await startProductionVenue(identity, clock, proved.root, proofs);
  let meter: Awaited<ReturnType<typeof batchedRateMeter>> | null = null;
  try {
    const sockets = provedSockets(PATH);
    const lanesPerSocket = (SOCKETS * LANES) / sockets;
    log(`stream: ${PATH}: logging in ${sockets} accounts...\n`);
    const tokens = await traderTokens(venue.server, sockets, 'stream-bench-proved');
    log(`stream: ${PATH}: baseline, batched verification on one thread...\n`);
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
    await generator.setupProved({
      port: venue.port,
      certPem: identity.certPem,
      sessionId: identity.sessionId,
      tokens,
      lanes: chunks(
        proved.labels.flatMap((labels, s) =>
          labels.map((label, l) => ({ label, note: proved.notes[s * LANES + l]?.[0] ?? fail('no note') })),
        ),
        lanesPerSocket,
      ),
    });
    const expiry = () => String(clock.slot() + 4000n);
    const warm = await generator.runProved(2, expiry());
    let placesPerSecond = Math.max(rate(warm.result), 20);
    log(`stream: ${PATH} warm-up ${fmt(placesPerSecond)} places/s\n`);
    const measured: ProductionRun[] = [];
    for (let i = 0; i < runs; i++) {
      const cyclesPerLane = Math.max(2, Math.ceil((placesPerSecond * targetSeconds) / (SOCKETS * LANES)));
      const aloneNow = (await sampleAlone()) * availableParallelism();
      // With reuse on, the pool alone would answer these very orders from its table: not measured.
      if (proofs === 'every_place_verified') {
        poolAlone.push(await poolAloneRate(venue.verifier, poolOrders, quick ? 128 : 256));
      }
      collectGarbage();
      const placeCpu = countPlaceCpu(venue.threads);
      const { result, loop } = await generator.runProved(cyclesPerLane, expiry());
      const cpu = placeCpu.stop(result.placed, result.generatorCores * result.seconds);
      const errors = Object.values(result.errors).reduce((a, b) => a + b, 0);
      addErrors({}, `${PATH} run ${i + 1}`, result);
      placesPerSecond = Math.max(rate(result), 20);
      measured.push({ placesPerSecond, p50: result.placeP50Us, p99: result.placeP99Us, errors, loop, cpu });
      log(`stream: ${PATH} run ${i + 1}/${runs}: ${describePlaceCpu(cpu, aloneCpuUs.at(-1) ?? 0)}\n`);
      log(
        `stream: ${PATH} run ${i + 1}/${runs} (${cyclesPerLane} cycles per lane): ${result.seconds.toFixed(1)} s, ` +
          `${fmt(placesPerSecond)} places/s (${(placesPerSecond / aloneNow).toFixed(2)} of the cores verifying alone just before, ${fmt(aloneNow)}; the venue's pool alone ${fmt(poolAlone.at(-1))}; reused verdicts ${venue.verifier.reuse().reused}), ` +
          `place ack p50 ${fmt(result.placeP50Us)} / p99 ${fmt(result.placeP99Us)} us, cancel p50 ${fmt(result.cancelP50Us)} us, ` +
          `${errors} errors, loop delay max ${loop.maxMs.toFixed(1)} / p99 ${loop.p99Ms.toFixed(1)} ms\n`,
      );
    }
    return {
      runs: measured,
      coresAlone: coresAloneBaseline(summarise(alone)),
      poolAlone: poolAlone.length === 0 ? null : poolAloneBaseline(poolAlone),
      proofCpuUs: proofCpuBaseline(aloneCpuUs),
    };
  } finally {
    await meter?.close();
    await venue.close();
  }
}

/**
 * One production-path variant's figures. `stubPath`, for requotes: the stub path's many-socket
 * rate of the same run, the wire's ceiling with no proof work at all (and no journal).
 */
function productionFigures(
  production: {
    runs: ProductionRun[];
    coresAlone: Baseline;
    poolAlone: Baseline | null;
    proofCpuUs: Baseline;
  },
  path: string,
  stubPath?: Baseline,
): Figure[] {
  const { runs, coresAlone, poolAlone, proofCpuUs } = production;
  const pick = (key: 'placesPerSecond' | 'p50' | 'p99'): Sampled => summarise(runs.map((r) => r[key]));
  const errors = runs.reduce((sum, r) => sum + r.errors, 0);
  const against = (name: string, baseline: Baseline | null | undefined): Figure[] =>
    baseline === null || baseline === undefined
      ? []
      : [
          figure(
            'stream',
            `place_per_s_${provedSockets(path)}_sockets_${path}_vs_${name}`,
            'orders/s',
            'higher',
            pick('placesPerSecond'),
            baseline,
          ),
        ];
  return [
    // Issue 21 item 4: places accepted per second against the cores' batched verification alone.
    ...against('cores_verifying_alone', coresAlone),
    // The same against the venue's own pool verifying alone: what intake loses, apart from the machine.
    ...against('venue_pool_alone', poolAlone),
    ...against('stub_path', stubPath),
    figure('stream', `place_ack_p50_us_saturated_${path}`, 'us', 'lower', pick('p50'), null),
    figure('stream', `place_ack_p99_us_saturated_${path}`, 'us', 'lower', pick('p99'), null),
    figure(
      'stream',
      `error_replies_${path}`,
      'count',
      'lower',
      { median: errors, spread: 0, runs: runs.length },
      null,
    ),
    ...loopDelayFigures(
      'stream',
      path,
      runs.map((r) => r.loop),
    ),
    ...placeCpuFigures(
      'stream',
      path,
      runs.map((r) => r.cpu),
      proofCpuUs,
    ),
  ];
}

/** The longer max and the higher p99 of several watched parts of one run. */
function worstOf(...delays: LoopDelay[]): LoopDelay {
  return {
    maxMs: Math.max(...delays.map((d) => d.maxMs)),
    p99Ms: Math.max(...delays.map((d) => d.p99Ms)),
  };
}

/** A production lane's trading key (the parent derives it to bind the lane's proved note to it). */
function provedKeyOf(label: string): TradingKey {
  return tradingKeyFromSeed(createHash('sha256').update(`stream-bench-key-${label}`).digest());
}

function figures(ours: RunFigures[], theirs: RunFigures[], errors: number): Figure[] {
  type Key = Exclude<keyof RunFigures, 'loop'>;
  const pick = (list: RunFigures[], key: Key): Sampled => summarise(list.map((m) => m[key]));
  const baselineOf = (key: Key, suffix: string): { name: string; value: number } => ({
    name: `${BASELINE_NAME}${suffix}`,
    value: Math.round(pick(theirs, key).median),
  });
  const path = STUB_PATH;
  return [
    figure(
      'stream',
      `place_per_s_one_socket_${path}`,
      'orders/s',
      'higher',
      pick(ours, 'oneSocket'),
      baselineOf('oneSocket', ', 1 socket'),
    ),
    figure(
      'stream',
      `place_per_s_${SOCKETS}_sockets_${path}`,
      'orders/s',
      'higher',
      pick(ours, 'manySockets'),
      baselineOf('manySockets', `, ${SOCKETS} sockets`),
    ),
    figure(
      'stream',
      `place_ack_p50_us_at_${PACED_RATE}_per_s_${path}`,
      'us',
      'lower',
      pick(ours, 'p50'),
      baselineOf('p50', ' p50'),
    ),
    figure(
      'stream',
      `place_ack_p99_us_at_${PACED_RATE}_per_s_${path}`,
      'us',
      'lower',
      pick(ours, 'p99'),
      baselineOf('p99', ' p99'),
    ),
    figure(
      'stream',
      `error_replies_${path}`,
      'count',
      'lower',
      { median: errors, spread: 0, runs: ours.length },
      null,
    ),
    ...loopDelayFigures(
      'stream',
      path,
      ours.map((m) => m.loop),
      { name: `${BASELINE_NAME} (same process)`, runs: theirs.map((m) => m.loop) },
    ),
  ];
}

function rate(result: PhaseResult): number {
  return result.seconds > 0 ? result.placed / result.seconds : 0;
}

function addErrors(into: Record<string, number>, label: string, result: PhaseResult): void {
  const total = Object.values(result.errors).reduce((a, b) => a + b, 0);
  if (total === 0) return;
  for (const [key, count] of Object.entries(result.errors)) into[key] = (into[key] ?? 0) + count;
  log(
    `stream: ${label}: ${total} errors ${JSON.stringify(result.errors)}; first: ${result.errorSamples.join(' | ')}\n`,
  );
}

function row(label: string, venue: string, base: string): string {
  return `  ${label.padEnd(30)} ${venue.padStart(16)}   ${base.padStart(20)}\n`;
}

function cores(...results: PhaseResult[]): string {
  return results.map((r) => r.generatorCores.toFixed(2)).join('/');
}

/** A bare `ws` server with the venue's TLS and frame settings: parse each frame, send a small ack. */
async function startBaseline(identity: BootIdentity): Promise<{ port: number; close: () => Promise<void> }> {
  const https: HttpsServer = createHttpsServer({ ...identity.tlsCredentials(), minVersion: 'TLSv1.3' });
  const wss = new WebSocketServer({
    server: https,
    perMessageDeflate: false,
    maxPayload: STREAM_FRAME_HARD_BYTES_MAX,
  });
  wss.on('connection', (ws) => {
    let seq = 0;
    ws.on('error', () => ws.terminate());
    ws.on('message', (data: Buffer) => {
      seq += 1;
      let frame: { op?: unknown; request_id?: unknown } = {};
      try {
        frame = JSON.parse(data.toString('utf8')) as typeof frame;
      } catch {
        ws.send(JSON.stringify({ op: 'error', seq, code: 1000, message: 'malformed JSON' }));
        return;
      }
      ws.send(JSON.stringify({ op: frame.op, seq, request_id: frame.request_id, result: { status: 'ok' } }));
    });
  });
  https.listen(0, '127.0.0.1');
  await once(https, 'listening');
  const port = (https.address() as AddressInfo).port;
  return {
    port,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => https.close(() => resolve()));
    },
  };
}

/** Trader accounts, logged in two at a time (the venue refuses more concurrent credential checks). */

interface PhaseOutcome {
  venue: PhaseResult;
  baseline: PhaseResult;
  venueLoop: LoopDelay;
  baselineLoop: LoopDelay;
}

interface LoadGenerator {
  setup(setup: Setup): Promise<void>;
  run(phase: Phase, expirySlot: string): Promise<PhaseOutcome>;
  setupProved(setup: ProvedSetup): Promise<void>;
  runProved(cyclesPerLane: number, expirySlot: string): Promise<{ result: PhaseResult; loop: LoopDelay }>;
  stop(): Promise<void>;
}

function startLoadGenerator(): LoadGenerator {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [LOAD_GENERATOR_ENV]: '1' },
    // stdout is for figures only: the child's output goes to stderr.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = once(child, 'exit');
  let pending: { resolve: (m: FromChild) => void; reject: (e: Error) => void } | null = null;
  // The event loop over the venue's and the baseline's timed parts of the phase running now.
  let watch: { part: Mark['part']; stop(): LoopDelay } | null = null;
  const loops: Partial<Record<Mark['part'], LoopDelay>> = {};
  const endWatch = (): void => {
    if (watch !== null) loops[watch.part] = watch.stop();
    watch = null;
  };
  child.on('message', (message: FromChild | Mark) => {
    if (message.type === 'mark') {
      endWatch();
      watch = { part: message.part, ...watchLoop() };
      return;
    }
    endWatch();
    const waiting = pending;
    pending = null;
    if (message.type === 'error') waiting?.reject(new Error(`load generator: ${message.message}`));
    else waiting?.resolve(message);
  });
  child.on('exit', (code) => {
    pending?.reject(new Error(`load generator exited with ${code}`));
    pending = null;
  });
  const ask = (message: ToChild): Promise<FromChild> =>
    new Promise((resolve, reject) => {
      delete loops.venue;
      delete loops.baseline;
      pending = { resolve, reject };
      child.send(message);
    });
  const none: LoopDelay = { maxMs: 0, p99Ms: 0 };
  // A venue that stops answering must not hang the benchmark: no phase takes near this long.
  const guarded = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const watchdog = setTimeout(() => {
      log(`stream: a ${label} phase took over ${PHASE_TIMEOUT_MS / 1000} s; stopping the load generator\n`);
      child.kill();
    }, PHASE_TIMEOUT_MS);
    try {
      return await work();
    } finally {
      clearTimeout(watchdog);
    }
  };
  return {
    async setup(setup) {
      await ask({ type: 'setup', setup });
    },
    run: (phase, expirySlot) =>
      guarded(phase.kind, async () => {
        const answer = await ask({ type: 'run', phase, expirySlot });
        if (answer.type !== 'result') throw new Error('load generator: no result');
        const { sign, venue, baseline } = answer.timing;
        log(
          `stream: ${phase.kind === 'paced' ? 'paced' : `${phase.sockets === 'one' ? 'one-socket' : 'many-socket'} bursts`}: ` +
            `signing ${sign.toFixed(1)} s, venue ${venue.toFixed(1)} s, baseline ${baseline.toFixed(1)} s (with refill waits)\n`,
        );
        return {
          venue: answer.venue,
          baseline: answer.baseline,
          venueLoop: loops.venue ?? none,
          baselineLoop: loops.baseline ?? none,
        };
      }),
    async setupProved(setup) {
      await ask({ type: 'setup-proved', setup });
    },
    runProved: (cyclesPerLane, expirySlot) =>
      guarded('production path', async () => {
        const answer = await ask({ type: 'run-proved', cyclesPerLane, expirySlot });
        if (answer.type !== 'proved-result') throw new Error('load generator: no result');
        log(`stream: production path: signing ${answer.signSeconds.toFixed(1)} s\n`);
        return { result: answer.result, loop: loops.venue ?? none };
      }),
    async stop() {
      endWatch();
      if (child.exitCode !== null) return;
      if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
      else child.kill();
      await exited;
    },
  };
}

/** `items` cut into consecutive groups of `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}

// ---- The load generator (child process) ----

type Frame = Record<string, unknown>;

/**
 * The generator's copy of an account's trading bucket (the venue's TokenBucket). It is charged when
 * the reply arrives, by which time the venue has charged its own: charging at send would credit the
 * model with refill that a full bucket on the venue wastes while the frame travels (the venue's
 * bucket is capped), and made the model optimistic. Charged late, the model never holds more than
 * the venue once every frame is answered, which is when it is consulted.
 */
class BucketModel {
  #milliUnits: number = TRADING_BUCKET.capacity * 1000;
  #updatedMs = Date.now();

  charge(units: number): void {
    this.#refill();
    this.#milliUnits -= units * 1000;
  }

  /** Milliseconds until the bucket holds `units` (capped at the capacity). */
  msUntil(units: number): number {
    this.#refill();
    const needed = Math.min(units, TRADING_BUCKET.capacity) * 1000;
    return Math.max(0, Math.ceil((needed - this.#milliUnits) / TRADING_BUCKET.refillPerSecond));
  }

  #refill(): void {
    const now = Date.now();
    const gained = Math.max(0, now - this.#updatedMs) * TRADING_BUCKET.refillPerSecond;
    this.#updatedMs = Math.max(now, this.#updatedMs);
    this.#milliUnits = Math.min(TRADING_BUCKET.capacity * 1000, this.#milliUnits + gained);
  }
}

/** What one phase on one target observed. */
class Tally {
  placeUs: number[] = [];
  cancelUs: number[] = [];
  placed = 0;
  cancelled = 0;
  events = 0;
  errors: Record<string, number> = {};
  samples: string[] = [];

  error(key: string, sample: string): void {
    this.errors[key] = (this.errors[key] ?? 0) + 1;
    if (this.samples.length < 3) this.samples.push(`${key}: ${sample.slice(0, 200)}`);
  }
}

type OnReply = (reply: Frame | null, atMs: number) => void;

/** One `ws` client socket: matches replies to requests by request_id and checks seq. */
class Link {
  readonly socket: WebSocket;
  readonly bucket = new BucketModel();
  readonly #pending = new Map<string, OnReply>();
  #expectedSeq = 1;
  tally = new Tally();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: Buffer) => this.#receive(data));
    socket.on('close', (code, reason) => {
      const pending = [...this.#pending.values()];
      this.#pending.clear();
      this.tally.error(`socket closed ${code}`, reason.toString('utf8'));
      for (const onReply of pending) onReply(null, performance.now());
    });
  }

  static connect(port: number, ca: string): Promise<Link> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`wss://127.0.0.1:${port}/v1/stream`, { ca, perMessageDeflate: false });
      const link = new Link(socket);
      socket.once('open', () => resolve(link));
      socket.once('error', reject);
    });
  }

  request(requestId: string, text: string, onReply: OnReply): void {
    if (this.socket.readyState !== WebSocket.OPEN) {
      this.tally.error('send on a closed socket', requestId);
      queueMicrotask(() => onReply(null, performance.now()));
      return;
    }
    this.#pending.set(requestId, onReply);
    this.socket.send(text);
  }

  /** Sends and resolves with the reply (setup frames). */
  ask(requestId: string, frame: Frame): Promise<Frame | null> {
    return new Promise((resolve) =>
      this.request(requestId, JSON.stringify({ ...frame, request_id: requestId }), (reply) => resolve(reply)),
    );
  }

  #receive(data: Buffer): void {
    const at = performance.now();
    // Every number the venue sends here (seq, slots, amounts of test orders) is below 2^53.
    const frame = JSON.parse(data.toString('utf8')) as Frame;
    const seq = frame['seq'];
    if (seq !== this.#expectedSeq) this.tally.error('seq gap', `expected ${this.#expectedSeq}, got ${seq}`);
    this.#expectedSeq = (typeof seq === 'number' ? seq : this.#expectedSeq) + 1;
    if (frame['channel'] !== undefined) {
      this.tally.events += 1;
      return;
    }
    const requestId = frame['request_id'];
    const onReply = typeof requestId === 'string' ? this.#pending.get(requestId) : undefined;
    if (typeof requestId === 'string' && onReply !== undefined) {
      this.#pending.delete(requestId);
      onReply(frame, at);
      return;
    }
    if (frame['op'] === 'error')
      this.tally.error(`error ${frame['code']} (no request)`, String(frame['message']));
  }
}

interface Account {
  token: string;
  key: TradingKey;
  nonce: bigint;
  cancelNonce: bigint;
}

interface Prepared {
  placeId: string;
  place: string;
  cancelId: string;
  cancel: string;
}

interface Generator {
  setup: Setup;
  accounts: Account[];
  venue: Link[];
  baseline: Link[];
}

let serial = 0;
/** Next socket of the one-socket bursts (they take turns, so that each account's bucket refills). */
let rotation = 0;

/**
 * A signed place frame and its signed cancel frame, for the key's next order; with a proved note
 * the place spends it (the production path), otherwise it carries a stub proof.
 */
function prepare(
  account: Pick<Account, 'key' | 'nonce' | 'cancelNonce'>,
  sessionId: string,
  expirySlot: bigint,
  note: ProvedNote | null = null,
): Prepared {
  account.nonce += 1n;
  account.cancelNonce += 1n;
  serial += 1;
  const unsigned = orderBody({
    id: serial,
    nonce: account.nonce,
    note: `stream-bench-${serial}`,
    expiry: expirySlot,
    price: PROVED_ORDER.price,
    amount: PROVED_ORDER.amount,
  });
  const order = signPlaceOrder(
    {
      ...unsigned,
      ...(note === null ? {} : note.fields),
      trading_key: account.key.publicKey,
      session_id: sessionId,
    },
    account.key,
  );
  const cancelBody = {
    order_id: order.order_id,
    trading_key: account.key.publicKey,
    cancel_nonce: account.cancelNonce,
    session_id: sessionId,
  };
  const params = wireJsonText(CancelParamsSchema, {
    trading_key: cancelBody.trading_key,
    cancel_nonce: cancelBody.cancel_nonce,
    session_id: sessionId,
    trading_key_signature: signCancel(cancelBody, account.key),
  });
  const placeId = `p${serial}`;
  const cancelId = `c${serial}`;
  return {
    placeId,
    place: `{"op":"order.place","request_id":"${placeId}","params":${wireJsonText(PlaceOrderSchema, order)}}`,
    cancelId,
    cancel: `{"op":"order.cancel","request_id":"${cancelId}","order_id":"${order.order_id}","params":${params}}`,
  };
}

function replyFailed(tally: Tally, op: string, reply: Frame | null): boolean {
  if (reply === null) return true;
  if (reply['op'] === 'error' || reply['result'] === undefined) {
    tally.error(`${op} error ${reply['code']}`, String(reply['message']));
    return true;
  }
  return false;
}

function sleep(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits (venue only) until every link's account holds `units` in its bucket. */
async function refill(links: readonly Link[], units: number, modelled: boolean): Promise<void> {
  if (!modelled) return;
  // A few milliseconds of margin on top, for rounding.
  await sleep(Math.max(0, ...links.map((l) => l.bucket.msUntil(units))) + 5);
}

/** Sends `frames` over `link` keeping at most `window` unanswered; resolves when all are answered. */
function pump(
  link: Link,
  frames: readonly { id: string; text: string }[],
  window: number,
  units: number,
  modelled: boolean,
  onReply: (reply: Frame | null, latencyUs: number) => void,
): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    let answered = 0;
    const sendMore = (): void => {
      while (next < frames.length && next - answered < window) {
        const frame = frames[next];
        next += 1;
        if (frame === undefined) continue;
        const sentAt = performance.now();
        link.request(frame.id, frame.text, (reply, at) => {
          if (modelled) link.bucket.charge(units);
          answered += 1;
          onReply(reply, (at - sentAt) * 1000);
          if (answered === frames.length) resolve();
          else sendMore();
        });
      }
    };
    if (frames.length === 0) resolve();
    else sendMore();
  });
}

interface BurstPlan {
  /** Per burst: the links' indices and each one's prepared orders. */
  bursts: { link: number; orders: Prepared[] }[][];
}

function planBursts(g: Generator, phase: Extract<Phase, { kind: 'burst' }>, expirySlot: bigint): BurstPlan {
  const bursts: { link: number; orders: Prepared[] }[][] = [];
  for (let b = 0; b < phase.bursts; b++) {
    const links = phase.sockets === 'all' ? g.accounts.map((_, i) => i) : [rotation++ % g.accounts.length];
    bursts.push(
      links.map((link) => {
        const account = g.accounts[link];
        if (account === undefined) throw new Error('no account');
        return {
          link,
          orders: Array.from({ length: phase.perBurst }, () =>
            prepare(account, g.setup.sessionId, expirySlot),
          ),
        };
      }),
    );
  }
  return { bursts };
}

async function runBursts(
  links: readonly Link[],
  plan: BurstPlan,
  window: number,
  modelled: boolean,
): Promise<{ tally: Tally; seconds: number; cpuSeconds: number }> {
  const tally = new Tally();
  for (const link of links) link.tally = tally;
  let seconds = 0;
  let cpuSeconds = 0;
  for (const burst of plan.bursts) {
    const used = burst.map((b) => links[b.link]).filter((l): l is Link => l !== undefined);
    const perBurst = burst[0]?.orders.length ?? 0;
    await refill(used, 2 * perBurst + TRADING_RESERVE_UNITS + 10, modelled);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      burst.map(({ link, orders }) =>
        pump(
          links[link] ?? fail('no link'),
          orders.map((o) => ({ id: o.placeId, text: o.place })),
          window,
          TRADING_COST.place,
          modelled,
          (reply, us) => {
            if (replyFailed(tally, 'order.place', reply)) return;
            tally.placed += 1;
            tally.placeUs.push(us);
          },
        ),
      ),
    );
    seconds += (performance.now() - started) / 1000;
    const spent = process.cpuUsage(cpu);
    cpuSeconds += (spent.user + spent.system) / 1e6;
    // Untimed: take the orders out again (an account may hold 1,000 open orders).
    await refill(used, perBurst + 10, modelled);
    await Promise.all(
      burst.map(({ link, orders }) =>
        pump(
          links[link] ?? fail('no link'),
          orders.map((o) => ({ id: o.cancelId, text: o.cancel })),
          window,
          TRADING_COST.cancel,
          modelled,
          (reply, us) => {
            if (replyFailed(tally, 'order.cancel', reply)) return;
            tally.cancelled += 1;
            tally.cancelUs.push(us);
          },
        ),
      ),
    );
  }
  // Order events of the last cancels may still be on their way; let them arrive and be counted.
  await sleep(20);
  return { tally, seconds, cpuSeconds };
}

async function runPaced(
  links: readonly Link[],
  orders: readonly Prepared[],
  ratePerSecond: number,
  modelled: boolean,
): Promise<{ tally: Tally; seconds: number; cpuSeconds: number }> {
  const tally = new Tally();
  for (const link of links) link.tally = tally;
  // The paced load spends ~94 units/s per account of the 200 refilled: a start above the reserve will do.
  await refill(links, TRADING_RESERVE_UNITS + 50, modelled);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const intervalMs = 1000 / ratePerSecond;
  let outstanding = orders.length * 2;
  await new Promise<void>((resolve) => {
    const answered = (): void => {
      outstanding -= 1;
      if (outstanding === 0) resolve();
    };
    let next = 0;
    const tick = (): void => {
      const now = performance.now();
      while (next < orders.length && started + next * intervalMs <= now) {
        const order = orders[next];
        const link = links[next % links.length];
        next += 1;
        if (order === undefined || link === undefined) continue;
        const sentAt = performance.now();
        link.request(order.placeId, order.place, (reply, at) => {
          if (modelled) link.bucket.charge(TRADING_COST.place);
          answered();
          if (replyFailed(tally, 'order.place', reply)) {
            answered();
            return;
          }
          tally.placed += 1;
          tally.placeUs.push((at - sentAt) * 1000);
          const cancelSentAt = performance.now();
          link.request(order.cancelId, order.cancel, (cancelReply, cancelAt) => {
            if (modelled) link.bucket.charge(TRADING_COST.cancel);
            answered();
            if (replyFailed(tally, 'order.cancel', cancelReply)) return;
            tally.cancelled += 1;
            tally.cancelUs.push((cancelAt - cancelSentAt) * 1000);
          });
        });
      }
      if (next < orders.length)
        setTimeout(tick, Math.max(0, started + next * intervalMs - performance.now()));
    };
    tick();
  });
  const seconds = (performance.now() - started) / 1000;
  const spent = process.cpuUsage(cpu);
  await sleep(20);
  return { tally, seconds, cpuSeconds: (spent.user + spent.system) / 1e6 };
}

function fail(message: string): never {
  throw new Error(message);
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

function resultOf(outcome: { tally: Tally; seconds: number; cpuSeconds: number }): PhaseResult {
  const { tally } = outcome;
  const place = tally.placeUs.sort((a, b) => a - b);
  const cancel = tally.cancelUs.sort((a, b) => a - b);
  return {
    placed: tally.placed,
    cancelled: tally.cancelled,
    seconds: outcome.seconds,
    placeP50Us: percentile(place, 0.5),
    placeP99Us: percentile(place, 0.99),
    cancelP50Us: percentile(cancel, 0.5),
    cancelP99Us: percentile(cancel, 0.99),
    errors: tally.errors,
    errorSamples: tally.samples,
    events: tally.events,
    generatorCores: outcome.seconds > 0 ? outcome.cpuSeconds / outcome.seconds : 0,
  };
}

/** Connects, logs in and subscribes one socket per account on a target; the baseline just acks. */
async function connectAll(port: number, certPem: string, tokens: readonly string[]): Promise<Link[]> {
  const links = await Promise.all(tokens.map(() => Link.connect(port, certPem)));
  await Promise.all(
    links.map(async (link, i) => {
      const token = tokens[i] ?? '';
      const login = await link.ask('login', { op: 'login', token });
      const subscribed = await link.ask('subscribe', { op: 'subscribe', channels: ['orders'] });
      if (replyFailed(link.tally, 'login', login) || replyFailed(link.tally, 'subscribe', subscribed)) {
        throw new Error(`setup failed: ${link.tally.samples.join(' | ')}`);
      }
    }),
  );
  return links;
}

async function runPhase(
  g: Generator,
  phase: Phase,
  expirySlot: bigint,
): Promise<{ venue: PhaseResult; baseline: PhaseResult; timing: PhaseTiming }> {
  // Everything is signed here, before any timing; the baseline gets the very same frame texts.
  const t0 = performance.now();
  let run: (links: readonly Link[], modelled: boolean) => Promise<PhaseResult>;
  if (phase.kind === 'burst') {
    const plan = planBursts(g, phase, expirySlot);
    run = async (links, modelled) => resultOf(await runBursts(links, plan, phase.window, modelled));
  } else {
    const total = Math.round(phase.ratePerSecond * phase.seconds);
    const orders = Array.from({ length: total }, (_, j) => {
      const account = g.accounts[j % g.accounts.length] ?? fail('no account');
      return prepare(account, g.setup.sessionId, expirySlot);
    });
    run = async (links, modelled) => resultOf(await runPaced(links, orders, phase.ratePerSecond, modelled));
  }
  const t1 = performance.now();
  mark('venue');
  const venue = await run(g.venue, true);
  const t2 = performance.now();
  mark('baseline');
  const baseline = await run(g.baseline, false);
  const t3 = performance.now();
  return {
    venue,
    baseline,
    timing: { sign: (t1 - t0) / 1000, venue: (t2 - t1) / 1000, baseline: (t3 - t2) / 1000 },
  };
}

function mark(part: Mark['part']): void {
  process.send?.({ type: 'mark', part } satisfies Mark);
}

interface Lane {
  key: TradingKey;
  nonce: bigint;
  cancelNonce: bigint;
  note: ProvedNote;
}

interface ProvedGenerator {
  setup: ProvedSetup;
  links: Link[];
  /** Per socket, its lanes. */
  lanes: Lane[][];
}

/**
 * The production path's load: every lane signs `cycles` orders on its note ahead of time, then all
 * lanes run at once, each placing, cancelling on the ack and placing its next order on the ack of
 * the cancel (the note is free again). Timed from the first send to the last answer.
 */
async function runProvedLanes(g: ProvedGenerator, cycles: number, expirySlot: bigint): Promise<FromChild> {
  const signStarted = performance.now();
  const plans = g.lanes.flatMap((lanes, socket) =>
    lanes.map((lane) => ({
      link: g.links[socket] ?? fail('no link'),
      orders: Array.from({ length: cycles }, () => prepare(lane, g.setup.sessionId, expirySlot, lane.note)),
    })),
  );
  const signSeconds = (performance.now() - signStarted) / 1000;
  const tally = new Tally();
  for (const link of g.links) link.tally = tally;
  mark('venue');
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(plans.map(({ link, orders }) => runLane(link, orders, tally)));
  const seconds = (performance.now() - started) / 1000;
  const spent = process.cpuUsage(cpu);
  await sleep(20);
  const result = resultOf({ tally, seconds, cpuSeconds: (spent.user + spent.system) / 1e6 });
  return { type: 'proved-result', result, signSeconds };
}

/** One lane: place, cancel once it is acked, the next place once the cancel is; until all are done. */
function runLane(link: Link, orders: readonly Prepared[], tally: Tally): Promise<void> {
  return new Promise((resolve) => {
    let next = 0;
    const step = (): void => {
      const order = orders[next];
      next += 1;
      if (order === undefined) {
        resolve();
        return;
      }
      const sentAt = performance.now();
      link.request(order.placeId, order.place, (reply, at) => {
        if (replyFailed(tally, 'order.place', reply)) {
          step();
          return;
        }
        tally.placed += 1;
        tally.placeUs.push((at - sentAt) * 1000);
        const cancelSentAt = performance.now();
        link.request(order.cancelId, order.cancel, (cancelReply, cancelAt) => {
          if (!replyFailed(tally, 'order.cancel', cancelReply)) {
            tally.cancelled += 1;
            tally.cancelUs.push((cancelAt - cancelSentAt) * 1000);
          }
          step();
        });
      });
    };
    step();
  });
}

function serveJobs(): void {
  let generator: Generator | null = null;
  let proved: ProvedGenerator | null = null;
  const answer = (work: () => Promise<FromChild>): void => {
    work().then(
      (message) => process.send?.(message),
      (error: unknown) =>
        process.send?.({
          type: 'error',
          message: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies FromChild),
    );
  };
  process.on('message', (message: ToChild) => {
    if (message.type === 'exit') {
      for (const link of [...(generator?.venue ?? []), ...(generator?.baseline ?? [])])
        link.socket.terminate();
      process.exit(0);
    }
    if (message.type === 'setup') {
      answer(async () => {
        const { setup } = message;
        const accounts = setup.tokens.map((token, i) => ({
          token,
          key: tradingKeyFromSeed(createHash('sha256').update(`stream-bench-key-${i}-${token}`).digest()),
          nonce: 0n,
          cancelNonce: 0n,
        }));
        const base = { setup, accounts };
        const venue = await connectAll(setup.venuePort, setup.certPem, setup.tokens);
        const baseline = await connectAll(setup.baselinePort, setup.certPem, setup.tokens);
        generator = { ...base, venue, baseline };
        return { type: 'ready' };
      });
      return;
    }
    if (message.type === 'setup-proved') {
      answer(async () => {
        const { setup } = message;
        const links = await connectAll(setup.port, setup.certPem, setup.tokens);
        const lanes = setup.lanes.map((mine) =>
          mine.map(({ label, note }) => ({ key: provedKeyOf(label), nonce: 0n, cancelNonce: 0n, note })),
        );
        proved = { setup, links, lanes };
        return { type: 'ready' };
      });
      return;
    }
    if (message.type === 'run-proved') {
      answer(async () => {
        if (proved === null) throw new Error('run-proved before setup-proved');
        return runProvedLanes(proved, message.cyclesPerLane, BigInt(message.expirySlot));
      });
      return;
    }
    answer(async () => {
      if (generator === null) throw new Error('run before setup');
      const result = await runPhase(generator, message.phase, BigInt(message.expirySlot));
      return { type: 'result', ...result };
    });
  });
  // The parent going away ends the load generator too.
  process.on('disconnect', () => process.exit(0));
}

if (process.env[LOAD_GENERATOR_ENV] === '1' && process.send !== undefined) serveJobs();
