import type { Worker } from 'node:worker_threads';
import {
  type MatchBatchHeader,
  type MatchLeg,
  type MatchProof,
  type MatchProver,
  MatchProvingError,
  startTsWorker,
} from '@venue/notes';
import { assert, type FillMemo, VenueError } from '@venue/protocol';
import { SETTLEMENT_WORKER_BATCH_JOBS_MAX, SETTLEMENT_WORKER_JOBS_MAX } from '../config/limits.ts';
import type { LegHashes, LegHashInput } from '../settlement/settling-match.ts';
import type {
  ProveJob,
  SealJob,
  SettlementWork,
  SettlementWorkReply,
  SettlementWorkRequest,
} from './settlement-work.ts';

/**
 * The settlement pipeline's per-leg CPU work on a worker thread (docs/settlement.md section 12):
 * the Poseidon hashes of a leg's plan, the sealing of its fill memo, and, for a chain in stand-in
 * mode, its stand-in proof. The sequencer's thread hands over compact inputs and applies the
 * results in the order it asked; what decides state (which groups lock, which batch is sealed, what
 * the core records) stays on the sequencer.
 *
 * Jobs asked in one event-loop turn go out together at the turn's end, cut into messages of
 * SETTLEMENT_WORKER_BATCH_JOBS_MAX, so a backlog costs one message per few hundred legs. One worker:
 * on a machine of two cores the other is the sequencer's, and one worker answers in order.
 */
type Job =
  | { readonly kind: 'hash'; readonly input: LegHashInput; readonly done: Settle<LegHashes> }
  | { readonly kind: 'seal'; readonly input: SealJob; readonly done: Settle<FillMemo> }
  | { readonly kind: 'prove'; readonly input: ProveJob; readonly done: Settle<MatchProof> };

interface Settle<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (error: Error) => void;
}

const WORKER_URL = new URL('./settlement-worker.ts', import.meta.url);

export class SettlementPool implements SettlementWork {
  #worker: Worker;
  #ready: Promise<void>;
  #queue: Job[] = [];
  readonly #inFlight = new Map<number, Job[]>();
  #jobs = 0;
  #nextId = 1;
  #flushScheduled = false;
  #closed = false;

  constructor() {
    ({ worker: this.#worker, ready: this.#ready } = this.#spawn());
  }

  /** Resolves once the worker has built its Poseidon WebAssembly. */
  ready(): Promise<void> {
    return this.#ready;
  }

  /** Jobs asked for and not yet answered. */
  get depth(): number {
    return this.#jobs;
  }

  accepts(jobs: number): boolean {
    return !this.#closed && this.#jobs + jobs <= SETTLEMENT_WORKER_JOBS_MAX;
  }

  hashLegs(inputs: readonly LegHashInput[]): Promise<LegHashes[]> {
    return Promise.all(
      inputs.map((input) => this.#ask<LegHashes>((done) => ({ kind: 'hash', input, done }))),
    );
  }

  sealMemo(input: SealJob): Promise<FillMemo> {
    return this.#ask<FillMemo>((done) => ({ kind: 'seal', input, done }));
  }

  /**
   * A stand-in match prover (notes match-stand-in.ts) whose legs are proved on this pool's worker:
   * what a real prover's workers cost the sequencer (a message per leg), with stand-in proofs.
   */
  standInProver(): MatchProver {
    const prove = (header: MatchBatchHeader, leg: MatchLeg) =>
      this.#ask<MatchProof>((done) => ({ kind: 'prove', input: { header, leg }, done }));
    return {
      kind: 'stand-in',
      ready: () => this.#ready,
      prove,
      proveBatch: (header, legs) => Promise.all(legs.map((leg) => prove(header, leg))),
      load: () => ({ queued: this.#jobs, inFlight: 0, queueMax: SETTLEMENT_WORKER_JOBS_MAX }),
      close: async () => {},
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    const stopping = new VenueError('SHUTTING_DOWN', 'the venue is stopping');
    for (const job of this.#queue.splice(0)) job.done.reject(stopping);
    this.#fail(stopping);
    await this.#worker.terminate();
  }

  #ask<T>(make: (done: Settle<T>) => Job): Promise<T> {
    if (this.#closed) return Promise.reject(new VenueError('SHUTTING_DOWN', 'the venue is stopping'));
    assert(this.#jobs < SETTLEMENT_WORKER_JOBS_MAX, 'the pipeline asks accepts() before handing work over');
    this.#jobs += 1;
    return new Promise<T>((resolve, reject) => {
      this.#queue.push(make({ resolve, reject }));
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Sends what the turn asked: consecutive jobs of one kind share a message. */
  #flush(): void {
    this.#flushScheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    let from = 0;
    while (from < queue.length) {
      const kind = (queue[from] as Job).kind;
      let to = from + 1;
      while (to < queue.length && to - from < SETTLEMENT_WORKER_BATCH_JOBS_MAX && queue[to]?.kind === kind)
        to += 1;
      const jobs = queue.slice(from, to);
      const id = this.#nextId++;
      this.#inFlight.set(id, jobs);
      this.#worker.postMessage({ id, kind, jobs: jobs.map((job) => job.input) } as SettlementWorkRequest);
      from = to;
    }
  }

  #spawn(): { worker: Worker; ready: Promise<void> } {
    const worker = startTsWorker(WORKER_URL, 'settlement-worker');
    worker.unref();
    let readied: () => void = () => {};
    let refused: (error: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      readied = resolve;
      refused = reject;
    });
    ready.catch(() => {}); // observed by whoever awaits ready(); a crash below is loud anyway
    worker.on('message', (reply: SettlementWorkReply) => this.#answer(reply, readied));
    worker.on('error', (error) => {
      refused(error);
      this.#fail(error);
    });
    worker.on('exit', (code) => {
      if (this.#closed) return;
      const error = new Error(`the settlement worker exited with code ${code}`);
      refused(error);
      this.#fail(error);
      ({ worker: this.#worker, ready: this.#ready } = this.#spawn());
    });
    return { worker, ready };
  }

  #answer(reply: SettlementWorkReply, readied: () => void): void {
    if (reply.kind === 'ready') {
      readied();
      return;
    }
    const jobs = this.#inFlight.get(reply.id);
    assert(jobs !== undefined, 'the settlement worker answered an unknown message');
    this.#inFlight.delete(reply.id);
    this.#jobs -= jobs.length;
    if (reply.kind === 'failed') {
      // A hash or a seal that throws is a bug of the venue's (its inputs are its own): loud.
      for (const job of jobs) job.done.reject(new Error(`settlement worker: ${reply.message}`));
      return;
    }
    assert(reply.results.length === jobs.length, 'the settlement worker answers every job');
    for (const [i, job] of jobs.entries()) {
      const result = reply.results[i];
      if (job.kind === 'prove') {
        const proof = result as MatchProof | { error: string };
        if ('error' in proof) job.done.reject(new MatchProvingError(proof.error));
        else job.done.resolve(proof);
      } else if (job.kind === 'hash') job.done.resolve(result as LegHashes);
      else job.done.resolve(result as FillMemo);
    }
  }

  /** A worker that died takes its jobs with it: they reject (the pipeline fails loudly). */
  #fail(error: Error): void {
    for (const jobs of this.#inFlight.values()) {
      this.#jobs -= jobs.length;
      for (const job of jobs) job.done.reject(error);
    }
    this.#inFlight.clear();
  }
}
