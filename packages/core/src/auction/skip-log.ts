/**
 * The record of orders the auction passed over, one entry per (order, reason) in order of first
 * occurrence. An order can carry each of the four reasons at most once, so the log never holds more
 * than four entries per order, however many pairs the allocation walk looks at.
 */
import type { SkipReason } from './types.ts';

const REASON_BIT: Readonly<Record<SkipReason, number>> = {
  min_fill: 1,
  self_trade: 2,
  fill_or_kill: 4,
  zero_quote: 8,
};

export interface SkipEntry {
  readonly ref: number;
  readonly reason: SkipReason;
}

/**
 * Which reasons each order already carries. Refs below `denseRefs` (the core numbers its orders
 * 0..n-1) use a byte array, so the check the allocation makes on every pair it passes over costs no
 * hashing; any other ref falls back to a Map.
 */
export class SkipLog {
  readonly #dense: Uint8Array;
  readonly #sparse = new Map<number, number>();
  readonly #entries: SkipEntry[] = [];

  constructor(denseRefs = 0) {
    this.#dense = new Uint8Array(denseRefs);
  }

  record(ref: number, reason: SkipReason): void {
    const bit = REASON_BIT[reason];
    const dense = ref >= 0 && ref < this.#dense.length;
    const seen = dense ? (this.#dense[ref] as number) : (this.#sparse.get(ref) ?? 0);
    if ((seen & bit) !== 0) return;
    if (dense) this.#dense[ref] = seen | bit;
    else this.#sparse.set(ref, seen | bit);
    this.#entries.push({ ref, reason });
  }

  get entries(): readonly SkipEntry[] {
    return this.#entries;
  }
}

/**
 * A SkipLog that lives as long as the process. An instance gets its fields by map transitions,
 * which V8 holds weakly: a full collection that finds no SkipLog alive drops the map, and with it
 * every optimised function that checks for it (the allocation walk inlines `record`). The next batch
 * then walks unoptimised until the compiler catches up, which made a hostile 10,000-order batch
 * several times slower after each collection (docs/core.md, "Fifth pass"). This one keeps the map.
 */
export const SKIP_LOG_SHAPE_KEEPER = new SkipLog();
