import type { CoreEvent } from '@venue/core';
import { assert, type PlaceOrder, TERMINAL_ORDER_STATES } from '@venue/protocol';
import { NOTE_OPENINGS_MAX } from '../config/limits.ts';
import type { JournalRecord } from '../journal/journal-record.ts';
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
 * order resting on it]. Snapshots before issue 20 leave the fifth element out for a change note.
 */
type StoredOpening = readonly [string, string, string, boolean, string?];

export class NoteOpenings implements StateCompanion {
  readonly name = 'note-openings';
  readonly #byCommitment = new Map<string, NoteOpening>();
  /**
   * Order id -> the note it rests on (or waits to settle on), while the order is open: the note it
   * was booked on, then each change note a partial fill moves its remainder onto. An order that
   * ends leaves its note backing nothing (a note backs one open order at a time), so its opening
   * goes (issue 20: cancelled orders' openings, and every change note, stayed until the cap).
   */
  readonly #noteOf = new Map<string, string>();
  readonly #max: number;

  constructor(max = NOTE_OPENINGS_MAX) {
    this.#max = max;
  }

  get size(): number {
    return this.#byCommitment.size;
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
    // Its proof verified at intake: owner and inner hash re-derive the committed note.
    this.remember(order.note_commitment, {
      ownerCommitment: order.owner_commitment,
      innerHash: order.note_inner_hash,
      derived: false,
    });
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
   * notes in the `changeOpening` annotation. This is the only writer, live and in recovery alike, and
   * it keeps an opening exactly while an open order rests on (or waits to settle) its note, so the
   * openings never outnumber the open orders: at most ACCOUNT_OPEN_ORDERS_MAX per account
   * (docs/security.md). Whatever ends an order, a cancel, an expiry, a fill or a failed settlement,
   * drops its note's opening, and a change note is kept only while the remainder rests on it.
   */
  follow({ command, annotations }: JournalRecord, events: readonly CoreEvent[] = []): void {
    const change = command.type === 'match_settled' ? annotations.changeOpening : undefined;
    // Events first: a modify's replacement may take the note its old order released in this very
    // record, and is booked again below.
    for (const event of events) {
      if (event.type !== 'order') continue;
      if (event.kind === 'partially_filled') {
        // The chain consumed the order's note; its remainder rests on the change note (core
        // lifecycle/settlement.ts). An ending in the same record (ioc, expiry) then drops that too.
        this.#release(event.orderId);
        if (change !== undefined) {
          this.remember(change.commitment, {
            ownerCommitment: change.ownerCommitment,
            innerHash: change.innerHash,
            derived: true,
          });
          this.#noteOf.set(event.orderId, change.commitment);
        }
      } else if (ENDINGS.has(event.kind)) this.#release(event.orderId);
    }
    const booked =
      command.type === 'place'
        ? command.order
        : command.type === 'modify'
          ? command.request.replacement
          : null;
    if (booked === null) return;
    this.#booked(booked);
    // An order that ended in the record that booked it backs nothing either.
    if (events.some((e) => e.type === 'order' && e.orderId === booked.order_id && ENDINGS.has(e.kind))) {
      this.#release(booked.order_id);
    }
  }

  /** The order no longer rests on its note: the opening backs nothing (a note backs one order). */
  #release(orderId: string): void {
    const commitment = this.#noteOf.get(orderId);
    if (commitment === undefined) return;
    this.#noteOf.delete(orderId);
    this.forget(commitment);
  }
}

const ENDINGS: ReadonlySet<string> = new Set(TERMINAL_ORDER_STATES);
