/**
 * `npm run bench -- settlement`: the settlement pipeline against the in-process chain simulator.
 * Each run books `pairs` crossing bid/ask pairs (real Poseidon notes, verified-command intake), then
 * drives slots until every match is final and reported to the core. A "match" here is one order's
 * part in a batch (one leg, one proof, one core match id); a traded pair is two.
 *
 * Production path (real VALID_MATCH proofs on worker threads, verified by the chain with the pinned
 * key; a slot every SLOT_MS of wall time so the provers get the time real slots give them):
 * - matches_settled_groth16: matches final per second, from the first slot to the last outcome;
 *   baseline: the raw MatchProver with the same workers proving the same number of legs with no
 *   venue around it (the ceiling; the ratio is what the venue keeps of it, target >= 0.8);
 * - match_to_final_p50_ms / _p99_ms: from the match event to its fill event; baseline: finality
 *   depth x slot time, the least any settlement can take;
 * - prove_batch_LEGS_ms: wall time of the bare prover for one batch of LEGS legs; baseline: the
 *   single-leg time x LEGS / workers (perfect scaling over the workers);
 * - event_loop_delay_max_ms / _p99_ms over the production run, the prover's workers lowered by
 *   MATCH_PROVER_NICE as the venue runs them (D132); baseline: the same run with the workers at the
 *   venue's priority. Every production figure is of the lowered run; the stderr line gives both.
 *
 * Stand-in path (notes match-stand-in.ts: the pipeline's own cost with proving taken out):
 * - matches_settled_stand_in: baseline the same run's time inside the chain's lock and settlement
 *   calls; matches_settled_stand_in_over_rpc: baseline the in-process stand-in rate.
 */
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MATCH_PROVER_NICE } from '@venue/adapters';
import type { CoreEvent } from '@venue/core';
import { createMatchProver, loadNoteHasher, type MatchProver, sampleMatchBatch } from '@venue/notes';
import { MARKET, SettlementWorld } from '../packages/adapters/test/settlement-world.ts';
import { type Figure, figure, summarise } from './harness.ts';

const BENCH = 'settlement';
const FINALITY = 8;
/** Wall time per slot in the production run: a chain's slot is 400 ms; shorter keeps the run short. */
const SLOT_MS = 100;
const WORKERS = availableParallelism();

/** Books `pairs` crossing pairs in `world`, each buyer and seller with a note of their own. */
async function book(world: SettlementWorld, pairs: number): Promise<void> {
  const orders = [];
  for (let i = 0; i < pairs; i += 1) {
    const buyer = world.wallet(`buyer-${i}`);
    const seller = world.wallet(`seller-${i}`);
    orders.push({
      buyer,
      seller,
      quote: world.deposit(buyer, 'quote', 15n),
      base: world.deposit(seller, 'base', 10n),
    });
  }
  world.advance(1);
  for (const { buyer, seller, quote, base } of orders) {
    await world.place(buyer, world.order(buyer, quote, 'bid', 10n));
    await world.place(seller, world.order(seller, base, 'ask', 10n));
  }
}

/** Wall-clock milliseconds from each match event to its order's fill event. */
function latencies(world: SettlementWorld): () => number[] {
  const matched = new Map<bigint, number>();
  const samples: number[] = [];
  world.engine.onEvents((events: readonly CoreEvent[]) => {
    const now = performance.now();
    for (const event of events) {
      if (event.type === 'matches') {
        for (let k = 0; k < event.matches.count; k += 1) matched.set(event.matches.matchId(k), now);
      } else if (event.type === 'match') matched.set(event.matchId, now);
      else if (event.type === 'order' && event.matchId !== undefined) {
        const start = matched.get(event.matchId);
        if (start !== undefined && (event.kind === 'fully_filled' || event.kind === 'partially_filled')) {
          samples.push(now - start);
          matched.delete(event.matchId);
        }
      }
    }
  });
  return () => samples;
}

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface Production {
  matchesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  loopMaxMs: number;
  loopP99Ms: number;
}

/**
 * The production path: real proofs, real verification, a slot every SLOT_MS. The prover's workers
 * run `proverNice` steps below this thread: MATCH_PROVER_NICE as `venue serve` and `venue dev` run
 * them, or 0 (the venue's priority, as before D132) for the baseline.
 */
async function production(pairs: number, proverNice: number): Promise<Production> {
  const world = await SettlementWorld.create({
    finalityDepth: FINALITY,
    // Long enough for a backlog of proofs: the chain allows locks of up to 9,000 slots.
    lockDurationSlots: 6_000n,
    proofs: 'groth16',
    proverWorkers: WORKERS,
    proverNice,
  });
  try {
    await world.waitForProver();
    const samples = latencies(world);
    await book(world, pairs);
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const start = performance.now();
    await world.settleAll(SLOT_MS);
    const seconds = (performance.now() - start) / 1000;
    loop.disable();
    if (world.metrics.market(MARKET.marketId).batches_confirmed === 0) throw new Error('nothing settled');
    const all = samples();
    if (all.length !== 2 * pairs) throw new Error(`${all.length} of ${2 * pairs} matches filled`);
    return {
      matchesPerSecond: (2 * pairs) / seconds,
      p50Ms: percentile(all, 0.5),
      p99Ms: percentile(all, 0.99),
      loopMaxMs: loop.max / 1e6,
      loopP99Ms: loop.percentile(99) / 1e6,
    };
  } finally {
    await world.close();
  }
}

/** The bare prover: `legs` legs of the sample batch, and one batch per size, on WORKERS workers. */
async function rawProver(
  legs: number,
  sizes: readonly number[],
): Promise<{ legsPerSecond: number; msPerLeg: number; batchMs: Map<number, number> }> {
  const hasher = await loadNoteHasher();
  const prover: MatchProver = createMatchProver({ workers: WORKERS });
  try {
    await prover.ready();
    const sample = sampleMatchBatch(hasher, Math.ceil(Math.max(legs, ...sizes) / 2));
    await prover.prove(sample.header, sample.legs[0] as (typeof sample.legs)[number]); // warm-up
    let start = performance.now();
    await prover.prove(sample.header, sample.legs[1] as (typeof sample.legs)[number]);
    const msPerLeg = performance.now() - start;
    start = performance.now();
    await prover.proveBatch(sample.header, sample.legs.slice(0, legs));
    const legsPerSecond = legs / ((performance.now() - start) / 1000);
    const batchMs = new Map<number, number>();
    for (const size of sizes) {
      start = performance.now();
      await prover.proveBatch(sample.header, sample.legs.slice(0, size));
      batchMs.set(size, performance.now() - start);
    }
    return { legsPerSecond, msPerLeg, batchMs };
  } finally {
    await prover.close();
  }
}

async function standIn(pairs: number): Promise<{ rate: number; chainRate: number; rpcRate: number }> {
  const world = await SettlementWorld.create({ finalityDepth: FINALITY, lockDurationSlots: 200n });
  const rpcWorld = await SettlementWorld.create({
    finalityDepth: FINALITY,
    lockDurationSlots: 200n,
    rpc: true,
  });
  try {
    let chainNs = 0n;
    const chain = world.chain as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of ['lockNotes', 'submitSettlement'] as const) {
      const original = chain[name]?.bind(world.chain);
      chain[name] = (...args: unknown[]) => {
        const began = process.hrtime.bigint();
        try {
          return original?.(...args);
        } finally {
          chainNs += process.hrtime.bigint() - began;
        }
      };
    }
    await book(world, pairs);
    let start = process.hrtime.bigint();
    let slots = 0;
    while (world.engine.core.pendingMatches().length > 0 || slots === 0) {
      world.advance(1);
      slots += 1;
      if (slots > 10_000) throw new Error('settlement did not finish');
    }
    const rate = (2 * pairs) / (Number(process.hrtime.bigint() - start) / 1e9);
    await book(rpcWorld, pairs);
    start = process.hrtime.bigint();
    slots = 0;
    while (rpcWorld.engine.core.pendingMatches().length > 0 || slots === 0) {
      await rpcWorld.beat(1);
      slots += 1;
      if (slots > 10_000) throw new Error('settlement over RPC did not finish');
    }
    const rpcRate = (2 * pairs) / (Number(process.hrtime.bigint() - start) / 1e9);
    return { rate, chainRate: (2 * pairs) / (Number(chainNs) / 1e9), rpcRate };
  } finally {
    await world.close();
    await rpcWorld.close();
  }
}

export async function run(quick: boolean): Promise<Figure[]> {
  const pairs = quick ? 4 : 16;
  const runs = quick ? 1 : 3;
  const sizes = quick ? [2, 8] : [2, 8, 16];
  const produced: Production[] = [];
  const evenPriority: Production[] = [];
  const raws = [];
  for (let i = 0; i < runs; i += 1) {
    raws.push(await rawProver(2 * pairs, sizes));
    produced.push(await production(pairs, MATCH_PROVER_NICE));
    evenPriority.push(await production(pairs, 0));
    const [niced, even] = [produced.at(-1), evenPriority.at(-1)];
    process.stderr.write(
      `${BENCH}: production run ${i + 1}/${runs}: provers at nice +${MATCH_PROVER_NICE}: loop max ${niced?.loopMaxMs.toFixed(1)} ms, p99 ${niced?.loopP99Ms.toFixed(1)} ms, ${niced?.matchesPerSecond.toFixed(2)} matches/s; at the venue's priority: ${even?.loopMaxMs.toFixed(1)} ms, ${even?.loopP99Ms.toFixed(1)} ms, ${even?.matchesPerSecond.toFixed(2)} matches/s\n`,
    );
  }
  const evenOf = (pick: (p: Production) => number) => ({
    name: "the same run with the provers at the venue's priority",
    value: Math.round(summarise(evenPriority.map(pick)).median * 10) / 10,
  });
  const raw = summarise(raws.map((r) => r.legsPerSecond));
  const msPerLeg = summarise(raws.map((r) => r.msPerLeg)).median;
  const of = (pick: (p: Production) => number) => summarise(produced.map(pick));
  const figures: Figure[] = [
    figure(
      BENCH,
      `matches_settled_groth16_${pairs}_pairs`,
      'matches/s',
      'higher',
      of((p) => p.matchesPerSecond),
      {
        name: `bare MatchProver, ${WORKERS} workers, same legs`,
        value: Math.round(raw.median * 100) / 100,
      },
    ),
    ...(['p50', 'p99'] as const).map((at) =>
      figure(
        BENCH,
        `match_to_final_${at}_ms_groth16`,
        'ms',
        'lower',
        of((p) => (at === 'p50' ? p.p50Ms : p.p99Ms)),
        { name: `finality depth ${FINALITY} x ${SLOT_MS} ms slots`, value: FINALITY * SLOT_MS },
      ),
    ),
    figure(
      BENCH,
      'event_loop_delay_max_ms_groth16',
      'ms',
      'lower',
      of((p) => p.loopMaxMs),
      evenOf((p) => p.loopMaxMs),
    ),
    figure(
      BENCH,
      'event_loop_delay_p99_ms_groth16',
      'ms',
      'lower',
      of((p) => p.loopP99Ms),
      evenOf((p) => p.loopP99Ms),
    ),
  ];
  for (const size of sizes) {
    const ms = summarise(raws.map((r) => r.batchMs.get(size) ?? 0));
    figures.push(
      figure(BENCH, `prove_batch_${size}_legs_ms`, 'ms', 'lower', ms, {
        name: `one leg (${Math.round(msPerLeg)} ms) x ${size} / ${WORKERS} workers`,
        value: Math.round((msPerLeg * size) / Math.min(WORKERS, size)),
      }),
    );
  }
  const stubPairs = quick ? 64 : 256;
  const stand = [];
  for (let i = 0; i < (quick ? 2 : 3); i += 1) stand.push(await standIn(stubPairs));
  const rate = summarise(stand.map((s) => s.rate));
  figures.push(
    figure(BENCH, `matches_settled_stand_in_${stubPairs}_pairs`, 'matches/s', 'higher', rate, {
      name: 'chain-sim lock+settle of the same batches',
      value: Math.round(summarise(stand.map((s) => s.chainRate)).median),
    }),
    figure(
      BENCH,
      `matches_settled_stand_in_over_rpc_${stubPairs}_pairs`,
      'matches/s',
      'higher',
      summarise(stand.map((s) => s.rpcRate)),
      { name: 'in-process stand-in pipeline, same run', value: Math.round(rate.median) },
    ),
  );
  return figures;
}
