import type { MatchProver } from '@venue/notes';

/**
 * The real match prover as the simulator's circuit seeds and the test venue use it: one pool of
 * workers for the whole run, lent to each boot (a boot's close does not stop it; a crash throws the
 * boot away, not the workers), and a barrier: `idle()` resolves once every proof asked for so far is
 * back and the pipeline has taken it. Waiting on it before each slot keeps a run's slots and batches
 * in the same order however long the proofs take (a loaded machine proves slowly, and a test's lock
 * window is a few dozen slots).
 */
export interface BarrierProver {
  /** The prover a boot gets. */
  readonly lent: MatchProver;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function barrierProver(inner: MatchProver): BarrierProver {
  const pending = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    const done = () => pending.delete(promise);
    promise.then(done, done);
    return promise;
  };
  const lent: MatchProver = {
    kind: inner.kind,
    ready: () => inner.ready(),
    prove: (header, leg) => track(inner.prove(header, leg)),
    proveBatch: (header, legs) => track(inner.proveBatch(header, legs)),
    load: () => inner.load(),
    close: async () => {},
    // A prover that answers at once stays one: the pipeline then proves within the beat.
    ...(inner.proveNow === undefined ? {} : { proveNow: inner.proveNow.bind(inner) }),
  };
  return {
    lent,
    async idle() {
      while (pending.size > 0) {
        await Promise.allSettled([...pending]);
        // The pipeline takes a batch's proofs in a callback of its own: let it run.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    close: () => inner.close(),
  };
}
