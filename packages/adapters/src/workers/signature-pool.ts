import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { assert, isAcceptableTradingKey, VenueError } from '@venue/protocol';
import { SIGNATURE_BATCH_JOBS_MAX, SIGNATURE_QUEUE_JOBS_MAX } from '../config/limits.ts';

/**
 * Ed25519 verification off the sequencer's thread (design decisions section 6). Requests queue
 * their (key, digest, signature) triples; once per event-loop turn the queue is cut into batches
 * and handed to the least busy worker, so a burst costs one message per batch rather than one per
 * signature. The queue is bounded: beyond SIGNATURE_QUEUE_JOBS_MAX waiting checks a request is
 * refused at once with 503 VENUE_BUSY instead of waiting without limit.
 */
interface Pending {
  readonly job: SignatureJob;
  readonly resolve: (valid: boolean) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  readonly inFlight: Map<number, Pending[]>;
}

/** A plain-JavaScript worker (Node 20 does not run the tsx loader in worker threads). */
const WORKER_URL = new URL('./signature-worker.mjs', import.meta.url);

/** One signature to check, as the worker receives it. */
interface SignatureJob {
  readonly publicKey: string;
  readonly digest: Uint8Array;
  readonly signature: string;
}

export class SignaturePool {
  readonly #slots: WorkerSlot[];
  #queue: Pending[] = [];
  #waiting = 0;
  #flushScheduled = false;
  #nextBatchId = 1;
  #closed = false;

  constructor(workers = Math.max(1, availableParallelism() - 1)) {
    assert(workers >= 1, 'a signature pool needs at least one worker');
    this.#slots = Array.from({ length: workers }, () => this.#spawn());
  }

  /** Signature checks asked for and not yet answered (queued or on a worker). */
  get queueDepth(): number {
    return this.#waiting;
  }

  /** Resolves true when the signature verifies under the protocol's Ed25519 rule (verifyDigest). */
  verify(publicKey: string, digest: Uint8Array, signature: string): Promise<boolean> {
    // The key rule and the shape checks run here, so the worker only does curve arithmetic.
    if (signature.length !== 128 || !/^[0-9a-f]*$/.test(signature) || !isAcceptableTradingKey(publicKey)) {
      return Promise.resolve(false);
    }
    if (this.#closed) return Promise.reject(new VenueError('SHUTTING_DOWN', 'the venue is stopping'));
    if (this.#waiting >= SIGNATURE_QUEUE_JOBS_MAX) {
      return Promise.reject(
        new VenueError(
          'VENUE_BUSY',
          'the venue is verifying as many signatures as it can; retry in a moment',
        ),
      );
    }
    this.#waiting += 1;
    return new Promise((resolve, reject) => {
      this.#queue.push({ job: { publicKey, digest, signature }, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((slot) => slot.worker.terminate()));
  }

  #flush(): void {
    this.#flushScheduled = false;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, SIGNATURE_BATCH_JOBS_MAX);
      const slot = this.#slots.reduce((a, b) => (load(b) < load(a) ? b : a));
      const batchId = this.#nextBatchId++;
      slot.inFlight.set(batchId, batch);
      const message = { batchId, jobs: batch.map((p) => p.job) };
      slot.worker.postMessage(message);
    }
  }

  #spawn(): WorkerSlot {
    const worker = new Worker(WORKER_URL);
    const slot: WorkerSlot = { worker, inFlight: new Map() };
    worker.unref();
    worker.on('message', ({ batchId, results }: { batchId: number; results: boolean[] }) => {
      const batch = slot.inFlight.get(batchId);
      assert(
        batch !== undefined && batch.length === results.length,
        'signature worker answered an unknown batch',
      );
      slot.inFlight.delete(batchId);
      this.#waiting -= batch.length;
      for (const [i, pending] of batch.entries()) pending.resolve(results[i] === true);
    });
    // A worker that dies takes its batches with it: fail them (500, retryable) and replace it.
    worker.on('error', (error) => this.#fail(slot, error));
    worker.on('exit', (code) => {
      if (this.#closed) return;
      this.#fail(slot, new Error(`signature worker exited with code ${code}`));
      const index = this.#slots.indexOf(slot);
      if (index >= 0) this.#slots[index] = this.#spawn();
    });
    return slot;
  }

  #fail(slot: WorkerSlot, error: Error): void {
    for (const batch of slot.inFlight.values()) {
      this.#waiting -= batch.length;
      for (const pending of batch) pending.reject(error);
    }
    slot.inFlight.clear();
  }
}

function load(slot: WorkerSlot): number {
  let jobs = 0;
  for (const batch of slot.inFlight.values()) jobs += batch.length;
  return jobs;
}
