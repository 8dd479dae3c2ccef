import type { CoreEvent } from '@venue/core';
import { assert, type PlaceOrder } from '@venue/protocol';
import { NOTE_OPENINGS_MAX } from '../config/limits.ts';
import type { JournalRecord } from '../journal/journal-record.ts';
import type { ProofChecks } from '../venue/intake-checks.ts';
import type { StateCompanion } from '../venue/state-companion.ts';

/**
 * What the enclave learns about a collateral note when an order's VALID_INPUT proof verifies: its
 * owner commitment and amount-independent inner hash (spec 2.1). Settlement needs both: the chain
 * keys locks and consumed entries by the note-use tag Poseidon(35, owner, inner), and the fill and
 * change notes take their blinding from the inner hash (so the owner can re-derive and spend them).
 * The core keeps neither (its state stays small and its hash stable), so the pipeline keeps them
 * here, in enclave memory only: never logged, never written in clear. They survive a restart as a
 * state companion of the sequencer (venue/state-companion.ts): stored in the sealed snapshots, and
 * rebuilt after the newest one from the journaled places, modifies and settlement outcomes (whose
 * `changeOpening` annotation carries the change note the pipeline derived).
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

/**
 * How an opening is stored in a snapshot: [commitment, owner, inner hash, derived, the id of the open
 * order booked on it]. The fifth element is absent for a derived note and in older snapshots.
 */
type StoredOpening = readonly [string, string, string, boolean, string?];

export class NoteOpenings implements StateCompanion {
  readonly name = 'note-openings';
  readonly #byCommitment = new Map<string, NoteOpening>();
  /**
   * Order id -> the note it was booked on, while the order is open. An order cancelled or expired
   * leaves its note backing nothing (a note backs one open order at a time), so its opening goes
   * (issue 20 soak: every cancelled order's opening used to stay until the 1,000,000-entry cap).
   */
  readonly #noteOf = new Map<string, string>();
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

  /**
   * An applied place or modify booked `order` (a repeat changes nothing). A reprice in place onto
   * another note releases the old one, whose opening then backs nothing.
   */
  #booked(order: PlaceOrder): void {
    this.rememberOrder(order);
    const before = this.#noteOf.get(order.order_id);
    this.#noteOf.set(order.order_id, order.note_commitment);
    if (before !== undefined && before !== order.note_commitment) this.forget(before);
  }

  save(): StoredOpening[] {
    const orderOf = new Map<string, string>();
    for (const [orderId, commitment] of this.#noteOf) orderOf.set(commitment, orderId);
    const stored: StoredOpening[] = [];
    for (const [commitment, o] of this.#byCommitment) {
      const orderId = orderOf.get(commitment);
      stored.push(
        orderId === undefined
          ? [commitment, o.ownerCommitment, o.innerHash, o.derived]
          : [commitment, o.ownerCommitment, o.innerHash, o.derived, orderId],
      );
    }
    return stored;
  }

  load(part: unknown): void {
    assert(Array.isArray(part), 'the note-openings part of a snapshot is a list');
    for (const entry of part as StoredOpening[]) {
      const [commitment, ownerCommitment, innerHash, derived, orderId] = entry;
      this.remember(commitment, { ownerCommitment, innerHash, derived });
      if (orderId !== undefined) this.#noteOf.set(orderId, commitment);
    }
  }

  /**
   * Applied records carry every opening the venue learns: orders in their commands, derived change
   * notes in the `changeOpening` annotation. This is the only writer of a change note's opening,
   * live and in recovery alike; an order's opening is also remembered when its proof verifies.
   */
  follow({ command, annotations }: JournalRecord, events: readonly CoreEvent[] = []): void {
    // Orders this record ended first: a modify's replacement may take the same note in this very
    // record, and is remembered again below. Only orders that never reached a settlement end here
    // (a cancel needs a resting order, expiry too); a settled note is forgotten by the pipeline.
    for (const event of events) {
      if (event.type !== 'order' || (event.kind !== 'cancelled' && event.kind !== 'expired')) continue;
      const commitment = this.#noteOf.get(event.orderId);
      if (commitment === undefined) continue;
      this.#noteOf.delete(event.orderId);
      this.forget(commitment);
    }
    if (command.type === 'place') this.#booked(command.order);
    else if (command.type === 'modify') this.#booked(command.request.replacement);
    else if (command.type === 'match_settled') {
      const change = annotations.changeOpening;
      if (change !== undefined) {
        this.remember(change.commitment, {
          ownerCommitment: change.ownerCommitment,
          innerHash: change.innerHash,
          derived: true,
        });
      }
    }
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
