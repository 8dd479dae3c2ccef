import { AssertionError, type CancelReason, type SettlementFailureReason } from '@venue/protocol';
import type { CoreConfig } from '../config.ts';
import type { OrderEvent } from '../events.ts';
import { enterLevel, leaveLevel, sideOf } from './book-side.ts';
import { keepLastUnfilled } from './last-unfilled.ts';
import { appendAccount, unlinkAccount } from './order-lists.ts';
import { release } from './pending-match.ts';
import {
  type AccountState,
  isTerminal,
  type OrderRow,
  type PriceLevel,
  type VenueState,
} from './venue-state.ts';

/**
 * The indexes an order lives in, kept consistent in one place: booking adds it to all of them,
 * finishing removes it from all of them. validateInternalState() checks the result.
 */

/** The account's open-order bookkeeping, created with its first open order. */
export function accountFor(state: VenueState, accountId: string): AccountState {
  let account = state.accounts.get(accountId);
  if (account === undefined) {
    account = { accountId, open: 0, head: null, tail: null };
    state.accounts.set(accountId, account);
  }
  return account;
}

/** Adds a new open order to every index and schedules its expiry. */
export function book(state: VenueState, row: OrderRow, account: AccountState): void {
  state.orders.set(row.orderId, row);
  state.notes.set(row.note.commitment, row);
  linkOpen(state, row, account);
  wakeAt(state, row.expirySlot + 1n, row.orderId);
}

/** The open-order indexes alone (booking, and rebuilding them on restore). */
export function linkOpen(state: VenueState, row: OrderRow, account: AccountState): void {
  if (account.accountId !== row.accountId) {
    throw new AssertionError(`order ${row.orderId} filed under account ${account.accountId}`);
  }
  const columns = row.market.columns;
  columns.take(row);
  enterLevel(sideOf(row.market, row.side), row);
  columns.chainAtTail(row.level as PriceLevel, row);
  appendAccount(account, row);
  if (row.connectionId !== null) connectionSet(state, row.connectionId).add(row);
  if (row.orderType !== 'limit' && !row.arrivalBatchDone) row.market.arrivalBatchDue.add(row);
}

/** Takes an open order out of the open-order indexes (it ends, or a reprice replaces it). */
export function unlinkOpen(state: VenueState, row: OrderRow): void {
  const columns = row.market.columns;
  columns.unchain(row.level as PriceLevel, row);
  leaveLevel(sideOf(row.market, row.side), row);
  columns.release(row);
  const account = unlinkAccount(row);
  if (account.open === 0) state.accounts.delete(account.accountId);
  dropConnection(state, row);
  row.market.arrivalBatchDue.delete(row);
}

function connectionSet(state: VenueState, connectionId: string): Set<OrderRow> {
  let set = state.byConnection.get(connectionId);
  if (set === undefined) {
    set = new Set();
    state.byConnection.set(connectionId, set);
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
 * Moves an open order to its terminal state: out of the open indexes, its note released (or
 * blocked until the failed lock expires), kept readable for the retention period. Returns the
 * spec 6.1 event, which is always the order's last.
 */
export function finish(state: VenueState, config: CoreConfig, row: OrderRow, ending: Ending): OrderEvent {
  if (isTerminal(row.state)) {
    throw new AssertionError(`finish: order ${row.orderId} already ended as ${row.state}`);
  }
  // What its last batch told it stays readable once it has ended (state/last-unfilled.ts).
  keepLastUnfilled(row);
  // Unlinked in its open state first: its level counts it as resting or not by that state.
  unlinkOpen(state, row);
  row.state = ending.kind;
  row.lastUpdateSlot = state.slot;
  release(row);
  state.deadManSweeps.delete(row.orderId);
  if (state.notes.get(row.note.commitment) === row) state.notes.delete(row.note.commitment);
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
    state.notes.set(row.note.commitment, ending.lockExpirySlot);
  }
  wakeAt(state, readableUntil(row, config), row.orderId);
  return event;
}

/** The order no longer wants its cancel-on-disconnect sweep (it ended, or its socket closed). */
export function dropConnection(state: VenueState, row: OrderRow): void {
  if (row.connectionId === null) return;
  const set = state.byConnection.get(row.connectionId);
  if (set === undefined) return;
  set.delete(row);
  if (set.size === 0) state.byConnection.delete(row.connectionId);
}

/** A finished order answers GET /orders/{id} in full until this slot (retentionSlots after it ended). */
export function readableUntil(row: OrderRow, config: CoreConfig): bigint {
  return row.lastUpdateSlot + config.retentionSlots;
}

/**
 * Until this slot a finished order's body keeps its 1211 answer and its id stays taken: past its
 * expiry_slot the body would be refused for its expiry anyway (and its nonce always is). A failed
 * settlement's lock may outlast the expiry; the remains wait for it, so dropping them can release it.
 */
export function refusedUntil(row: OrderRow): bigint {
  const lock = row.lockExpirySlot ?? 0n;
  return (row.expirySlot > lock ? row.expirySlot : lock) + 1n;
}

/**
 * Ends a finished order's readable window: the row goes, and what refusing its body needs stays as a
 * FinishedOrder until refusedUntil(row), unless that has already passed.
 */
export function compact(state: VenueState, row: OrderRow): void {
  if (!isTerminal(row.state)) throw new AssertionError(`compact: order ${row.orderId} is still open`);
  state.orders.delete(row.orderId);
  releaseExpiredLock(state, row.note.commitment);
  const until = refusedUntil(row);
  if (until <= state.slot) return;
  state.finished.set(row.orderId, {
    accountId: row.accountId,
    bodyDigest: row.bodyDigest,
    state: row.state,
    until,
    lockedNote: row.state === 'settlement_failed' ? row.note.commitment : null,
  });
  wakeAt(state, until, row.orderId);
}

/**
 * Forgets a compacted order whose window has passed: its id may be used again, and its body is no
 * longer recognised as a repeat (nonces and the session still make an old body unusable).
 */
export function dropFinished(state: VenueState, orderId: string): void {
  const finished = state.finished.get(orderId);
  if (finished === undefined || state.slot < finished.until) return;
  state.finished.delete(orderId);
  if (finished.lockedNote !== null) releaseExpiredLock(state, finished.lockedNote);
}

/** A failed settlement's note lock is only remembered while it can still refuse a reuse. */
function releaseExpiredLock(state: VenueState, commitment: string): void {
  const hold = state.notes.get(commitment);
  if (typeof hold === 'bigint' && hold < state.slot) state.notes.delete(commitment);
}
