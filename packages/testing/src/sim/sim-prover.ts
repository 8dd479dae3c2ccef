import type { MatchProver } from '@venue/notes';

/**
 * The real match prover as the simulator uses it on its circuit seed (docs/simulation.md): one pool
 * of workers for the whole run, lent to each boot (a boot's close does not stop it; a crash throws
 * the boot away, not the workers), and a barrier: `idle()` resolves once every proof asked for so
 * far is back and the pipeline has taken it. The simulator waits on it before each chain slot, so a
 * seed's slots and batches follow the same order however long the proofs take.
 */
export interface SimProver {
  /** The prover a boot gets. */
  readonly lent: MatchProver;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function simProver(inner: MatchProver): SimProver {
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
