import { assert } from '@venue/protocol';
import { COMMITMENT_MEMO_ENTRIES_MAX } from '../config/limits.ts';

type Derive = (ownerCommitment: string, innerHash: string, value: bigint) => string;

/**
 * The core re-derives every order's note commitment (spec 2.1 owner_commitment). With Poseidon that
 * is about 85 µs, too much for the sequencer thread, which would then cap the whole venue near
 * 12,000 places a second. So intake derives it on the proof-verification worker, off the sequencer,
 * and remembers the answer here; the core's injected `noteCommitment` (see `wrap`) finds it with one
 * map lookup. The core still makes the comparison itself, so its rule and its error code do not
 * change, and a derivation that is missing (a stub proof, replay at boot, an entry evicted under a
 * burst) is simply computed inline, as before. An entry is used once and then dropped.
 */
export class CommitmentMemo {
  readonly #entries = new Map<string, string>();
  readonly #max: number;
  #hits = 0;
  #misses = 0;

  constructor(max = COMMITMENT_MEMO_ENTRIES_MAX) {
    assert(Number.isInteger(max) && max >= 1, 'a commitment memo holds at least one entry');
    this.#max = max;
  }

  remember(ownerCommitment: string, innerHash: string, value: bigint, commitment: string): void {
    const key = keyOf(ownerCommitment, innerHash, value);
    this.#entries.delete(key);
    this.#entries.set(key, commitment);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The core's `noteCommitment`: the remembered derivation when there is one, else `derive` inline. */
  wrap(derive: Derive): Derive {
    return (ownerCommitment, innerHash, value) => {
      const key = keyOf(ownerCommitment, innerHash, value);
      const known = this.#entries.get(key);
      if (known === undefined) {
        this.#misses += 1;
        return derive(ownerCommitment, innerHash, value);
      }
      this.#entries.delete(key);
      this.#hits += 1;
      return known;
    };
  }

  /** Lookups answered from the memo and computed inline since start (operations telemetry). */
  get stats(): { readonly hits: number; readonly misses: number; readonly size: number } {
    return { hits: this.#hits, misses: this.#misses, size: this.#entries.size };
  }
}

function keyOf(ownerCommitment: string, innerHash: string, value: bigint): string {
  return `${ownerCommitment}${innerHash}${value}`;
}
