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

export class SkipLog {
  readonly #seen = new Map<number, number>();
  readonly #entries: SkipEntry[] = [];

  record(ref: number, reason: SkipReason): void {
    const seen = this.#seen.get(ref) ?? 0;
    const bit = REASON_BIT[reason];
    if ((seen & bit) !== 0) return;
    this.#seen.set(ref, seen | bit);
    this.#entries.push({ ref, reason });
  }

  get entries(): readonly SkipEntry[] {
    return this.#entries;
  }
}
