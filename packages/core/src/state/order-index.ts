import { assert, type CancelReason, type SettlementFailureReason } from '@venue/protocol';
import type { CoreConfig } from '../config.ts';
import type { OrderEvent } from '../events.ts';
import { isTerminal, matchKey, type OrderRow, type VenueState } from './venue-state.ts';

/**
 * The indexes an order lives in, kept consistent in one place: booking adds it to all of them,
 * finishing removes it from all of them. validateInternalState() checks the result.
 */

export function book(state: VenueState, row: OrderRow): void {
  state.orders.set(row.orderId, row);
  state.bodies.set(row.bodyDigest, row.orderId);
  state.notes.set(row.note.commitment, { orderId: row.orderId });
  const market = state.markets.get(row.marketId);
  assert(market !== undefined, `book: unknown market ${row.marketId}`);
  market.live.add(row.orderId);
  setOf(state.openByAccount, row.accountId).add(row.orderId);
  if (row.connectionId !== null) setOf(state.byConnection, row.connectionId).add(row.orderId);
  wakeAt(state, row.expirySlot + 1n, row.orderId);
}

function setOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (set === undefined) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

/** Schedules a look at the order at `slot` (expiry, or end of retention). */
export function wakeAt(state: VenueState, slot: bigint, orderId: string): void {
  const at = slot < state.wakeupCursor ? state.wakeupCursor : slot;
  const list = state.wakeups.get(at);
  if (list === undefined) state.wakeups.set(at, [orderId]);
  else list.push(orderId);
}

export type Ending =
  | { kind: 'fully_filled' }
  | { kind: 'cancelled'; cancelReason: CancelReason }
  | { kind: 'expired' }
  | { kind: 'settlement_failed'; reason: SettlementFailureReason; lockExpirySlot: bigint };

/**
 * Moves an open order to its terminal state: out of the live indexes, its note released (or
 * blocked until the failed lock expires), kept queryable for the retention period. Returns the
 * spec 6.1 event, which is always the order's last.
 */
export function finish(state: VenueState, config: CoreConfig, row: OrderRow, ending: Ending): OrderEvent {
  assert(!isTerminal(row.state), `finish: order ${row.orderId} already ended as ${row.state}`);
  row.state = ending.kind;
  row.lastUpdateSlot = state.slot;
  state.markets.get(row.marketId)?.live.delete(row.orderId);
  const open = state.openByAccount.get(row.accountId);
  open?.delete(row.orderId);
  if (open?.size === 0) state.openByAccount.delete(row.accountId);
  dropConnection(state, row);
  if (row.pending !== null) state.pendingMatches.delete(matchKey(row.marketId, row.pending.matchId));
  row.pending = null;
  const hold = state.notes.get(row.note.commitment);
  if (hold !== undefined && 'orderId' in hold && hold.orderId === row.orderId)
    state.notes.delete(row.note.commitment);
  const event: {
    -readonly [K in keyof OrderEvent]: OrderEvent[K];
  } = {
    type: 'order',
    accountId: row.accountId,
    orderId: row.orderId,
    marketId: row.marketId,
    kind: ending.kind,
    slot: state.slot,
  };
  if (row.lastMatchId !== null && (ending.kind === 'fully_filled' || ending.kind === 'settlement_failed')) {
    event.matchId = row.lastMatchId;
  }
  if (ending.kind === 'fully_filled') event.filledQuantity = row.filled;
  if (ending.kind === 'cancelled') {
    row.cancelReason = ending.cancelReason;
    event.cancelReason = ending.cancelReason;
  }
  if (ending.kind === 'settlement_failed') {
    row.reason = ending.reason;
    row.lockExpirySlot = ending.lockExpirySlot;
    event.reason = ending.reason;
    event.lockExpirySlot = ending.lockExpirySlot;
    // spec 3.1: a fresh order may reuse the input only after the lock expires.
    state.notes.set(row.note.commitment, { lockedUntilSlot: ending.lockExpirySlot });
  }
  wakeAt(
    state,
    (row.expirySlot > state.slot ? row.expirySlot : state.slot) + config.retentionSlots,
    row.orderId,
  );
  return event;
}

export function dropConnection(state: VenueState, row: OrderRow): void {
  if (row.connectionId === null) return;
  const set = state.byConnection.get(row.connectionId);
  set?.delete(row.orderId);
  if (set?.size === 0) state.byConnection.delete(row.connectionId);
}

/** Forgets a finished order after its retention: its id and body may be used again. */
export function forget(state: VenueState, row: OrderRow): void {
  assert(isTerminal(row.state), `forget: order ${row.orderId} is still open`);
  state.orders.delete(row.orderId);
  if (state.bodies.get(row.bodyDigest) === row.orderId) state.bodies.delete(row.bodyDigest);
}
