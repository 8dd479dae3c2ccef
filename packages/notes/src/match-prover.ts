import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { assert } from '@venue/protocol';
import type { MatchProveReply, MatchProveRequest } from './match-prove-worker.ts';
import type { MatchBatchHeader, MatchStatement } from './match-public-inputs.ts';
import type { MatchLeg } from './match-rules.ts';
import { lowerThreadPriority } from './thread-priority.ts';
import { startTsWorker } from './worker-threads.ts';

/**
 * VALID_MATCH proving inside the venue (docs/notes.md section 10.6): a pool of worker threads, each
 * with the pinned proving keys of both circuits (4 and 16 fill slots), their warm witness
 * WebAssembly and its own single-threaded curve, so the sequencer never waits on a proof. A leg of
 * up to 4 fills is proved by the narrow circuit, one of 5 to 16 by the wide one. Legs queue in a bounded queue; each idle worker takes the next
 * one. A leg that cannot be proved breaks a rule the venue itself must keep (MatchRuleError in the
 * message): a bug, so its promise rejects with MatchProvingError and the batch must fail loudly.
 */
export interface MatchProof {
  /** Its fill tags number 4 or 16: the width of the circuit that proved it (matchWidthOfStatement). */
  readonly statement: MatchStatement;
  /** 256 bytes, hex, in the layout of docs/notes.md section 5. */
  readonly proof: string;
}

export interface MatchProverOptions {
  /** Worker threads, each proving one leg at a time. Default: one per core. */
  readonly workers?: number;
  /** Most legs waiting or being proved; beyond it prove rejects with MatchProverBusyError. */
  readonly queueMax?: number;
  /**
   * Nice steps each worker thread runs below the thread that made the prover (Linux; elsewhere
   * ignored). Default 0. A venue lowers its provers so that proving a backlog, a second of CPU per
   * leg, never keeps the sequencer waiting for a core (decisions D132).
   */
  readonly nice?: number;
}

export interface MatchProver {
  /** 'groth16': real VALID_MATCH proofs; 'stand-in': match-stand-in.ts, for tests and the simulator. */
  readonly kind: 'groth16' | 'stand-in';
  /** Resolves once every worker has loaded the pinned artifacts; rejects if one cannot. */
  ready(): Promise<void>;
  /** Proves one leg of the batch `header`. */
  prove(header: MatchBatchHeader, leg: MatchLeg): Promise<MatchProof>;
  /**
   * Present on a prover that answers at once (the stand-in): proves synchronously, so a settlement
   * pipeline seals, signs and submits a batch within one beat, and a simulated run stays in step.
   */
  proveNow?(header: MatchBatchHeader, leg: MatchLeg): MatchProof;
  /** Proves every leg of one batch (one proof per leg, same order); all are queued or none. */
  proveBatch(header: MatchBatchHeader, legs: readonly MatchLeg[]): Promise<MatchProof[]>;
  load(): { queued: number; inFlight: number; queueMax: number };
  /** Stops the workers; pending proofs reject. */
  close(): Promise<void>;
}

export const MATCH_PROVER_QUEUE_MAX_DEFAULT = 4096;
export const MATCH_PROVER_WORKERS_MAX = 64;

/** The queue is full: the pipeline should hold the batch back, not pile more legs on. */
export class MatchProverBusyError extends Error {
  constructor(queueMax: number) {
    super(`the match prover is at capacity (${queueMax} legs queued)`);
    this.name = 'MatchProverBusyError';
  }
}

/** A leg could not be proved: the venue built a leg that breaks a rule, or a worker failed. */
export class MatchProvingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MatchProvingError';
  }
}

interface Job {
  readonly request: MatchProveRequest;
  readonly resolve: (proof: MatchProof) => void;
  readonly reject: (error: Error) => void;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  started: boolean;
  job: Job | null;
}

export function createMatchProver(options: MatchProverOptions = {}): MatchProver {
  const workerCount = options.workers ?? availableParallelism();
  const queueMax = options.queueMax ?? MATCH_PROVER_QUEUE_MAX_DEFAULT;
  const nice = options.nice ?? 0;
  assert(
    Number.isInteger(workerCount) && workerCount >= 1 && workerCount <= MATCH_PROVER_WORKERS_MAX,
    `workers must be 1 to ${MATCH_PROVER_WORKERS_MAX}, received ${workerCount}`,
  );
  assert(Number.isInteger(queueMax) && queueMax >= 1, 'queueMax must be >= 1');
  assert(Number.isInteger(nice) && nice >= 0 && nice <= 19, `nice must be 0 to 19, received ${nice}`);
  const queue: Job[] = [];
  let inFlight = 0;
  let failure: Error | null = null;
  let nextId = 1;

  const fail = (error: Error): void => {
    failure ??= error;
    for (const job of queue.splice(0)) job.reject(error);
    for (const member of pool) {
      member.job?.reject(error);
      member.job = null;
    }
    inFlight = 0;
  };

  const dispatch = (): void => {
    if (failure !== null) return;
    for (const member of pool) {
      if (!member.started || member.job !== null) continue;
      const job = queue.shift();
      if (job === undefined) return;
      member.job = job;
      inFlight += 1;
      member.worker.postMessage(job.request);
    }
  };

  const answer = (member: PoolWorker, reply: MatchProveReply): void => {
    if (reply.type === 'ready') {
      // Before its first leg: the worker's whole proving life runs at the lowered priority.
      if (nice > 0) lowerThreadPriority(reply.tid, nice);
      member.started = true;
      dispatch();
      return;
    }
    if (reply.type === 'fatal') {
      fail(new MatchProvingError(`match prover worker failed to start: ${reply.message}`));
      return;
    }
    const job = member.job;
    assert(job !== null && job.request.id === reply.id, 'a worker answered the job it was given');
    member.job = null;
    inFlight -= 1;
    if (reply.type === 'proved') job.resolve({ statement: reply.statement, proof: reply.proof });
    else job.reject(new MatchProvingError(`leg could not be proved: ${reply.message}`));
    dispatch();
  };

  const startWorker = (): PoolWorker => {
    const worker = startTsWorker(new URL('./match-prove-worker.ts', import.meta.url), 'venue-match-prover');
    let member: PoolWorker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: MatchProveReply) => {
        answer(member, reply);
        if (reply.type === 'ready') resolve();
        if (reply.type === 'fatal') reject(failure);
      });
      worker.on('error', (error) => {
        reject(error);
        fail(error);
      });
      worker.on('exit', (code) => {
        if (failure === null) fail(new MatchProvingError(`match prover worker exited (code ${code})`));
      });
    });
    ready.catch(() => undefined); // observed through ready() and the failed jobs
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    member = { worker, ready, exited, started: false, job: null };
    return member;
  };

  const pool: PoolWorker[] = Array.from({ length: workerCount }, startWorker);

  const enqueue = (header: MatchBatchHeader, legs: readonly MatchLeg[]): Promise<MatchProof>[] => {
    if (failure !== null) throw failure;
    if (queue.length + inFlight + legs.length > queueMax) throw new MatchProverBusyError(queueMax);
    const proofs = legs.map(
      (leg) =>
        new Promise<MatchProof>((resolve, reject) => {
          queue.push({ request: { id: nextId++, header, leg }, resolve, reject });
        }),
    );
    dispatch();
    return proofs;
  };

  return {
    kind: 'groth16',
    async ready() {
      await Promise.all(pool.map((member) => member.ready));
    },
    async prove(header, leg) {
      const [proof] = enqueue(header, [leg]);
      assert(proof !== undefined, 'one proof per leg');
      return proof;
    },
    proveBatch: (header, legs) => Promise.all(enqueue(header, legs)),
    load: () => ({ queued: queue.length, inFlight, queueMax }),
    async close() {
      fail(new MatchProvingError('the match prover is closed'));
      await Promise.all(
        pool.map(async (member) => {
          // A worker still loading has no listener yet: it is stopped from outside.
          if (!member.started) await member.worker.terminate();
          else {
            member.worker.postMessage('close');
            await member.exited;
          }
        }),
      );
    },
  };
}
