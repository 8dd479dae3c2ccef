import { assert } from '@venue/protocol';
import { FINALITY_DEPTH_SLOTS, SLOT_DURATION_MS } from '../config/limits.ts';
import type { VenueClock } from './clock.ts';

/**
 * Dev-mode stand-in for the chain clock: slot 0 at boot, one more every `slotDurationMs`, and a
 * slot final `finalityDepthSlots` later. Slots are counted on the monotonic clock so that a wall
 * clock step (NTP, a suspended laptop) can never make them go backwards. The chain simulator
 * replaces this adapter once it exists.
 */
export interface WallSlotClockOptions {
  slotDurationMs?: number;
  finalityDepthSlots?: bigint;
  /** Wall clock, Unix milliseconds. */
  wallMs?: () => number;
  /** Monotonic clock, milliseconds from an arbitrary origin. */
  monotonicMs?: () => number;
  /**
   * Wall time at which slot 0 began. Without it slot 0 is this boot; a venue that keeps state across
   * restarts passes its first boot's time, so slots carry on where the journal left them instead of
   * starting over (orders' expiry slots would otherwise lie far in the future of a restarted clock).
   */
  genesisMs?: number;
}

export function createWallSlotClock(options: WallSlotClockOptions = {}): VenueClock {
  const slotDurationMs = options.slotDurationMs ?? SLOT_DURATION_MS;
  const finalityDepthSlots = options.finalityDepthSlots ?? FINALITY_DEPTH_SLOTS;
  const wallMs = options.wallMs ?? Date.now;
  const monotonicMs = options.monotonicMs ?? (() => performance.now());
  assert(Number.isInteger(slotDurationMs) && slotDurationMs > 0, 'slotDurationMs must be a positive integer');
  assert(finalityDepthSlots >= 0n, 'finalityDepthSlots must not be negative');
  const originMs =
    options.genesisMs === undefined
      ? monotonicMs()
      : monotonicMs() - Math.max(0, wallMs() - options.genesisMs);

  const slot = (): bigint => {
    const elapsedMs = Math.max(0, monotonicMs() - originMs);
    return BigInt(Math.floor(elapsedMs / slotDurationMs));
  };
  return {
    slotDurationMs,
    nowMs: () => Math.floor(wallMs()),
    slot,
    finalizedSlot: () => {
      const current = slot();
      return current > finalityDepthSlots ? current - finalityDepthSlots : 0n;
    },
  };
}
