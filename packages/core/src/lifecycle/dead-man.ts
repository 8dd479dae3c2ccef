import { assert, DEAD_MAN_TIMEOUT_SLOTS_MAX, type DeadManStatus, VenueError } from '@venue/protocol';
import type { DeadManCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { type Ending, finish } from '../state/order-index.ts';
import type { DeadManTimer, VenueState } from '../state/venue-state.ts';

/**
 * The dead-man timer (cancel-all-after) of a trading account. A bot arms it with a timeout in
 * slots and keeps refreshing it while it is healthy; when the chain reaches the deadline before the
 * next refresh, the venue cancels every resting order of the account, as the disconnect sweep does
 * for one socket (spec 4.8 rule 2: server-initiated, no signature). It is counted in slots, not
 * wall time, so replaying the journal fires it at exactly the same point.
 *
 * The timer belongs to the account (the bearer token's holder), not to a trading key: the account
 * is what the token authenticates, a bot often drives several keys, and the spec's own
 * cancel-on-disconnect is an account-and-socket setting rather than a signed per-key one.
 */

const CANCELLED_BY_DEAD_MAN: Ending = { kind: 'cancelled', cancelReason: 'dead_man' };

/** Arms, refreshes (arms again) or disarms (timeoutSlots null). Refuses a bad timeout, changing nothing. */
export function applyDeadMan(state: VenueState, command: DeadManCommand): CoreEvent[] {
  const { accountId, timeoutSlots } = command;
  if (timeoutSlots === null) {
    state.deadMen.delete(accountId);
  } else {
    checkTimeout(timeoutSlots);
    state.deadMen.set(accountId, {
      armedSlot: state.slot,
      timeoutSlots,
      deadlineSlot: state.slot + timeoutSlots,
    });
  }
  return [{ type: 'dead_man_reply', accountId, response: deadManStatus(state, accountId) }];
}

function checkTimeout(timeoutSlots: bigint): void {
  if (timeoutSlots === 0n) {
    throw new VenueError(
      'DEAD_MAN_TIMEOUT_ZERO',
      'field `timeout_slots`: must be at least 1; to switch the timer off, disarm it (DELETE /account/dead-man)',
    );
  }
  if (timeoutSlots > DEAD_MAN_TIMEOUT_SLOTS_MAX) {
    throw new VenueError(
      'DEAD_MAN_TIMEOUT_TOO_LONG',
      `field \`timeout_slots\`: must be at most ${DEAD_MAN_TIMEOUT_SLOTS_MAX}, received ${timeoutSlots}; arm a shorter timer and refresh it`,
    );
  }
}

export function deadManStatus(state: VenueState, accountId: string): DeadManStatus {
  const timer = state.deadMen.get(accountId);
  if (timer === undefined) return { armed: false };
  return {
    armed: true,
    timeout_slots: timer.timeoutSlots,
    armed_slot: timer.armedSlot,
    deadline_slot: timer.deadlineSlot,
  };
}

/**
 * Runs at every tick, after expiries and before the batch auctions: each timer whose deadline has
 * come fires and is disarmed (a bot that wants it again arms it again). Resting orders end
 * `cancelled` (dead_man) in intake order; an order pending settlement keeps its match, and what
 * remains after the settlement is cancelled instead of resting again (settlement.ts).
 */
export function fireDeadMen(state: VenueState, config: CoreConfig, events: CoreEvent[]): void {
  if (state.deadMen.size === 0) return;
  const due: string[] = [];
  for (const [accountId, timer] of state.deadMen) {
    if (timer.deadlineSlot <= state.slot) due.push(accountId);
  }
  for (const accountId of due) {
    state.deadMen.delete(accountId);
    const rows = [];
    for (let row = state.accounts.get(accountId)?.head ?? null; row !== null; row = row.accountNext) {
      rows.push(row);
    }
    for (const row of rows) {
      if (row.state === 'resting') events.push(finish(state, config, row, CANCELLED_BY_DEAD_MAN));
      else if (row.state === 'pending_settlement') state.deadManSweeps.add(row.orderId);
    }
  }
}

export function fireDeadMenAtBoot(state: VenueState, config: CoreConfig): CoreEvent[] {
  const events: CoreEvent[] = [];
  fireDeadMen(state, config, events);
  return events;
}

/**
 * True when the dead-man timer fired while this order was pending settlement: its remainder is
 * cancelled rather than left resting. Consumes the mark.
 */
export function takeDeadManSweep(state: VenueState, orderId: string): boolean {
  return state.deadManSweeps.delete(orderId);
}

export const DEAD_MAN_CANCEL: Ending = CANCELLED_BY_DEAD_MAN;

/** validateInternalState: every timer lies ahead of the current slot, every sweep mark is pending. */
export function checkDeadMen(state: VenueState): void {
  for (const [accountId, timer] of state.deadMen) {
    assert(
      timer.deadlineSlot > state.slot,
      `dead-man timer of ${accountId} is past its deadline ${timer.deadlineSlot} at slot ${state.slot}`,
    );
    assert(
      timer.deadlineSlot === timer.armedSlot + timer.timeoutSlots,
      `dead-man timer of ${accountId}: bad deadline`,
    );
  }
  for (const orderId of state.deadManSweeps) {
    assert(
      state.orders.get(orderId)?.state === 'pending_settlement',
      `dead-man sweep mark on ${orderId}, which is not pending settlement`,
    );
  }
}

export type { DeadManTimer };
