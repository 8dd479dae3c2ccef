import type { DisconnectCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { type Ending, finish } from '../state/order-index.ts';
import type { VenueState } from '../state/venue-state.ts';

/**
 * spec 4.8 rule 2: when a socket with cancel-on-disconnect closes, its orders that still rest are
 * cancelled by the venue (no signature needed). Orders filled, expired or cancelled are left as they
 * are. An order pending settlement keeps its match; once it settles, its remainder is cancelled
 * rather than left resting for a client that asked not to leave orders behind.
 */
const CANCELLED_BY_DISCONNECT: Ending = { kind: 'cancelled', cancelReason: 'disconnect' };

export function applyDisconnect(
  state: VenueState,
  config: CoreConfig,
  command: DisconnectCommand,
): CoreEvent[] {
  // A copy: finishing an order takes it out of the connection's set.
  const rows = [...(state.byConnection.get(command.connectionId) ?? [])];
  const events: CoreEvent[] = [];
  for (const row of rows) {
    if (row.state === 'resting') events.push(finish(state, config, row, CANCELLED_BY_DISCONNECT));
    else if (row.state === 'pending_settlement') row.sweepAfterSettlement = true;
  }
  state.byConnection.delete(command.connectionId);
  return events;
}
