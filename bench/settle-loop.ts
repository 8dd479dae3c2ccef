/**
 * `npm run bench -- settle-loop`: does the sequencer keep its thread while a backlog settles?
 *
 * 2,048 legs (1,024 crossing pairs, one auction) are booked on a venue whose settlement pipeline
 * talks JSON-RPC to a chain simulator in its own process, as `venue serve` does (the chain's own
 * work, Merkle appends above all, is another machine's in production and must not count here).
 * Then a slot comes every SLOT_MS until every leg is final, with the event loop watched from the
 * clearing slot on, after untimed clears on a core of its own have warmed the batch code (D122)
 * and, in a settling run, after the same venue, pool and chain have settled a backlog of the same
 * size untimed (D127): the watched backlog meets a venue that has been settling, whose code V8 has
 * already compiled, as a venue that has run a while has.
 * Every leg must settle (a run whose legs fail throws). Legs are proved with the stand-in prover:
 * on the settlement worker in the served path (as the real prover proves on its workers), on the
 * venue's thread in the others.
 *
 * Figures of the stand-in path (`_stand_in_proofs`, no journal):
 * - event_loop_delay_{max,p99}_ms_settling_2048_legs: the served path: the turn budget
 *   (SETTLEMENT_TURN_BUDGET_MS) with the settlement worker (workers/settlement-pool.ts) doing leg
 *   hashing, memo sealing, stand-in proofs, batch signing and the chain's JSON-RPC text; baseline:
 *   the same run with settlement off (the auction and the slots alone). Target: max under 10 ms.
 * - ..._sliced_main_thread: the turn budget with all that work on the venue's thread (the served
 *   path before the worker); same baseline.
 * - ..._unsliced: the pipeline doing a beat's work at once, on its thread (the simulator's
 *   setting); same baseline.
 * - legs_final_per_s_settling_2048_legs[_sliced_main_thread]: legs final per second from the
 *   clearing slot; baseline the unsliced pipeline's rate.
 *
 * The production variant (`_real_proofs_journal_fsync`, D132-D134, D139): the served path with the
 * real VALID_MATCH prover (one worker per core, lowered by MATCH_PROVER_NICE as `venue serve` lowers
 * it), a chain that checks real proofs, and the engine journaled in the sealed file journal with
 * fdatasync, on backlogs of PROVED_LEGS legs (a proof is about a second of a core), each run in a
 * child process whose starting threads are lowered as `venue serve` lowers them:
 * - event_loop_delay_{max,p99}_ms_settling_64_legs_real_proofs_journal_fsync; baseline: the same
 *   run with the prover's workers at the venue's priority;
 * - legs_final_per_s_settling_64_legs_real_proofs_journal_fsync; same baseline.
 * The stand-in variant runs without a journal.
 *
 * The served path as `venue serve` runs it (D138): event_loop_delay_{max,p99}_ms_ and
 * legs_final_per_s_ settling_2048_legs_stand_in_proofs_helper_threads_lowered, each run in a child
 * process (settle-loop-child.ts) whose starting threads (V8's platform threads, libuv's pool) were
 * lowered by HELPER_THREADS_NICE; baseline: the same in a child that leaves them at its priority.
 *
 * The host's floor (D142): after each of those pairs, an event loop with nothing to do is watched in a
 * process of its own for as long as the pair's first run watched the venue (idle-loop-child.ts).
 * The machine alone puts its delays there (a VM paused by its host stops every thread), so the
 * venue's figures of both kinds are also reported against it: ..._against_an_idle_process, whose
 * baseline is that idle loop, and whose ratio is what the venue adds to what the host does anyway.
 *
 * `npm run bench -- settle-loop --census` adds one served-path run, not reported as figures, whose
 * turns over 10 ms are taken apart into work, collections and waiting for a core (late-turns.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  ChainRpcClient,
  HELPER_THREADS_NICE,
  MATCH_PROVER_NICE,
  RemoteSettlementChain,
  SETTLEMENT_TURN_BUDGET_MS,
  SettlementPool,
  type StateDirectory,
} from '@venue/adapters';
import { accountAddress } from '@venue/chain-sim';
import { createMatchProver, type DerivedNote, fieldToHex, spendAuthorityOf } from '@venue/notes';
import { generateTradingKey, type TradingKey } from '@venue/protocol';
import { TEST_CORE_CONFIG } from '@venue/testing';
import { MARKET, PRICE, SettlementWorld, type Wallet } from '../packages/adapters/test/settlement-world.ts';
import { clearSamplesMs } from './core.ts';
import { childJson, type Figure, figure, summarise } from './harness.ts';
import { describeLateTurns, watchLateTurns } from './late-turns.ts';
import { type LoopDelay, loopDelayFigures, watchLoop } from './loop-delay.ts';

const BENCH = 'settle-loop';
const LEGS = 2048;
const FINALITY = 4;
const SLOT_MS = 100;
/** How often the venue reads the chain's view (each read is a beat of the pipeline). */
const POLL_MS = 25;
const SLOTS_MAX = 3_000;
/** The chain process's nice value: the lowest priority (D124). */
const CHAIN_NICE = 19;

type Mode = 'worker' | 'budget' | 'unsliced' | 'off' | 'groth16';

/**
 * The production path's variant (D132): the served path with the real VALID_MATCH prover (one
 * worker per core, `proverNice` steps below this thread) and a chain that checks real proofs. A
 * proof costs about a second of a core, so its backlogs are PROVED_LEGS legs, warm-up included.
 */
export const PROVED_LEGS = 64;

interface MeasureOptions {
  /** Legs of the watched backlog, and of the warm-up before it. */
  readonly legs?: number;
  /** Nice steps below this thread for the real prover's workers (mode 'groth16'). */
  readonly proverNice?: number;
}

/**
 * The production variant journals the engine as `venue serve` does: the sealed file journal, each
 * record written with fdatasync, in a temporary state directory (removed after the run). With a
 * journal the pipeline hears a match only once the records of its auction are durable.
 */
async function journalDirectory(): Promise<StateDirectory> {
  return { directory: await mkdtemp(join(tmpdir(), 'venue-settle-loop-')), sealingKey: randomBytes(32) };
}

interface Run extends LoopDelay {
  readonly slots: number;
  readonly legsPerSecond: number;
}

/** The chain simulator as its own process (packages/chain-sim/src/main.ts), driven by hand. */
async function startChain(
  signer: TradingKey,
  matchProofs: 'stand-in' | 'groth16',
): Promise<{ url: string; child: ChildProcess }> {
  // The chain is another machine in production (see the header): here it shares this machine's
  // cores, so it runs at the lowest priority from its first thread (`nice` execs node in place)
  // and takes only the CPU the venue leaves (D124). The baseline, settlement off, runs beside the same.
  const command =
    process.platform === 'linux' ? ['nice', '-n', String(CHAIN_NICE), process.execPath] : [process.execPath];
  const child = spawn(
    command[0] as string,
    [
      ...command.slice(1),
      '--import',
      'tsx',
      'packages/chain-sim/src/main.ts',
      '--port',
      '0',
      '--manual',
      '--match-proofs',
      matchProofs,
      '--finality-depth',
      String(FINALITY),
      '--shards',
      String(TEST_CORE_CONFIG.treeCount),
      '--signer',
      signer.publicKey,
      '--authority',
      generateTradingKey().publicKey,
      '--measurement',
      'ab'.repeat(32),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith('READY ')) return { url: line.slice('READY '.length).trim(), child };
  }
  throw new Error('the chain process ended before it was ready');
}

async function stopChain(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** A crossing pair booked on both chains: a buyer with a quote note, a seller with a base note. */
interface Pair {
  readonly buyer: Wallet;
  readonly seller: Wallet;
  readonly quote: DerivedNote;
  readonly base: DerivedNote;
}

/**
 * The world (its in-process chain gives the venue its slots and roots) and the chain process kept
 * equal: the same market, oracle, slot and deposits in the same order, hence the same roots. Every
 * note is deposited here, before any settlement appends to the chain process's trees.
 */
async function bookedWorld(rpc: ChainRpcClient, world: SettlementWorld, pairs: number): Promise<Pair[]> {
  const oracle = accountAddress('oracle', MARKET.symbol);
  await rpc.request('updateOracle', { address: oracle, price: PRICE, confidence: 1n });
  await rpc.request('createMarket', {
    market_id: MARKET.marketId,
    symbol: MARKET.symbol,
    base_mint: MARKET.baseMint,
    quote_mint: MARKET.quoteMint,
    tick_size: MARKET.tickSize,
    min_size: MARKET.minSize,
    price_scale: MARKET.priceScale,
    oracle,
  });
  const { slot } = await rpc.request('getSlot');
  await rpc.request('advance', { count: Number(world.chain.slot - slot) });
  const booked: Pair[] = [];
  for (let i = 0; i < pairs; i += 1) {
    const buyer = world.wallet(`buyer-${i}`);
    const seller = world.wallet(`seller-${i}`);
    const deposit = async (wallet: Wallet, asset: 'base' | 'quote', value: bigint) => {
      const note = world.deposit(wallet, asset, value);
      await rpc.request('deposit', {
        tree_id: 0,
        mint: asset === 'base' ? MARKET.baseMint : MARKET.quoteMint,
        value,
        owner_commitment: note.hex.ownerCommitment,
        blinding: fieldToHex(note.blinding),
        spend_authority: spendAuthorityOf(wallet.spendingKey).publicKey,
      });
      return note;
    };
    const quote = await deposit(buyer, 'quote', 15n);
    const base = await deposit(seller, 'base', 10n);
    booked.push({ buyer, seller, quote, base });
  }
  world.advance(1);
  await rpc.request('advance', { count: 1 });
  return booked;
}

/** Places both orders of each pair: they cross in the next slot's auction. */
async function place(world: SettlementWorld, pairs: readonly Pair[]): Promise<void> {
  for (const { buyer, seller, quote, base } of pairs) {
    await world.place(buyer, world.order(buyer, quote, 'bid', 10n));
    await world.place(seller, world.order(seller, base, 'ask', 10n));
  }
}

/**
 * One run: book, then a slot every SLOT_MS until every leg is final (or `slots` slots when off).
 * A settling run first settles a backlog of the same size, untimed, on the same venue (D127). Exported so a
 * profiler (`node --cpu-prof`) can run one mode alone.
 */
export async function measure(
  mode: Mode,
  slots: number,
  census = false,
  /** Called as the watch starts (a profiler's start); what it returns, as the watch ends. */
  observe?: () => () => Promise<void>,
  options: MeasureOptions = {},
): Promise<Run> {
  const legs = options.legs ?? LEGS;
  const state = mode === 'groth16' ? await journalDirectory() : undefined;
  const world = await SettlementWorld.create({
    finalityDepth: FINALITY,
    lockDurationSlots: 6_000n,
    foresee: false,
    ...(state === undefined ? {} : { state }),
  });
  const { url, child } = await startChain(world.signer, mode === 'groth16' ? 'groth16' : 'stand-in');
  // The real prover of the production variant: one worker per core, lowered as the venue lowers it.
  const prover =
    mode === 'groth16' ? createMatchProver({ nice: options.proverNice ?? MATCH_PROVER_NICE }) : null;
  try {
    const rpc = new ChainRpcClient(url, 60_000);
    const warmUp = mode === 'off' ? 0 : legs;
    const pairs = await bookedWorld(rpc, world, (warmUp + legs) / 2);
    // The served path: hashing, memos, (stand-in) proofs, batch signing and the chain's JSON-RPC
    // encoding on the settlement worker; in the production variant, proofs on the real prover.
    const pool = mode === 'worker' || mode === 'groth16' ? new SettlementPool() : null;
    await pool?.ready();
    await prover?.ready();
    const remote =
      mode === 'off'
        ? null
        : pool === null
          ? new RemoteSettlementChain(rpc, world.signer)
          : new RemoteSettlementChain(new ChainRpcClient(url, 60_000, pool), world.signer, { work: pool });
    // The world's own pipeline (on its in-process chain) never runs here: replaced, or stopped.
    if (remote === null) world.settlement.stop();
    const budgetMs = mode === 'unsliced' ? undefined : SETTLEMENT_TURN_BUDGET_MS;
    const offThread = pool === null ? undefined : { work: pool, prover: prover ?? pool.standInProver() };
    const pipeline = remote === null ? null : world.settleOn(remote, budgetMs, offThread).pipeline;
    // The venue's beat: the served venue's poll of the chain's view (each read is a step of the
    // pipeline; a poll is skipped while the last one runs), or the engine's clock with no settlement.
    const poll = remote === null ? setInterval(() => world.engine.catchUp(), POLL_MS) : null;
    remote?.start(POLL_MS);
    // Asked every slot, so asked cheaply: the pipeline's queue first, and the core's list of
    // pending matches (sorted, 2,048 views: several ms on the thread watched) only once it is empty.
    const settling = () =>
      pipeline !== null &&
      (pipeline.queueDepth(MARKET.marketId) > 0 || world.engine.core.pendingMatches().length > 0);
    // Orders whose leg has ended, settled or failed. Counted too because a slow beat (the chain's
    // process busy) can leave the auction of just-placed orders unrun when `settling` is first
    // asked: nothing pending yet, and the loop would end before a leg had matched.
    const ended = new Set<string>();
    world.engine.onEvents((events) => {
      for (const event of events) {
        if (event.type === 'order' && (event.kind === 'fully_filled' || event.kind === 'settlement_failed'))
          ended.add(event.orderId);
      }
    });
    let produced = 0;
    /** Slots, one every SLOT_MS, until `least` have passed, `legs` legs have ended and nothing is settling. */
    const runSlots = async (least: number, legs: number) => {
      for (let passed = 0; passed < least || ended.size < legs || settling(); passed += 1) {
        if (produced >= SLOTS_MAX) throw new Error(`${mode}: legs still pending after ${SLOTS_MAX} slots`);
        world.chain.advance(1); // the venue's clock and roots
        await rpc.request('advance', { count: 1 });
        produced += 1;
        await new Promise((resolve) => setTimeout(resolve, SLOT_MS));
      }
    };
    let watched: { loop: LoopDelay; seconds: number; slots: number };
    try {
      // The warm-up: the same venue, pool and chain settle a backlog first, so the watched
      // one meets code that has run (as in a venue that has been settling a while, D127).
      await place(world, pairs.slice(0, warmUp / 2));
      if (warmUp > 0) await runSlots(1, warmUp);
      await place(world, pairs.slice(warmUp / 2));
      const before = produced;
      const watch = watchLoop();
      const late = census ? watchLateTurns() : null;
      const observed = observe?.();
      const start = performance.now();
      await runSlots(slots, pipeline === null ? 0 : warmUp + legs);
      await observed?.();
      watched = { loop: watch.stop(), seconds: (performance.now() - start) / 1000, slots: produced - before };
      if (late !== null) {
        for (const line of describeLateTurns(late.stop()))
          process.stderr.write(`${BENCH}: census: ${line}\n`);
      }
    } finally {
      if (poll !== null) clearInterval(poll);
      remote?.stop();
    }
    pipeline?.stop();
    await remote?.idle();
    await pool?.close();
    await prover?.close();
    // A leg that failed is final too, and fails faster: the figures mean something only if every
    // leg settled.
    const settled = world.orderEvents.filter((event) => event.kind === 'fully_filled').length;
    if (pipeline !== null && settled !== warmUp + legs) {
      const failed = world.orderEvents.filter((event) => event.kind === 'settlement_failed');
      throw new Error(
        `${mode}: ${settled} of ${warmUp + legs} legs settled (${failed[0]?.reason ?? 'none'} first)`,
      );
    }
    return {
      ...watched.loop,
      slots: watched.slots,
      legsPerSecond: pipeline === null ? 0 : legs / watched.seconds,
    };
  } finally {
    await prover?.close();
    await stopChain(child);
    await world.close();
    if (state !== undefined) await rm(state.directory, { recursive: true, force: true });
  }
}

const CHILD = new URL('./settle-loop-child.ts', import.meta.url).pathname;
const IDLE_CHILD = new URL('./idle-loop-child.ts', import.meta.url).pathname;

/**
 * The host's floor for a run that watched `legs` legs settle (D142): an idle event loop in a process
 * of its own, watched for as long as that run's window (its legs over its rate), right after it.
 */
function idleRun(legs: number, after: Run): LoopDelay {
  // Every leg of `after` settled (measure throws otherwise), so its rate is above 0.
  return childJson<LoopDelay>(IDLE_CHILD, [String(legs / after.legsPerSecond)]);
}

/** An idle run's line for people (stderr). */
function printIdle(label: string, loop: LoopDelay | undefined): void {
  process.stderr.write(
    `${BENCH}: ${label}: max ${loop?.maxMs.toFixed(1)} ms, p99 ${loop?.p99Ms.toFixed(1)} ms (an idle event loop, the host's floor)\n`,
  );
}

/** One served-path run in a child process (settle-loop-child.ts), its helper threads lowered or not. */
function helperThreadsRun(threads: 'lowered' | 'even'): Run {
  return childJson<Run>(CHILD, [threads]);
}

/**
 * One run of the production variant in a child process whose helper threads are lowered as `venue
 * serve` lowers them (D138, D139), the prover's workers `proverNice` steps below the venue.
 */
function provedRun(proverNice: number): Run {
  return childJson<Run>(CHILD, ['lowered', 'real-proofs', String(proverNice)]);
}

/** A run's line for people (stderr): its max and p99, and legs final per second to `digits`. */
function printRun(label: string, r: Run | undefined, digits: number): void {
  process.stderr.write(
    `${BENCH}: ${label}: max ${r?.maxMs.toFixed(1)} ms, p99 ${r?.p99Ms.toFixed(1)} ms, ${r?.legsPerSecond.toFixed(digits)} legs/s\n`,
  );
}

export async function run(quick: boolean): Promise<Figure[]> {
  // The core's batch code runs warm in a venue that has been up a while (it clears every slot), so
  // crossing books are cleared untimed first, on a core of their own: the first watched auction
  // must not be the first this process ever ran (cold, it is several times slower: D122).
  clearSamplesMs(2_048, 3, true);
  // Each run books 2,048 legs on two chains (a few minutes on a loaded 2-core machine).
  const runs = quick ? 1 : 2;
  const worker: Run[] = [];
  const budget: Run[] = [];
  const unsliced: Run[] = [];
  const off: Run[] = [];
  for (let i = 0; i < runs; i += 1) {
    worker.push(await measure('worker', 1));
    process.stderr.write(`${BENCH}: served path (worker), ${worker.at(-1)?.slots} slots\n`);
    off.push(await measure('off', worker.at(-1)?.slots ?? 1));
    budget.push(await measure('budget', 1));
    unsliced.push(await measure('unsliced', 1));
    for (const [name, runsOf] of [
      ['worker', worker],
      ['sliced, main thread', budget],
      ['unsliced', unsliced],
      ['off', off],
    ] as const) {
      printRun(`run ${i + 1}/${runs} ${name}`, runsOf.at(-1), 0);
    }
  }
  // On request, one more served-path run whose late turns are taken apart (late-turns.ts): after
  // the measured runs, since the census's own timer would weigh on their figures.
  if (process.argv.includes('--census')) {
    process.stderr.write(`${BENCH}: census run (served path; its figures are not reported)\n`);
    await measure('worker', 1, true);
  }
  // The served path as `venue serve` runs it (D138): the threads the process started with lowered,
  // beside the same run with them at its priority, each in a process of its own, alternated.
  const helpersLowered: Run[] = [];
  const helpersEven: Run[] = [];
  const idleServed: LoopDelay[] = [];
  for (let i = 0; i < runs; i += 1) {
    helpersLowered.push(helperThreadsRun('lowered'));
    helpersEven.push(helperThreadsRun('even'));
    idleServed.push(idleRun(LEGS, helpersLowered[i] as Run));
    for (const [name, r] of [
      [`served path, helper threads at nice +${HELPER_THREADS_NICE}`, helpersLowered.at(-1)],
      ["served path, helper threads at the venue's priority", helpersEven.at(-1)],
    ] as const) {
      printRun(`run ${i + 1}/${runs} ${name}`, r, 0);
    }
    printIdle(`run ${i + 1}/${runs} idle process, as long as the served path's window`, idleServed.at(-1));
  }
  // The production variant (D132), as `venue serve` runs it (D139): in a process whose helper
  // threads are lowered, real proofs, the prover lowered as the venue lowers it, beside the same
  // run with the prover at the venue's priority.
  const proved: Run[] = [];
  const provedEven: Run[] = [];
  const idleProved: LoopDelay[] = [];
  for (let i = 0; i < runs; i += 1) {
    proved.push(provedRun(MATCH_PROVER_NICE));
    provedEven.push(provedRun(0));
    idleProved.push(idleRun(PROVED_LEGS, proved[i] as Run));
    for (const [name, r] of [
      [`real proofs, provers at nice +${MATCH_PROVER_NICE}`, proved.at(-1)],
      ["real proofs, provers at the venue's priority", provedEven.at(-1)],
    ] as const) {
      printRun(`run ${i + 1}/${runs} ${name}`, r, 2);
    }
    printIdle(
      `run ${i + 1}/${runs} idle process, as long as the production path's window`,
      idleProved.at(-1),
    );
  }
  const provedPath = `settling_${PROVED_LEGS}_legs_real_proofs_journal_fsync`;
  const path = `settling_${LEGS}_legs_stand_in_proofs`;
  const offBaseline = { name: 'settlement off, same booking and slots', runs: off };
  const unslicedRate = {
    name: 'the unsliced pipeline, same run',
    value: Math.round(summarise(unsliced.map((r) => r.legsPerSecond)).median),
  };
  const rate = (runsOf: readonly Run[]) => summarise(runsOf.map((r) => r.legsPerSecond));
  const idleBaseline = (runsOf: readonly LoopDelay[]) => ({
    name: "an idle event loop in a process of its own, as long, right after (the host's floor)",
    runs: runsOf,
  });
  return [
    ...loopDelayFigures(BENCH, `${provedPath}_against_an_idle_process`, proved, idleBaseline(idleProved)),
    ...loopDelayFigures(
      BENCH,
      `${path}_helper_threads_lowered_against_an_idle_process`,
      helpersLowered,
      idleBaseline(idleServed),
    ),
    ...loopDelayFigures(BENCH, provedPath, proved, {
      name: "the same with the provers at the venue's priority",
      runs: provedEven,
    }),
    figure(BENCH, `legs_final_per_s_${provedPath}`, 'legs/s', 'higher', rate(proved), {
      name: "the same with the provers at the venue's priority",
      value: Math.round(rate(provedEven).median * 100) / 100,
    }),
    ...loopDelayFigures(BENCH, `${path}_helper_threads_lowered`, helpersLowered, {
      name: "the same with the helper threads at the venue's priority",
      runs: helpersEven,
    }),
    figure(
      BENCH,
      `legs_final_per_s_${path}_helper_threads_lowered`,
      'legs/s',
      'higher',
      rate(helpersLowered),
      {
        name: "the same with the helper threads at the venue's priority",
        value: Math.round(rate(helpersEven).median),
      },
    ),
    ...loopDelayFigures(BENCH, path, worker, offBaseline),
    ...loopDelayFigures(BENCH, `${path}_sliced_main_thread`, budget, offBaseline),
    ...loopDelayFigures(BENCH, `${path}_unsliced`, unsliced, offBaseline),
    figure(BENCH, `legs_final_per_s_${path}`, 'legs/s', 'higher', rate(worker), unslicedRate),
    figure(
      BENCH,
      `legs_final_per_s_${path}_sliced_main_thread`,
      'legs/s',
      'higher',
      rate(budget),
      unslicedRate,
    ),
  ];
}
