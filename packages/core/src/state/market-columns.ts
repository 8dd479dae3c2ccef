import { AssertionError, type NoFillReason } from '@venue/protocol';
import { grown } from '../typed-arrays.ts';

/**
 * What a batch reads of each open order of a market, kept in columns at booking (docs/core.md,
 * "Batch columns"). A batch visits the book in priority, which is a random order in memory: reading
 * the rows themselves there cost one or two cache misses per row and one more for each bigint they
 * point to, about half of a 10,000-order batch. With these columns the gathering pass and the
 * allocation walk read typed arrays indexed by the order's slot and touch rows only in intake order.
 *
 * Each open order holds a slot (row.slot) from booking until it ends; slots are reused. The
 * columns are derived state: restore rebuilds them by booking the open rows again, and
 * validateInternalState checks them against the rows.
 *
 * The columns also chain the open orders in intake order (the live list a batch numbers its
 * participants along) and mark which of them rest: numbering a batch's participants then reads
 * three typed arrays per order and no row, where walking rows cost a cache miss or more per order,
 * a quarter of a 100,000-order clear (decisions D146).
 */

/** Slots a market's columns start with; they double when full. */
const SLOTS_INITIAL = 64;

/**
 * What a batch's gathering reads of each slot lies in one record of 32 bytes, half a cache line:
 * remaining and minFill as float64 at SLOT_F64 * slot (+0, +1), then the trading key's and owner's
 * prints, the next slot of the level and the batch ref as int32 at SLOT_I32 * slot (+4 to +7). The
 * gathering visits a level's slots in time priority, which is no order in memory; with one array
 * per field each visit cost a cache miss per field, eight in all (D148).
 */
export const SLOT_F64 = 4;
export const SLOT_I32 = 8;
export const AT_REMAINING = 0;
export const AT_MIN_FILL = 1;
export const AT_KEY_PRINT = 4;
export const AT_OWNER_PRINT = 5;
export const AT_NEXT = 6;
export const AT_REF = 7;
/** The end of a price level's chain of slots. */
export const NO_SLOT = -1;

/**
 * The latest batch an order took part in and got nothing from, and why (GET /orders/{id}
 * `last_unfilled`; state/last-unfilled.ts). A batch shares one per reason among its orders.
 */
export interface LastUnfilled {
  readonly batch: bigint;
  readonly slot: bigint;
  readonly reason: NoFillReason;
}

/** What the columns read and write of an open order (venue-state.ts OrderRow is one). */
export interface ColumnRow {
  unfilledBatch: bigint | null;
  unfilledSlot: bigint | null;
  unfilledReason: NoFillReason | null;
  readonly orderId: string;
  readonly tradingKey: string;
  readonly owner: string;
  readonly remaining: bigint;
  readonly minFill: bigint;
  readonly fillOrKill: boolean;
  readonly levelPrev: ColumnRow | null;
  slot: number;
}

/** What the columns write of a price level (venue-state.ts PriceLevel is one). */
export interface ColumnLevel {
  headSlot: number;
}

export class MarketColumns<Row extends ColumnRow = ColumnRow> {
  /** slot -> the open row holding it (undefined when free). */
  rows: (Row | undefined)[] = [];
  /**
   * The slot records (see SLOT_F64): remaining and minFill as numbers (not exact beyond 2^53: a batch
   * then takes the bigint path) through `f64`; the prints, `next` and `ref` through `i32`, a view of
   * the same bytes. Read them with the accessors below, or with the offsets where a loop is hot.
   */
  f64 = new Float64Array(SLOTS_INITIAL * SLOT_F64);
  i32 = new Int32Array(this.f64.buffer);
  /** 1 for a fok order that has not had its arrival batch. */
  fillOrKill = new Uint8Array(SLOTS_INITIAL);
  /**
   * The order's own latest unfilled batch while it holds the slot (the row keeps it from when it
   * leaves): a batch explains its unfilled orders here, by slot, and reads no row (D148).
   */
  unfilled: (LastUnfilled | null)[] = [];
  /** 1 while the order counts as resting in its level (book-side.ts startResting/stopResting). */
  resting = new Uint8Array(SLOTS_INITIAL);
  /** The live list: every open order in intake order, chained by slot (NO_SLOT ends it). */
  liveNext = new Int32Array(SLOTS_INITIAL);
  livePrev = new Int32Array(SLOTS_INITIAL);
  liveHead = NO_SLOT;
  liveTail = NO_SLOT;
  /** Open orders: the live list's length. */
  liveSize = 0;
  readonly #free: number[] = [];
  #used = 0;

  /**
   * Gives an open row a slot, fills its columns and appends it to the live list: rows are taken in
   * intake order (booking, and restore rebooking the open rows in order), which keeps the list so.
   */
  take(row: Row): void {
    if (row.slot !== NO_SLOT) throw new AssertionError(`order ${row.orderId} already holds slot ${row.slot}`);
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#used;
      this.#used += 1;
      if (slot >= this.fillOrKill.length) this.#grow();
    }
    row.slot = slot;
    this.rows[slot] = row;
    this.setQuantities(row);
    this.fillOrKill[slot] = row.fillOrKill ? 1 : 0;
    const at = slot * SLOT_I32;
    this.i32[at + AT_KEY_PRINT] = fingerprint(row.tradingKey);
    this.i32[at + AT_OWNER_PRINT] = fingerprint(row.owner);
    this.i32[at + AT_NEXT] = NO_SLOT;
    this.i32[at + AT_REF] = -1;
    this.unfilled[slot] =
      row.unfilledBatch === null || row.unfilledSlot === null || row.unfilledReason === null
        ? null
        : { batch: row.unfilledBatch, slot: row.unfilledSlot, reason: row.unfilledReason };
    // Resting is counted by startResting once the row is in its level.
    this.resting[slot] = 0;
    const tail = this.liveTail;
    this.livePrev[slot] = tail;
    this.liveNext[slot] = NO_SLOT;
    if (tail === NO_SLOT) this.liveHead = slot;
    else this.liveNext[tail] = slot;
    this.liveTail = slot;
    this.liveSize += 1;
  }

  /** The row's remaining and minFill changed (a settlement): its columns follow. */
  setQuantities(row: Row): void {
    this.f64[row.slot * SLOT_F64 + AT_REMAINING] = Number(row.remaining);
    this.f64[row.slot * SLOT_F64 + AT_MIN_FILL] = Number(row.minFill);
  }

  release(row: Row): void {
    const slot = row.slot;
    if (this.rows[slot] !== row) throw new AssertionError(`order ${row.orderId} does not hold slot ${slot}`);
    if (this.resting[slot] !== 0)
      throw new AssertionError(`order ${row.orderId} leaves while counted as resting`);
    const previous = this.livePrev[slot] as number;
    const following = this.liveNext[slot] as number;
    if (previous === NO_SLOT) this.liveHead = following;
    else this.liveNext[previous] = following;
    if (following === NO_SLOT) this.liveTail = previous;
    else this.livePrev[following] = previous;
    this.liveSize -= 1;
    const unfilled = this.unfilled[slot] ?? null;
    if (unfilled !== null) {
      row.unfilledBatch = unfilled.batch;
      row.unfilledSlot = unfilled.slot;
      row.unfilledReason = unfilled.reason;
    }
    this.unfilled[slot] = null;
    this.rows[slot] = undefined;
    this.#free.push(slot);
    row.slot = NO_SLOT;
  }

  /** The newest open order (the live list's tail), or null when none is open. */
  newestRow(): Row | null {
    return this.liveTail === NO_SLOT ? null : (this.rows[this.liveTail] as Row);
  }

  /** Every open row in intake order: for the cold paths (reads, checks); a batch walks the slots. */
  liveRows(): Row[] {
    const rows: Row[] = [];
    for (let slot = this.liveHead; slot !== NO_SLOT; slot = this.liveNext[slot] as number) {
      rows.push(this.rows[slot] as Row);
    }
    return rows;
  }

  /** The row joined the tail of `level` (book-side.ts enterLevel has linked it). */
  chainAtTail(level: ColumnLevel, row: Row): void {
    const previous = row.levelPrev;
    if (previous === null) level.headSlot = row.slot;
    else this.setNext(previous.slot, row.slot);
    this.setNext(row.slot, NO_SLOT);
  }

  /** The row is about to leave `level` (before book-side.ts leaveLevel unlinks it). */
  unchain(level: ColumnLevel, row: Row): void {
    const following = this.next(row.slot);
    const previous = row.levelPrev;
    if (previous === null) level.headSlot = following;
    else this.setNext(previous.slot, following);
  }

  remaining(slot: number): number {
    return this.f64[slot * SLOT_F64 + AT_REMAINING] as number;
  }

  minFill(slot: number): number {
    return this.f64[slot * SLOT_F64 + AT_MIN_FILL] as number;
  }

  keyPrint(slot: number): number {
    return this.i32[slot * SLOT_I32 + AT_KEY_PRINT] as number;
  }

  ownerPrint(slot: number): number {
    return this.i32[slot * SLOT_I32 + AT_OWNER_PRINT] as number;
  }

  /** The next slot in the same price level (time priority), or NO_SLOT. */
  next(slot: number): number {
    return this.i32[slot * SLOT_I32 + AT_NEXT] as number;
  }

  setNext(slot: number, next: number): void {
    this.i32[slot * SLOT_I32 + AT_NEXT] = next;
  }

  /** The order's index among the current batch's participants, or -1 (numbering writes it). */
  ref(slot: number): number {
    return this.i32[slot * SLOT_I32 + AT_REF] as number;
  }

  setRef(slot: number, ref: number): void {
    this.i32[slot * SLOT_I32 + AT_REF] = ref;
  }

  #grow(): void {
    const size = this.fillOrKill.length * 2;
    this.f64 = grown(this.f64, new Float64Array(size * SLOT_F64));
    this.i32 = new Int32Array(this.f64.buffer);
    this.fillOrKill = grown(this.fillOrKill, new Uint8Array(size));
    this.resting = grown(this.resting, new Uint8Array(size));
    this.liveNext = grown(this.liveNext, new Int32Array(size));
    this.livePrev = grown(this.livePrev, new Int32Array(size));
  }
}

/** Characters a fingerprint reads: 16 hex characters carry 64 bits, folded to 32. */
const PRINT_CHARS = 16;

/**
 * A cheap hash of a string's first characters. Equal strings always get equal prints, so unequal
 * prints prove two identities differ; equal prints are confirmed by comparing the strings.
 */
export function fingerprint(text: string): number {
  let hash = 0x811c9dc5 ^ text.length;
  const end = text.length < PRINT_CHARS ? text.length : PRINT_CHARS;
  for (let at = 0; at < end; at += 1) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return hash;
}
