/**
 * The venue's view of time: wall-clock milliseconds for timestamps, and the chain's slot for every
 * rule that the spec writes in slots (expiry, lock expiry, settlement buffer). The HTTP layer and
 * later the core receive it as an argument and never read a clock themselves, so tests can drive
 * it and the chain simulator can replace the dev adapter without touching its users.
 */
export interface VenueClock {
  /** Unix milliseconds. */
  nowMs(): number;
  /** Newest chain slot the venue has observed. Never decreases. */
  slot(): bigint;
  /** Newest slot the venue considers final; at most `slot()`. */
  finalizedSlot(): bigint;
  /** Nominal length of one slot. */
  readonly slotDurationMs: number;
}
