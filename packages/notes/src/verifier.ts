import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { assert, type PlaceOrder } from '@venue/protocol';
import type { AssetClaim } from './claims.ts';
import { isStubProof } from './proof-bytes.ts';
import { VerifiedClaims } from './verified-claims.ts';
import type { WorkerReply, WorkerRequest } from './verify-worker.ts';
import { startTsWorker } from './worker-threads.ts';

/**
 * The venue side of VALID_INPUT (docs/notes.md section 8): checks `valid_input_proof` at
 * intake in a pool of worker threads, so the sequencer never waits on a pairing. Requests queue in
 * a bounded queue; idle workers take shares of what is waiting (up to `batchMax` each) and check
 * each share as one batch, so batches grow with load and a lone order is checked alone at once.
 * A batch has a fixed cost (a final exponentiation and two Miller loops, about two and a half
 * proofs' worth), so under load an idle worker starts a batch only once `batchMinShare` proofs
 * wait for it, while another worker is busy (it takes what waits when it is done); an idle pool
 * starts at once on anything (decisions D89).
 */
export type ProofMode = 'groth16' | 'stub';

export interface ProofVerifierOptions {
  /** groth16: only real proofs pass. stub: the stub proof passes too (never on a venue that settles). */
  readonly mode: ProofMode;
  /** Whether matches settle on chain. A settling venue refuses stub mode at construction. */
  readonly settles: boolean;
  /**
   * The asset id the order's note must hold: assetIdOfMint(spentMint(order.side, market)). Called
   * on the caller's thread; it must know the order's symbol (intake checks that first).
   */
  readonly assetOf: (order: PlaceOrder) => bigint;
  /**
   * Worker threads. Default: one per core. Measured (`bench proofs`, docs/scaling.md): at the
   * rates proofs allow (hundreds of orders a second) the sequencer's thread is mostly idle, so a
   * core kept free for it wasted half of a 2-core machine's proof throughput; the OS shares the
   * cores between the workers and the sequencer's short turns.
   */
  readonly workers?: number;
  /** Most proofs waiting or being checked; beyond it verify rejects with VerifierBusyError. */
  readonly queueMax?: number;
  /** Most proofs one worker checks as one batch. */
  readonly batchMax?: number;
  /**
   * Fewest proofs an idle worker starts a batch with while another worker is busy, and the share
   * below which waiting proofs are not split between idle workers. 1 splits evenly at once.
   */
  readonly batchMinShare?: number;
  /**
   * Most valid claims remembered, so the same proof for the same note, root, key and asset (a
   * requote against the same note) is answered without a pairing (verified-claims.ts). 0 turns it
   * off: every proof goes to a worker.
   */
  readonly verifiedClaimsMax?: number;
}

export interface ProofVerifier {
  readonly mode: ProofMode;
  readonly settles: boolean;
  /** Resolves once every worker has loaded the pinned key; rejects if one cannot (e.g. drifted artifacts). */
  ready(): Promise<void>;
  /** True when the order's proof verifies for the public inputs its fields give. */
  verify(order: PlaceOrder): Promise<boolean>;
  /**
   * verify, and re-derive the note commitment from the order's owner commitment, inner hash and
   * `noteValue` on the same worker, off the caller's thread. `commitment` is null for a stub proof
   * (it never reaches a worker) or inputs outside the field.
   */
  verifyDeriving(order: PlaceOrder, noteValue: bigint): Promise<DerivedVerdict>;
  /** verify for many orders at once (one answer per order, same order); all or none are queued. */
  verifyMany(orders: readonly PlaceOrder[]): Promise<boolean[]>;
  /** Proofs waiting and being checked, and the limit. */
  load(): { queued: number; inFlight: number; queueMax: number };
  /** Verdicts answered from verified-claims.ts since start, and how many valid claims it keeps. */
  reuse(): { readonly reused: number; readonly kept: number };
  /** Stops the workers; pending verifications reject. */
  close(): Promise<void>;
}

export interface DerivedVerdict {
  readonly valid: boolean;
  readonly commitment: string | null;
}

export const VERIFIER_QUEUE_MAX_DEFAULT = 4096;
export const VERIFIER_BATCH_MAX_DEFAULT = 64;
/**
 * Measured on one thread (bench proofs, decisions D89): a proof costs about 2.1 ms in a batch and a
 * batch about 5 ms more, so a batch of 16 runs at 87 % of a batch of 64's rate and one of 4 at 56 %.
 */
export const VERIFIER_BATCH_MIN_SHARE_DEFAULT = 16;
export const VERIFIER_WORKERS_MAX = 64;
/**
 * About 370 bytes of heap a claim (measured: a base64 key, the derived commitment and the Map's
 * entry): 32,768 claims are about 12 MB, a remembered note for every open order of a few thousand
 * busy accounts.
 */
export const VERIFIED_CLAIMS_MAX_DEFAULT = 32_768;

/** The bounded queue is full: the venue should refuse the order as overloaded, not wait. */
export class VerifierBusyError extends Error {
  constructor(queueMax: number) {
    super(`proof verification is at capacity (${queueMax} proofs queued); retry shortly`);
    this.name = 'VerifierBusyError';
  }
}

/** Thrown at construction for a configuration the venue must not start with. */
export class VerifierConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VerifierConfigError';
  }
}

interface Pending {
  readonly claim: AssetClaim;
  /** The claim's key in `verified`, or null when claims are not remembered. */
  readonly key: string | null;
  readonly resolve: (verdict: DerivedVerdict) => void;
  readonly reject: (error: Error) => void;
}

interface PoolWorker {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  /** Set when the worker said it is ready: a message sent before that could be lost. */
  started: boolean;
  batch: readonly Pending[] | null;
}

export function createProofVerifier(options: ProofVerifierOptions): ProofVerifier {
  // Decisions section 4: stub proofs exist only where nothing settles.
  if (options.mode === 'stub' && options.settles) {
    throw new VerifierConfigError(
      'stub proofs are refused on a settlement-enabled venue: use mode groth16, or run without settlement',
    );
  }
  if (options.mode !== 'stub' && options.mode !== 'groth16') {
    throw new VerifierConfigError(`mode must be groth16 or stub, received ${String(options.mode)}`);
  }
  const workerCount = options.workers ?? Math.max(1, availableParallelism());
  const queueMax = options.queueMax ?? VERIFIER_QUEUE_MAX_DEFAULT;
  const batchMax = options.batchMax ?? VERIFIER_BATCH_MAX_DEFAULT;
  const batchMinShare = Math.min(options.batchMinShare ?? VERIFIER_BATCH_MIN_SHARE_DEFAULT, batchMax);
  if (!Number.isInteger(workerCount) || workerCount < 1 || workerCount > VERIFIER_WORKERS_MAX) {
    throw new VerifierConfigError(`workers must be 1 to ${VERIFIER_WORKERS_MAX}, received ${workerCount}`);
  }
  if (!Number.isInteger(queueMax) || queueMax < 1) throw new VerifierConfigError('queueMax must be >= 1');
  if (!Number.isInteger(batchMax) || batchMax < 1) throw new VerifierConfigError('batchMax must be >= 1');
  if (!Number.isInteger(batchMinShare) || batchMinShare < 1) {
    throw new VerifierConfigError('batchMinShare must be >= 1');
  }
  const verifiedMax = options.verifiedClaimsMax ?? VERIFIED_CLAIMS_MAX_DEFAULT;
  if (!Number.isInteger(verifiedMax) || verifiedMax < 0) {
    throw new VerifierConfigError('verifiedClaimsMax must be >= 0');
  }
  const verified = new VerifiedClaims(verifiedMax);

  const queue: Pending[] = [];
  let inFlight = 0;
  let pool: PoolWorker[] | null = null;
  let failure: Error | null = null;
  let nextId = 1;

  const fail = (error: Error): void => {
    failure ??= error;
    for (const item of queue.splice(0)) item.reject(error);
    for (const member of pool ?? []) {
      for (const item of member.batch ?? []) item.reject(error);
      member.batch = null;
    }
    inFlight = 0;
  };

  const startWorker = (): PoolWorker => {
    const worker = startTsWorker(new URL('./verify-worker.ts', import.meta.url), 'venue-proof-verifier');
    let member: PoolWorker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'ready') {
          member.started = true;
          resolve();
          dispatch();
        } else if (reply.type === 'fatal') {
          const error = new Error(`proof verification worker failed to start: ${reply.message}`);
          reject(error);
          fail(error);
        } else {
          settle(member, reply);
        }
      });
      worker.on('error', (error) => {
        reject(error);
        fail(error);
      });
      worker.on('exit', (code) => {
        if (failure === null) fail(new Error(`proof verification worker exited (code ${code})`));
      });
    });
    ready.catch(() => undefined); // observed through ready() and the failed requests
    member = { worker, ready, started: false, batch: null };
    return member;
  };

  const settle = (member: PoolWorker, reply: WorkerReply): void => {
    const batch = member.batch;
    member.batch = null;
    assert(batch !== null, 'a worker answered with no batch in flight');
    inFlight -= batch.length;
    if (reply.type === 'result') {
      assert(reply.results.length === batch.length, 'one result per claim');
      batch.forEach((item, i) => {
        const verdict = { valid: reply.results[i] === true, commitment: reply.commitments[i] ?? null };
        if (verdict.valid) verified.remember(item.key, verdict.commitment);
        item.resolve(verdict);
      });
    } else {
      const error = new Error(
        `proof verification failed: ${reply.type === 'failed' ? reply.message : reply.type}`,
      );
      for (const item of batch) item.reject(error);
    }
    dispatch();
  };

  const ensurePool = (): PoolWorker[] => {
    pool ??= Array.from({ length: workerCount }, startWorker);
    return pool;
  };

  /**
   * Starts as many idle, ready workers as the queue gives shares of at least batchMinShare (at
   * least one when no worker is busy), each with an even share up to batchMax.
   */
  const dispatch = (): void => {
    if (failure !== null || pool === null || queue.length === 0) return;
    const idle = pool.filter((m) => m.started && m.batch === null);
    const busy = pool.some((m) => m.batch !== null);
    const starting = Math.min(idle.length, Math.max(busy ? 0 : 1, Math.floor(queue.length / batchMinShare)));
    for (const [index, member] of idle.slice(0, starting).entries()) {
      if (queue.length === 0) return;
      const share = Math.min(batchMax, Math.ceil(queue.length / (starting - index)));
      const batch = queue.splice(0, share);
      member.batch = batch;
      inFlight += batch.length;
      const request: WorkerRequest = { id: nextId++, claims: batch.map((p) => p.claim) };
      member.worker.postMessage(request);
    }
  };

  const enqueue = (orders: readonly PlaceOrder[], noteValue?: bigint): Promise<DerivedVerdict>[] => {
    if (failure !== null) throw failure;
    // A stub proof never reaches a worker: it is not a curve point encoding at all. A claim verified
    // before is answered from `verified` and takes no queue space either.
    const asked = orders.map((order) => {
      if (isStubProof(order.valid_input_proof)) return null;
      const claim = claimOf(order, options.assetOf(order), noteValue);
      const key = verified.keyOf(claim);
      return { claim, key, known: verified.knows(key) };
    });
    const waiting = asked.filter((a) => a !== null && !a.known).length;
    if (queue.length + inFlight + waiting > queueMax) throw new VerifierBusyError(queueMax);
    if (waiting > 0) ensurePool();
    const answers = asked.map((a): Promise<DerivedVerdict> => {
      if (a === null) return Promise.resolve({ valid: options.mode === 'stub', commitment: null });
      const earlier = a.known ? verified.reuse(a.key) : undefined;
      if (earlier !== undefined) return Promise.resolve(earlier);
      const { claim, key } = a;
      return new Promise((resolve, reject) => queue.push({ claim, key, resolve, reject }));
    });
    dispatch();
    return answers;
  };

  if (options.mode === 'groth16') ensurePool();

  return {
    mode: options.mode,
    settles: options.settles,
    async ready() {
      await Promise.all(ensurePool().map((m) => m.ready));
    },
    async verify(order) {
      const [answer] = enqueue([order]);
      assert(answer !== undefined, 'one answer per order');
      return (await answer).valid;
    },
    async verifyDeriving(order, noteValue) {
      const [answer] = enqueue([order], noteValue);
      assert(answer !== undefined, 'one answer per order');
      return answer;
    },
    async verifyMany(orders) {
      return (await Promise.all(enqueue(orders))).map((verdict) => verdict.valid);
    },
    load: () => ({ queued: queue.length, inFlight, queueMax }),
    reuse: () => verified.stats(),
    async close() {
      const members = pool ?? [];
      fail(new Error('the proof verifier is closed'));
      await Promise.all(members.map((m) => m.worker.terminate()));
    },
  };
}

/** The fields a worker needs, copied so the worker never sees the rest of the order. */
function claimOf(order: PlaceOrder, assetId: bigint, noteValue: bigint | undefined): AssetClaim {
  const claim: AssetClaim = {
    ...(noteValue === undefined ? {} : { noteValue }),
    note_commitment: order.note_commitment,
    merkle_root: order.merkle_root,
    owner_commitment: order.owner_commitment,
    note_inner_hash: order.note_inner_hash,
    trading_key: order.trading_key,
    valid_input_proof: order.valid_input_proof,
    assetId,
  };
  return order.tree_id === undefined ? claim : { ...claim, tree_id: order.tree_id };
}
