import { assert } from '@venue/protocol';
import { type ExpectedOutput, isKnownEmpty, outputKey } from './inferred-outputs.ts';
import { isUsable, type WalletNote } from './note-lifecycle.ts';

/**
 * The wallet's state in memory, rebuilt from its sealed log: the last record of each note wins, so
 * replaying the log after a restart gives back exactly the state before it. No I/O and no crypto
 * here: the wallet decides what to record, the book only holds it and answers queries.
 */

/** One line of the wallet's sealed log. */
export type WalletRecord =
  | { readonly kind: 'note'; readonly note: WalletNote }
  | { readonly kind: 'cursor'; readonly tree_id: number; readonly next: bigint }
  /** The order will back nothing more: a change note a later memo names is free at once. */
  | { readonly kind: 'order_end'; readonly order_id: string }
  /** A match output known without its memo; the last record of an output wins (inferred-outputs.ts). */
  | { readonly kind: 'expected'; readonly output: ExpectedOutput }
  /** The chain refused the note's deposit: it never existed, and the wallet forgets its opening. */
  | { readonly kind: 'deposit_refused'; readonly commitment: string };

/** Value per state for one mint. */
export interface Balance {
  readonly mint: string;
  /** Free notes in the tree (including ones locked after a failed settlement, see `locked`). */
  readonly spendable: bigint;
  /** Notes backing open orders. */
  readonly reserved: bigint;
  /** Free notes whose leaf the wallet has not seen yet. */
  readonly pending: bigint;
  /** The part of `spendable` that a failed settlement keeps locked until its slot. */
  readonly locked: bigint;
}

export class NoteBook {
  readonly #notes = new Map<string, WalletNote>();
  readonly #cursors = new Map<number, bigint>();
  readonly #ended = new Set<string>();
  readonly #expected = new Map<string, ExpectedOutput>();

  apply(record: WalletRecord): void {
    if (record.kind === 'note') this.#notes.set(record.note.commitment, record.note);
    else if (record.kind === 'cursor') this.#cursors.set(record.tree_id, record.next);
    else if (record.kind === 'expected') this.#expected.set(outputKey(record.output), record.output);
    else if (record.kind === 'deposit_refused') this.#notes.delete(record.commitment);
    else this.#ended.add(record.order_id);
  }

  /**
   * Expected outputs the wallet does not hold as notes yet (no memo, not found in the tree yet),
   * leaving out those known to hold nothing.
   */
  unresolved(): ExpectedOutput[] {
    return [...this.#expected.values()].filter(
      (output) =>
        !isKnownEmpty(output) && this.outputOf(output.order_id, output.match_id, output.role) === undefined,
    );
  }

  /** The expected output of `key`, if one was recorded. */
  expected(key: string): ExpectedOutput | undefined {
    return this.#expected.get(key);
  }

  note(commitment: string): WalletNote | undefined {
    return this.#notes.get(commitment);
  }

  notes(): WalletNote[] {
    return [...this.#notes.values()];
  }

  cursor(treeId: number): bigint {
    return this.#cursors.get(treeId) ?? 0n;
  }

  hasEnded(orderId: string): boolean {
    return this.#ended.has(orderId);
  }

  /** The notes reserved by `orderId` (one, except briefly during a modify onto another note). */
  backing(orderId: string): WalletNote[] {
    return this.notes().filter((note) => note.status === 'reserved' && note.reserved_by === orderId);
  }

  /**
   * The notes a fill of `orderId` in match `matchId` may have spent: those backing the order (not
   * created by that match) and those a fill of it consumed. The caller picks the one whose
   * derivations give the memo's notes, so a missed or reordered event cannot mislead it.
   */
  parentsOf(orderId: string, matchId: bigint): WalletNote[] {
    return this.notes().filter(
      (note) =>
        (note.status === 'reserved' && note.reserved_by === orderId && note.origin?.match_id !== matchId) ||
        note.spent_by?.order_id === orderId,
    );
  }

  /** Whether any note backs, backed or came from `orderId`. */
  knowsOrder(orderId: string): boolean {
    return this.notes().some(
      (note) =>
        note.reserved_by === orderId ||
        note.spent_by?.order_id === orderId ||
        note.origin?.order_id === orderId,
    );
  }

  /** The output `role` of match `matchId` of `orderId`, if the wallet already holds it. */
  outputOf(orderId: string, matchId: bigint, role: 'change' | 'received'): WalletNote | undefined {
    return this.notes().find(
      (note) =>
        note.origin?.order_id === orderId && note.origin.match_id === matchId && note.origin.role === role,
    );
  }

  /** The smallest usable note of `mint` worth at least `amount` (the least value locked up). */
  pick(mint: string, amount: bigint, slot?: bigint): WalletNote | undefined {
    let best: WalletNote | undefined;
    for (const note of this.#notes.values()) {
      if (note.mint !== mint || note.value < amount || !isUsable(note, slot)) continue;
      if (best === undefined || note.value < best.value) best = note;
    }
    return best;
  }

  balances(): Balance[] {
    const sums = new Map<string, { spendable: bigint; reserved: bigint; pending: bigint; locked: bigint }>();
    for (const note of this.#notes.values()) {
      if (note.status === 'spent') continue;
      const sum = sums.get(note.mint) ?? { spendable: 0n, reserved: 0n, pending: 0n, locked: 0n };
      sum[note.status] += note.value;
      if (note.status === 'spendable' && note.locked_until_slot !== undefined) sum.locked += note.value;
      sums.set(note.mint, sum);
    }
    return [...sums].map(([mint, sum]) => ({ mint, ...sum })).sort((a, b) => a.mint.localeCompare(b.mint));
  }

  /** The state machine's invariants over every note; throws AssertionError naming the first broken. */
  validate(): void {
    for (const note of this.#notes.values()) {
      const id = note.commitment.slice(0, 16);
      assert(note.value > 0n, `note ${id}: the chain holds no empty notes`);
      assert((note.status === 'reserved') === (note.reserved_by !== undefined), `note ${id}: reserved_by`);
      if (note.status === 'spendable')
        assert(note.leaf_index !== undefined, `note ${id}: spendable needs a leaf`);
      if (note.status === 'pending') assert(note.leaf_index === undefined, `note ${id}: pending has no leaf`);
      if (note.withdraw_to !== undefined)
        assert(note.status === 'spendable', `note ${id}: only a spendable note is being withdrawn`);
    }
  }
}
