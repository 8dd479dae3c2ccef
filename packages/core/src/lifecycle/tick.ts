import { assert } from '@venue/protocol';
import { runBatch } from '../batch/run-batch.ts';
import type { TickCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { compact, dropFinished, type Ending, finish, readableUntil } from '../state/order-index.ts';
import { isTerminal, type VenueState } from '../state/venue-state.ts';
import { fireDeadMen } from './dead-man.ts';

/**
 * The chain reached a new slot. First orders whose expiry_slot has passed expire (spec 3.1: the
 * slot after expiry_slot), finished orders past their readable window are compacted, and compacted
 * ones past their expiry are forgotten; then every market whose batch is due clears. Expiring
 * first means an order never trades after its expiry.
 */
export function applyTick(state: VenueState, config: CoreConfig, command: TickCommand): CoreEvent[] {
  assert(command.slot >= state.slot, `tick to slot ${command.slot} is behind the venue at ${state.slot}`);
  state.slot = command.slot;
  const events: CoreEvent[] = [];
  wakeUp(state, config, events);
  // Before the auctions: an account whose deadline has come trades in no batch at or after it.
  fireDeadMen(state, config, events);
  for (const market of state.markets.values()) {
    if (state.slot % market.config.batchIntervalSlots === 0n) runBatch(state, config, market, events);
  }
  return events;
}

/**
 * Visits the orders scheduled for every slot up to now, in slot order. A schedule entry may be
 * stale (the order was repriced, or ended earlier): each visit re-checks the order's current state.
 * Ticks usually advance one slot; after a long gap (a stalled chain) the scheduled slots are fewer
 * than the slots passed, so the walk goes over the schedule instead of over every slot.
 */
function wakeUp(state: VenueState, config: CoreConfig, events: CoreEvent[]): void {
  const gap = state.slot - state.wakeupCursor + 1n;
  const slots =
    gap <= BigInt(state.wakeups.size)
      ? Array.from({ length: Number(gap > 0n ? gap : 0n) }, (_, i) => state.wakeupCursor + BigInt(i))
      : [...state.wakeups.keys()]
          .filter((slot) => slot <= state.slot)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const slot of slots) {
    const due = state.wakeups.get(slot);
    if (due === undefined) continue;
    state.wakeups.delete(slot);
    for (const orderId of due) visit(state, config, orderId, events);
  }
  state.wakeupCursor = state.slot + 1n;
}

const EXPIRED: Ending = { kind: 'expired' };

function visit(state: VenueState, config: CoreConfig, orderId: string, events: CoreEvent[]): void {
  const row = state.orders.get(orderId);
  if (row === undefined) {
    dropFinished(state, orderId);
  } else if (row.state === 'resting' && row.expirySlot < state.slot) {
    events.push(finish(state, config, row, EXPIRED));
  } else if (isTerminal(row.state) && state.slot >= readableUntil(row, config)) {
    compact(state, row);
  }
}
