import type { VenueClock } from '@venue/adapters';

/**
 * A clock the test drives by hand: wall time and chain slot move only when told to, so expiry,
 * token lifetimes and batch clearing can be checked at exact instants.
 */
export class ManualClock implements VenueClock {
  readonly slotDurationMs: number;
  #nowMs: number;
  #slot: bigint;

  constructor(options: { nowMs?: number; slot?: bigint; slotDurationMs?: number } = {}) {
    this.#nowMs = options.nowMs ?? 1_800_000_000_000;
    this.#slot = options.slot ?? 1000n;
    this.slotDurationMs = options.slotDurationMs ?? 400;
  }

  nowMs(): number {
    return this.#nowMs;
  }

  slot(): bigint {
    return this.#slot;
  }

  finalizedSlot(): bigint {
    return this.#slot > 32n ? this.#slot - 32n : 0n;
  }

  /** Moves wall time forward (never back: the venue's clocks only move forward). */
  advanceMs(ms: number): void {
    if (ms < 0) throw new Error('a manual clock only moves forward');
    this.#nowMs += ms;
  }

  setNowMs(nowMs: number): void {
    if (nowMs < this.#nowMs) throw new Error('a manual clock only moves forward');
    this.#nowMs = nowMs;
  }

  /** Moves the chain forward by `slots`, and wall time with it. */
  advanceSlots(slots: bigint): void {
    this.#slot += slots;
    this.#nowMs += Number(slots) * this.slotDurationMs;
  }
}
