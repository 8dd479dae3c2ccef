import type { VenueClock } from '@venue/adapters';
import type { ChainSimulator } from '@venue/chain-sim';

/**
 * The dev venue's clock when it settles: the chain simulator's own slot, not a second count of
 * wall time. Order expiries, settlement buffers and lock expiries are all chain slots, and the
 * pipeline's locks and deadlines are checked by the chain against its slot, so the venue must
 * never be a slot ahead of or behind it (docs/settlement.md section 8). The chain's slot never goes
 * back, not even in a reorg (the fork skips the dropped slots), so neither does this clock.
 */
export function chainSlotClock(chain: ChainSimulator, wallMs: () => number = Date.now): VenueClock {
  return {
    slotDurationMs: chain.config.slotMs,
    nowMs: () => Math.floor(wallMs()),
    slot: () => chain.slot,
    finalizedSlot: () => chain.finalizedSlot(),
  };
}
