import type { PlaceOrder } from '@venue/protocol';
import type { ProofChecks } from '../venue/intake-checks.ts';
import { NOTE_OPENINGS_MAX } from './limits.ts';

/**
 * What the enclave learns about a collateral note when an order's VALID_INPUT proof verifies: its
 * owner commitment and amount-independent inner hash (spec 2.1). Settlement needs both: the chain
 * keys locks and consumed entries by the note-use tag Poseidon(35, owner, inner), and the fill and
 * change notes take their blinding from the inner hash (so the owner can re-derive and spend them).
 * The core keeps neither (its state stays small and its hash stable), so the pipeline keeps them
 * here, in enclave memory only: never logged, never written in clear.
 */
export interface NoteOpening {
  readonly ownerCommitment: string;
  readonly innerHash: string;
  /**
   * True for a change note the pipeline derived itself. Its order's proof was against an older
   * root that does not hold it, so its settlement names the chain's current root instead.
   */
  readonly derived: boolean;
}

export class NoteOpenings {
  readonly #byCommitment = new Map<string, NoteOpening>();
  readonly #max: number;

  constructor(max = NOTE_OPENINGS_MAX) {
    this.#max = max;
  }

  get size(): number {
    return this.#byCommitment.size;
  }

  /** Remembers the note of a verified order body (place, or a modify's replacement). */
  rememberOrder(order: PlaceOrder): void {
    this.remember(order.note_commitment, {
      ownerCommitment: order.owner_commitment,
      innerHash: order.note_inner_hash,
      derived: false,
    });
  }

  remember(commitment: string, opening: NoteOpening): void {
    // Refreshing moves the entry to the back, so the oldest untouched note is forgotten first.
    this.#byCommitment.delete(commitment);
    this.#byCommitment.set(commitment, opening);
    while (this.#byCommitment.size > this.#max) {
      const oldest = this.#byCommitment.keys().next().value;
      if (oldest === undefined) break;
      this.#byCommitment.delete(oldest);
    }
  }

  get(commitment: string): NoteOpening | undefined {
    return this.#byCommitment.get(commitment);
  }

  /** A consumed note can back nothing again. */
  forget(commitment: string): void {
    this.#byCommitment.delete(commitment);
  }
}

/**
 * Wraps the intake's proof checks: an order whose proof verified has its note's opening remembered.
 * The proof is what makes the opening trustworthy (it proves owner and inner hash re-derive the
 * committed note), so nothing is remembered for a refused order.
 */
export function rememberingProofChecks(inner: ProofChecks, openings: NoteOpenings): ProofChecks {
  return {
    async check(order) {
      await inner.check(order);
      openings.rememberOrder(order);
    },
  };
}
