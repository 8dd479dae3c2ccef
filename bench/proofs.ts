/**
 * VALID_INPUT proofs (issue 4): how fast the venue verifies them, and how long the SDK takes to
 * prove one.
 *
 * Baseline: snarkjs.groth16.verify called one proof at a time, on the same proofs, the way an
 * intake without batching would call it, in snarkjs's best configuration on this machine. Both are
 * measured in the run: its default multi-threaded curve, and a single-threaded curve installed as
 * the global one snarkjs reuses (the worker hand-off costs more than it saves on 2 cores, ~107/s
 * against ~70/s here). The faster is the baseline, and its name says which it was. Proof objects
 * and public signals are prepared beforehand, so only verification is timed.
 *
 * Measured, each against that baseline:
 * - verify_one_at_a_time: our single-proof path on one thread (decode the 256 bytes, curve and
 *   subgroup checks, public inputs from the order, three Miller loops and a final exponentiation);
 * - verify_batched_one_thread: the same checks with batches of BATCH proofs on one thread;
 * - verify_batched_pool_N_workers: the venue's path, ProofVerifier.verifyMany through a pool of
 *   one worker and of one worker per core (the default); _vs_cores_alone: the same figure against
 *   the one-thread batched rate times the cores (what the cores verify alone; target >= 0.8);
 * - verify_batched_pool_1_in_16_bad: the same with every sixteenth proof invalid (bisection cost).
 * Proving: p50 and p99 of createValidInputProver().prove, the SDK call (witness WebAssembly reused).
 * The event loop's delay over the pool run: the venue's thread while its workers verify.
 *
 * A few distinct proofs are cycled through the workload: nothing is cached between verifications,
 * so a repeated proof costs what a new one would.
 */
import { availableParallelism } from 'node:os';
import {
  type AssetClaim,
  assetIdOfMint,
  createClaimChecker,
  createNote,
  createProofVerifier,
  createValidInputProver,
  decodeProof,
  fieldToHex,
  loadNoteHasher,
  loadVerificationKey,
  NoteTree,
  type ProvedInput,
  randomFieldElement,
  snarkjsOfCoordinates,
} from '@venue/notes';
import type { PlaceOrder } from '@venue/protocol';
import { buildBn128 } from 'ffjavascript';
import * as snarkjs from 'snarkjs';
import { type Figure, figure, type Sampled, summarise } from './harness.ts';
import { type LoopDelay, loopDelayFigures, watchLoop } from './loop-delay.ts';
import { batchedOneThreadRate, coresAloneBaseline, VERIFY_BATCH } from './proved-notes.ts';

const BENCH = 'proofs';
const MINT = 'So11111111111111111111111111111111111111112';
const BATCH = VERIFY_BATCH;

interface Workload {
  readonly proofs: readonly ProvedInput[];
  readonly orders: readonly PlaceOrder[];
  readonly proveMs: readonly number[];
}

function progress(text: string): void {
  process.stderr.write(`proofs: ${text}\n`);
}

function orderOf(proved: ProvedInput, tradingKey: string): PlaceOrder {
  return {
    symbol: 'SOL-USDC',
    side: 'ask',
    order_type: 'limit',
    amount: 1000n,
    price_limit: 0n,
    expiry_slot: 1000n,
    order_id: '01'.repeat(16),
    arrival_nonce: 1n,
    trading_key: tradingKey,
    trading_key_signature: '00'.repeat(64),
    viewing_pubkey: '77'.repeat(32),
    session_id: 'ab'.repeat(32),
    ...proved.orderFields,
  };
}

/** Proves `count` notes of one tree with the SDK prover, timing each proof but the first (warm-up). */
async function prove(count: number): Promise<Workload> {
  const hasher = await loadNoteHasher();
  const tree = new NoteTree(hasher);
  const spendingKey = randomFieldElement();
  const notes = Array.from({ length: count }, (_, i) =>
    createNote(hasher, {
      ownerCommitment: hasher.ownerCommitment(spendingKey),
      assetId: assetIdOfMint(MINT),
      value: 1000n + BigInt(i),
    }),
  );
  for (const note of notes) tree.append(note.commitment);
  const prover = await createValidInputProver();
  const proofs: ProvedInput[] = [];
  const proveMs: number[] = [];
  const tradingKey = fieldToHex(7n);
  try {
    for (const [index, note] of notes.entries()) {
      const start = process.hrtime.bigint();
      proofs.push(
        await prover.prove({
          spendingKey,
          note,
          path: tree.path(index),
          merkleRoot: tree.root(),
          treeId: 0,
          tradingKey,
        }),
      );
      if (index > 0) proveMs.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    await prover.close();
  }
  return { proofs, orders: proofs.map((p) => orderOf(p, tradingKey)), proveMs };
}

/** Runs `round` (which verifies `perRun` proofs) after one warm-up, `runs` times; proofs/s. */
async function rate(perRun: number, runs: number, round: () => Promise<void>): Promise<Sampled> {
  await round();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = process.hrtime.bigint();
    await round();
    samples.push(perRun / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return summarise(samples);
}

function cycle<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, (_, i) => items[i % items.length] as T);
}

/**
 * snarkjs verifying one proof at a time. `singleThread`: a single-threaded curve set as
 * `globalThis.curve_bn128`, the curve snarkjs's getCurveFromName reuses (as the prove worker does).
 */
async function snarkjsBaseline(
  work: Workload,
  count: number,
  runs: number,
  singleThread: boolean,
): Promise<Sampled> {
  const global = globalThis as { curve_bn128?: unknown };
  delete global.curve_bn128;
  if (singleThread) global.curve_bn128 = await buildBn128(true);
  const vkey = await loadVerificationKey();
  const inputs = work.proofs.map((p) => ({
    proof: snarkjsOfCoordinates(decodeProof(p.orderFields.valid_input_proof)),
    signals: p.publicInputs.map(String),
  }));
  const sampled = await rate(count, runs, async () => {
    for (const { proof, signals } of cycle(inputs, count)) {
      if (!(await snarkjs.groth16.verify(vkey, signals, proof))) throw new Error('baseline rejected a proof');
    }
  });
  await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
  delete global.curve_bn128;
  return sampled;
}

/**
 * The venue's pool fed the way intake feeds it: `inFlight` single verifyDeriving calls, each
 * replaced by the next as it is answered. Answers the process's CPU (every thread) per proof, in
 * microseconds: on a shared machine CPU per proof stays comparable where wall-clock rates do not.
 */
async function closedLoopCpuPerProofUs(
  orders: readonly PlaceOrder[],
  assetId: bigint,
  inFlight: number,
  total: number,
  batchMinShare: number,
): Promise<number> {
  const verifier = createProofVerifier({
    mode: 'groth16',
    settles: true,
    assetOf: () => assetId,
    batchMax: BATCH,
    batchMinShare,
  });
  await verifier.ready();
  try {
    const cpu = process.cpuUsage();
    let started = 0;
    await new Promise<void>((resolve, reject) => {
      let answered = 0;
      const next = (): void => {
        if (started >= total) return;
        const order = orders[started % orders.length] as PlaceOrder;
        started += 1;
        verifier.verifyDeriving(order, 1000n).then((verdict) => {
          if (!verdict.valid) reject(new Error('a proof the bench made did not verify'));
          answered += 1;
          if (answered === total) resolve();
          else next();
        }, reject);
      };
      for (let i = 0; i < inFlight; i++) next();
    });
    const spent = process.cpuUsage(cpu);
    return (spent.user + spent.system) / total;
  } finally {
    await verifier.close();
  }
}

function expectAll(results: readonly boolean[], expected: (i: number) => boolean): void {
  results.forEach((valid, i) => {
    if (valid !== expected(i)) throw new Error(`proof ${i}: expected ${expected(i)}, got ${valid}`);
  });
}

export async function run(quick: boolean): Promise<Figure[]> {
  const runs = quick ? 3 : 7;
  progress(`proving ${quick ? 5 : 17} notes`);
  const work = await prove(quick ? 5 : 17);
  const assetId = assetIdOfMint(MINT);
  const claims: AssetClaim[] = work.orders.map((order) => ({ ...order, assetId }));

  progress('baseline: snarkjs.groth16.verify, one at a time, default and single-threaded curve');
  const snarkjsDefault = await snarkjsBaseline(work, quick ? 16 : 64, runs, false);
  const snarkjsSingle = await snarkjsBaseline(work, quick ? 16 : 64, runs, true);
  const singleBest = snarkjsSingle.median >= snarkjsDefault.median;
  const baseline = singleBest ? snarkjsSingle : snarkjsDefault;
  const base = {
    name: `snarkjs.groth16.verify one at a time, ${singleBest ? 'single-threaded' : 'default multi-threaded'} curve (its best here)`,
    value: Math.round(baseline.median * 10) / 10,
  };

  const checker = await createClaimChecker();
  progress('ours, one at a time, one thread');
  const oneCount = quick ? 32 : 128;
  const single = await rate(oneCount, runs, async () => {
    for (const claim of cycle(claims, oneCount)) expectAll(await checker.check([claim]), () => true);
  });
  await checker.close();
  progress(`ours, batches of ${BATCH}, one thread`);
  const batched = await batchedOneThreadRate(claims, quick ? BATCH * 2 : BATCH * 8, runs);

  // The venue's path at each pool size worth choosing between: one worker (a core left to the
  // sequencer) and one per core (the default, verifier.ts).
  const sizes = [...new Set([1, availableParallelism()])];
  const pools: { workers: number; pool: Sampled; withBad: Sampled; loops: LoopDelay[] }[] = [];
  for (const workers of sizes) {
    progress(`venue path: verifyMany through a pool of ${workers} workers`);
    const verifier = createProofVerifier({
      mode: 'groth16',
      settles: true,
      assetOf: () => assetId,
      workers,
      batchMax: BATCH,
    });
    await verifier.ready();
    const poolCount = quick ? 256 : 2048;
    const orders = cycle(work.orders, poolCount);
    const loops: LoopDelay[] = [];
    const pool = await rate(poolCount, runs, async () => {
      const watch = watchLoop();
      expectAll(await verifier.verifyMany(orders), () => true);
      loops.push(watch.stop());
    });
    const bad = (i: number) => i % 16 === 15;
    const mixed = orders.map((order, i) => (bad(i) ? { ...order, tree_id: 1 } : order));
    const withBad = await rate(poolCount, runs, async () => {
      expectAll(await verifier.verifyMany(mixed), (i) => !bad(i));
    });
    await verifier.close();
    pools.push({ workers, pool, withBad, loops });
  }
  // What the machine's cores verify alone: the one-thread batched rate times the cores.
  const coresAlone = coresAloneBaseline(batched);
  // Decisions D89: CPU per proof when single orders keep 32 in flight, holding small batches back
  // (the default, 16) against handing idle workers whatever waits (1).
  progress('venue path: closed loop of 32 single verifications, CPU per proof, batchMinShare 16 and 1');
  const closedTotal = quick ? 128 : 512;
  const heldBack: number[] = [];
  const eager: number[] = [];
  for (let run = 0; run < (quick ? 2 : 3); run++) {
    heldBack.push(await closedLoopCpuPerProofUs(work.orders, assetId, 32, closedTotal, 16));
    eager.push(await closedLoopCpuPerProofUs(work.orders, assetId, 32, closedTotal, 1));
  }
  const proving = summarise(work.proveMs);
  const sorted = [...work.proveMs].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return [
    figure(BENCH, 'verify_baseline_snarkjs_single_thread_curve', 'proofs/s', 'higher', snarkjsSingle, {
      name: 'snarkjs default multi-threaded curve, same proofs',
      value: Math.round(snarkjsDefault.median * 10) / 10,
    }),
    figure(BENCH, 'verify_one_at_a_time', 'proofs/s', 'higher', single, base),
    figure(BENCH, 'verify_batched_one_thread', 'proofs/s', 'higher', batched, base),
    ...pools.flatMap(({ workers, pool, withBad, loops }) => [
      figure(BENCH, `verify_batched_pool_${workers}_workers`, 'proofs/s', 'higher', pool, base),
      figure(
        BENCH,
        `verify_batched_pool_${workers}_workers_vs_cores_alone`,
        'proofs/s',
        'higher',
        pool,
        coresAlone,
      ),
      figure(
        BENCH,
        `verify_batched_pool_${workers}_workers_1_in_16_bad`,
        'proofs/s',
        'higher',
        withBad,
        base,
      ),
      ...loopDelayFigures(BENCH, `verify_batched_pool_${workers}_workers`, loops),
    ]),
    figure(
      BENCH,
      'verify_pool_closed_loop_32_in_flight_cpu_us_per_proof',
      'us',
      'lower',
      summarise(heldBack),
      {
        name: 'the same pool handing idle workers whatever waits (batchMinShare 1)',
        value: Math.round(summarise(eager).median),
      },
    ),
    figure(BENCH, 'prove_p50_ms', 'ms', 'lower', proving, null),
    figure(
      BENCH,
      'prove_p99_ms',
      'ms',
      'lower',
      { median: p99, spread: proving.spread, runs: proving.runs },
      null,
    ),
  ];
}
