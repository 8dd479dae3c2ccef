/**
 * Real VALID_INPUT proofs for the benchmarks that run a venue on the production path (soak
 * --proofs, rest and stream's `_real_proofs_journal_fsync` variants), and the measure they are
 * compared with: what this machine's cores verify alone.
 *
 * A proof binds one note and one trading key, not an order, and a note backs one open order at a
 * time: so each account gets a few notes, proved once before any timing, and its orders reuse them
 * (a note is free again once its order is cancelled). The notes are made here, in one tree whose
 * root the venue is handed as its only recent root; the proving runs in child processes (this file,
 * forked), several at once, so the prover's circuit and curve never sit in the venue's process.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  type AssetClaim,
  createClaimChecker,
  createNote,
  createProofVerifier,
  createValidInputProver,
  fieldToHex,
  loadNoteHasher,
  type NoteHasher,
  NoteTree,
  type ProofVerifier,
  type ProvedInput,
} from '@venue/notes';
import type { PlaceOrder } from '@venue/protocol';
import { type Sampled, summarise } from './harness.ts';
import { threadCpuSeconds } from './thread-cpu.ts';

const PROVER_ENV = 'VENUE_BENCH_NOTE_PROVER';

/** One note to make and prove: whose (spending key, trading key), which asset, how much. */
export interface NoteSpec {
  readonly spendingKey: bigint;
  readonly tradingKey: string;
  readonly assetId: bigint;
  readonly value: bigint;
}

/** The fields of a place order that a proved note fixes, and the note's value (decimal). */
export interface ProvedNote {
  readonly fields: ProvedInput['orderFields'];
  readonly value: string;
}

/** What a prover child is sent: every leaf (it rebuilds the tree) and the notes it proves. */
interface ProveJob {
  readonly leaves: readonly string[];
  readonly notes: readonly {
    readonly leaf: number;
    readonly spendingKey: string;
    readonly tradingKey: string;
    readonly assetId: string;
    readonly blinding: string;
    readonly value: string;
  }[];
}

/**
 * Makes one note per spec in one tree and proves them all in `processes` child processes at once;
 * answers the proved notes in spec order and the tree's root (hex).
 */
export async function proveNotes(
  specs: readonly NoteSpec[],
  processes = availableParallelism(),
  label = 'bench',
): Promise<{ notes: ProvedNote[]; root: string; seconds: number }> {
  const started = performance.now();
  const hasher = await loadNoteHasher();
  const tree = new NoteTree(hasher);
  const made = specs.map((spec) => {
    const note = createNote(hasher, {
      ownerCommitment: hasher.ownerCommitment(spec.spendingKey),
      assetId: spec.assetId,
      value: spec.value,
    });
    return { spec, note, leaf: tree.append(note.commitment) };
  });
  const leaves = made.map((m) => String(m.note.commitment));
  const children = Math.max(1, Math.min(processes, made.length));
  process.stderr.write(
    `${label}: proving ${made.length} notes (VALID_INPUT, Groth16) in ${children} child processes...\n`,
  );
  const shares = await Promise.all(
    Array.from({ length: children }, (_, c) => {
      const mine = made.filter((_, i) => i % children === c);
      return proveInChild({
        leaves,
        notes: mine.map(({ spec, note, leaf }) => ({
          leaf,
          spendingKey: String(spec.spendingKey),
          tradingKey: spec.tradingKey,
          assetId: String(spec.assetId),
          blinding: String(note.blinding),
          value: String(note.value),
        })),
      });
    }),
  );
  const notes = made.map((_, i) => {
    const proved = shares[i % children]?.[Math.floor(i / children)];
    if (proved === undefined) throw new Error(`no proof for note ${i}`);
    return proved;
  });
  return { notes, root: fieldToHex(tree.root()), seconds: (performance.now() - started) / 1000 };
}

async function proveInChild(job: ProveJob): Promise<ProvedNote[]> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, [PROVER_ENV]: '1' },
    // stdout carries figures only.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  const exited = once(child, 'exit');
  child.send(job);
  const [message] = (await once(child, 'message')) as [{ notes: ProvedNote[] } | { error: string }];
  await exited;
  if ('error' in message) throw new Error(`note prover: ${message.error}`);
  return message.notes;
}

/** The child's side: rebuild the tree, prove the notes it was given, answer, exit. */
async function serveProveJob(job: ProveJob): Promise<ProvedNote[]> {
  const hasher = await loadNoteHasher();
  const tree = new NoteTree(hasher);
  for (const leaf of job.leaves) tree.append(BigInt(leaf));
  const root = tree.root();
  const prover = await createValidInputProver();
  try {
    const proved: ProvedNote[] = [];
    for (const note of job.notes) {
      const proof = await prover.prove({
        spendingKey: BigInt(note.spendingKey),
        note: { assetId: BigInt(note.assetId), blinding: BigInt(note.blinding), value: BigInt(note.value) },
        path: tree.path(note.leaf),
        merkleRoot: root,
        treeId: 0,
        tradingKey: note.tradingKey,
      });
      proved.push({ fields: proof.orderFields, value: note.value });
    }
    return proved;
  } finally {
    await prover.close();
  }
}

/** The Groth16 verifier a production-path bench venue checks every place with (its worker pool). */
export async function groth16Verifier(
  assetOf: (order: PlaceOrder) => bigint,
  verifiedClaimsMax?: number,
): Promise<{ verifier: ProofVerifier; hasher: NoteHasher }> {
  const verifier = createProofVerifier({
    mode: 'groth16',
    settles: false,
    assetOf,
    ...(verifiedClaimsMax === undefined ? {} : { verifiedClaimsMax }),
  });
  await verifier.ready();
  return { verifier, hasher: await loadNoteHasher() };
}

/** Proofs a batch of the verifier's pool holds at most, and the batch size measured alone. */
export const VERIFY_BATCH = 64;

/**
 * The batched verification rate of one thread (batches of VERIFY_BATCH on this thread, nothing
 * else running), proofs/s. Times the cores, it is what the machine's cores verify alone: the
 * ceiling of a venue's proof-checked intake. `sample` measures once (the first call warms up
 * first); the production-path benchmarks take one sample before each timed run, so the baseline
 * sees the same machine (a shared one's load drifts) as the run beside it.
 */
export async function batchedRateMeter(claims: readonly AssetClaim[]): Promise<{
  sample(count: number): Promise<number>;
  /** CPU time per proof of the last sample (this thread's, µs): the cost a venue's proof cannot undercut. */
  cpuUsPerProof(): number;
  close(): Promise<void>;
}> {
  const checker = await createClaimChecker();
  let cpuUsPerProof = 0;
  const round = async (count: number): Promise<number> => {
    const all = Array.from({ length: count }, (_, i) => claims[i % claims.length] as AssetClaim);
    const cpuBefore = threadCpuSeconds().get(process.pid) ?? 0;
    const start = process.hrtime.bigint();
    for (let i = 0; i < all.length; i += VERIFY_BATCH) {
      const results = await checker.check(all.slice(i, i + VERIFY_BATCH));
      if (results.some((valid) => !valid)) throw new Error('a proof the bench made did not verify');
    }
    const rate = count / (Number(process.hrtime.bigint() - start) / 1e9);
    cpuUsPerProof = (((threadCpuSeconds().get(process.pid) ?? 0) - cpuBefore) * 1e6) / count;
    return rate;
  };
  let warm = false;
  return {
    async sample(count) {
      if (!warm) await round(VERIFY_BATCH * 2);
      warm = true;
      return round(count);
    },
    cpuUsPerProof: () => cpuUsPerProof,
    close: () => checker.close(),
  };
}

/** batchedRateMeter's samples, `runs` of them, after its warm-up. */
export async function batchedOneThreadRate(
  claims: readonly AssetClaim[],
  count: number,
  runs: number,
): Promise<Sampled> {
  const meter = await batchedRateMeter(claims);
  try {
    const samples: number[] = [];
    for (let run = 0; run < runs; run++) samples.push(await meter.sample(count));
    return summarise(samples);
  } finally {
    await meter.close();
  }
}

/** The baseline of the production-path intake figures: batched one-thread rate x cores. */
export function coresAloneBaseline(batched: Sampled): { name: string; value: number } {
  const cores = availableParallelism();
  return {
    name: `batched Groth16 verification alone, one thread x ${cores} cores`,
    value: Math.round(batched.median * cores),
  };
}

/** The venue's verifier pool alone (poolAloneRate samples): the other baseline of those figures. */
export function poolAloneBaseline(samples: readonly number[]): { name: string; value: number } {
  return {
    name: `the venue's verifier pool alone (${availableParallelism()} workers, batches of ${VERIFY_BATCH}), same run`,
    value: Math.round(summarise(samples).median),
  };
}

if (process.env[PROVER_ENV] === '1' && process.send !== undefined) {
  process.once('message', (job: ProveJob) => {
    serveProveJob(job).then(
      (notes) => process.send?.({ notes }, () => process.exit(0)),
      (error: unknown) =>
        process.send?.(
          { error: error instanceof Error ? (error.stack ?? error.message) : String(error) },
          () => process.exit(1),
        ),
    );
  });
}
