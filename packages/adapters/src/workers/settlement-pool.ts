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
  BatchSignature,
  ChainWork,
  DecodeJob,
  EncodeJob,
  SealJob,
  SettlementWork,
  SettlementWorkReply,
  SettlementWorkRequest,
  SignJob,
  WorkKind,
  WorkKinds,
} from './settlement-work.ts';

/**
 * The settlement pipeline's CPU work on a worker thread (docs/settlement.md section 12): per leg,
 * the Poseidon hashes of its plan, the sealing of its fill memo and, for a chain in stand-in mode,
 * its stand-in proof; per batch, its signature and the JSON-RPC text that carries it, and the
 * reading of the chain's replies. The sequencer's thread hands over compact inputs and applies the
 * results in the order it asked; what decides state (which groups lock, which batch is sealed, what
 * the core records) stays on the sequencer.
 *
 * Jobs asked in one event-loop turn go out together at the turn's end, cut into messages of
 * SETTLEMENT_WORKER_BATCH_JOBS_MAX, so a backlog costs one message per few hundred legs. One worker:
 * on a machine of two cores the other is the sequencer's, and one worker answers in order.
 */
interface Job {
  readonly kind: WorkKind;
  readonly input: unknown;
  /** Buffers that move to the worker with the job (a reply's bytes); detached here once sent. */
  readonly transfer: readonly ArrayBuffer[];
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** Messages handed to the worker per event-loop turn (each up to SETTLEMENT_WORKER_BATCH_JOBS_MAX jobs). */
const MESSAGES_PER_TURN = 2;

/**
 * A second message goes out in the same turn only if the first was cloned within this time: a
 * message of 256 proof requests, or a batch to sign, can take milliseconds to clone on its own.
 */
const FLUSH_SECOND_MESSAGE_MS = 1;

const WORKER_URL = new URL('./settlement-worker.ts', import.meta.url);

/** Most jobs move no buffer: one shared empty list rather than one per job. */
const NOTHING_TO_TRANSFER: readonly ArrayBuffer[] = Object.freeze([]);

export class SettlementPool implements SettlementWork, ChainWork {
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

  get depth(): number {
    return this.#jobs;
  }

  accepts(jobs: number): boolean {
    return !this.#closed && this.#jobs + jobs <= SETTLEMENT_WORKER_JOBS_MAX;
  }

  hashLegs(inputs: readonly LegHashInput[]): Promise<LegHashes[]> {
    return Promise.all(inputs.map((input) => this.#ask('hash', input)));
  }

  sealMemo(job: SealJob): Promise<FillMemo> {
    return this.#ask('seal', job);
  }

  signBatch(job: SignJob): Promise<BatchSignature> {
    return this.#ask('sign', job);
  }

  encode(job: EncodeJob): Promise<Uint8Array> {
    return this.#ask('encode', job);
  }

  /**
   * The reply's bytes move to the worker when they own their whole ArrayBuffer (the caller must not
   * read them after); bytes that share one (a slice of Node's Buffer pool) are copied, since moving
   * the buffer would empty every other view of it.
   */
  decode(job: DecodeJob): Promise<WorkKinds['decode']['result']> {
    const { bytes } = job;
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const moved = owned && bytes.buffer instanceof ArrayBuffer ? job : { ...job, bytes: bytes.slice() };
    return this.#ask('decode', moved, [moved.bytes.buffer as ArrayBuffer]);
  }

  /**
   * A stand-in match prover (notes match-stand-in.ts) whose legs are proved on this pool's worker:
   * what a real prover's workers cost the sequencer (a message per leg), with stand-in proofs.
   */
  standInProver(): MatchProver {
    const prove = (header: MatchBatchHeader, leg: MatchLeg): Promise<MatchProof> =>
      this.#ask('prove', { header, leg });
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
    for (const job of this.#queue.splice(0)) job.reject(stopping);
    this.#fail(stopping);
    await this.#worker.terminate();
  }

  #ask<K extends WorkKind>(
    kind: K,
    input: WorkKinds[K]['input'],
    transfer: readonly ArrayBuffer[] = NOTHING_TO_TRANSFER,
  ): Promise<WorkKinds[K]['result']> {
    if (this.#closed) return Promise.reject(new VenueError('SHUTTING_DOWN', 'the venue is stopping'));
    // Leg jobs wait for accepts(); a batch's few chain jobs are not counted against the bound.
    assert(
      kind === 'sign' || kind === 'encode' || kind === 'decode' || this.#jobs < SETTLEMENT_WORKER_JOBS_MAX,
      'leg work is handed over only when accepts() says so',
    );
    this.#jobs += 1;
    return new Promise((resolve, reject) => {
      this.#queue.push({ kind, input, transfer, resolve: resolve as (result: unknown) => void, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /**
   * Sends what the turn asked: consecutive jobs of one kind share a message. At most
   * MESSAGES_PER_TURN messages go out per turn, the second only when the first was quick to clone,
   * the rest on the next turns (in order): cloning a backlog's thousands of jobs at once (2,048 memos
   * to seal when a batch is final) held the thread ~10 ms.
   */
  #flush(): void {
    this.#flushScheduled = false;
    const queue = this.#queue;
    let from = 0;
    let messages = 0;
    const started = performance.now();
    while (
      from < queue.length &&
      messages < MESSAGES_PER_TURN &&
      (messages === 0 || performance.now() - started < FLUSH_SECOND_MESSAGE_MS)
    ) {
      const kind = (queue[from] as Job).kind;
      let to = from + 1;
      while (to < queue.length && to - from < SETTLEMENT_WORKER_BATCH_JOBS_MAX && queue[to]?.kind === kind) {
        to += 1;
      }
      const jobs = queue.slice(from, to);
      const id = this.#nextId++;
      this.#inFlight.set(id, jobs);
      const request: SettlementWorkRequest = { id, kind, jobs: jobs.map((job) => job.input) };
      // A reply's bytes move with their job (decode); every other job moves nothing.
      this.#worker.postMessage(
        request,
        jobs.flatMap((job) => job.transfer),
      );
      messages += 1;
      from = to;
    }
    this.#queue = queue.slice(from);
    if (this.#queue.length > 0) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
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
    ready.catch(() => {}); // observed by whoever awaits ready(); the jobs below reject loudly anyway
    worker.on('message', (reply: SettlementWorkReply) => {
      if (reply.kind === 'ready') readied();
      else this.#answer(reply.id, reply.outcomes);
    });
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

  #answer(id: number, outcomes: Extract<SettlementWorkReply, { kind: 'done' }>['outcomes']): void {
    const jobs = this.#inFlight.get(id);
    assert(
      jobs !== undefined && jobs.length === outcomes.length,
      'the settlement worker answers each job of a message',
    );
    this.#inFlight.delete(id);
    this.#jobs -= jobs.length;
    for (const [i, job] of jobs.entries()) {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      if ('ok' in outcome) job.resolve(outcome.ok);
      // A leg the stand-in cannot prove breaks a rule, as with the real prover (MatchProvingError).
      // Any other job's inputs are the venue's own: a failure there is a bug, and rejects loudly.
      else if (job.kind === 'prove') job.reject(new MatchProvingError(outcome.error));
      else job.reject(new Error(`settlement worker, ${job.kind}: ${outcome.error}`));
    }
  }

  /** A worker that died takes its jobs with it: they reject (the pipeline fails loudly). */
  #fail(error: Error): void {
    for (const jobs of this.#inFlight.values()) {
      this.#jobs -= jobs.length;
      for (const job of jobs) job.reject(error);
    }
    this.#inFlight.clear();
  }
}
