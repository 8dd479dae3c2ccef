/**
 * A market's unsettled matches by match id (as a number, see matchKey). Ids are issued densely, in
 * order, a batch at a time, and settle roughly in order, so an array indexed from the oldest id
 * still pending holds them: a batch files its matches with appends. A `Map` keyed by number rebuilt
 * its table at every doubling instead, past 4,096 entries in V8's large-object space, which cost
 * about 0.5 ms of a 10,000-order batch on the development VM (core.md, "Sixth pass").
 *
 * Memory is the span from the oldest pending id to the newest. A match is pending until its
 * settlement outcome, and one still pending when its lock expires fails, so the span is what the
 * market matches within one lock duration. The front is trimmed as the oldest matches settle.
 * Generic over the row (venue-state.ts OrderRow), so this file needs nothing from the state's types.
 */
export class PendingMatches<Row> {
  /** Match id held at index 0 of `#rows`. */
  #base = 0;
  /** Rows by `id - #base`; undefined where a match settled or was never filed. */
  #rows: (Row | undefined)[] = [];
  /** No row below this index: where the oldest pending match is. */
  #head = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  get(id: number): Row | undefined {
    const at = id - this.#base;
    return at >= 0 && at < this.#rows.length ? this.#rows[at] : undefined;
  }

  set(id: number, row: Row): void {
    if (this.#size === 0) {
      this.#rows = [];
      this.#base = id;
      this.#head = 0;
    } else if (id < this.#base) {
      // Only a restore files matches out of order: make room at the front.
      const room = this.#base - id;
      this.#rows = [...new Array<undefined>(room).fill(undefined), ...this.#rows];
      this.#base = id;
      this.#head += room;
    }
    const at = id - this.#base;
    if (at < this.#head) this.#head = at;
    const rows = this.#rows;
    while (rows.length < at) rows.push(undefined);
    if (at === rows.length) rows.push(row);
    else {
      if (rows[at] === undefined) this.#size += 1;
      rows[at] = row;
      return;
    }
    this.#size += 1;
  }

  delete(id: number): boolean {
    const at = id - this.#base;
    const rows = this.#rows;
    if (!(at >= 0 && at < rows.length) || rows[at] === undefined) return false;
    rows[at] = undefined;
    this.#size -= 1;
    if (this.#size === 0) {
      this.#rows = [];
      this.#base = 0;
      this.#head = 0;
    } else if (at === this.#head) {
      this.#advanceHead();
    }
    return true;
  }

  /** Rows in match id order. */
  *values(): IterableIterator<Row> {
    const rows = this.#rows;
    for (let at = this.#head; at < rows.length; at++) {
      const row = rows[at];
      if (row !== undefined) yield row;
    }
  }

  /** [match id, row] in match id order. */
  *entries(): IterableIterator<[number, Row]> {
    const rows = this.#rows;
    for (let at = this.#head; at < rows.length; at++) {
      const row = rows[at];
      if (row !== undefined) yield [this.#base + at, row];
    }
  }

  /**
   * Moves the head past settled ids, and drops them once they are many and most of the array. The
   * head only moves forward and each copy keeps at most half the array, so the work is O(1) per
   * settled match over time however the matches settle.
   */
  #advanceHead(): void {
    const rows = this.#rows;
    let head = this.#head;
    while (head < rows.length && rows[head] === undefined) head += 1;
    if (head >= TRIM_AT_LEAST && head * 2 >= rows.length) {
      this.#rows = rows.slice(head);
      this.#base += head;
      head = 0;
    }
    this.#head = head;
  }
}

/** Settled ids at the front worth copying the array to drop. */
const TRIM_AT_LEAST = 1_024;
