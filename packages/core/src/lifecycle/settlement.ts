import { AssertionError, assert } from '@venue/protocol';
import type { MatchFailedCommand, MatchSettledCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent, OrderEvent } from '../events.ts';
import { sideOf, startResting } from '../state/book-side.ts';
import { type Ending, finish, wakeAt } from '../state/order-index.ts';
import { pendingMatchId, release } from '../state/pending-match.ts';
import { effectiveMinFill, matchKey, type OrderRow, type VenueState } from '../state/venue-state.ts';
import { DEAD_MAN_CANCEL, takeDeadManSweep } from './dead-man.ts';

/**
 * Settlement outcomes from the chain (spec 3.1). A confirmed match moves the order's filled
 * quantity; what remains rests again on the change note (`partially_filled`), unless the order is
 * an ioc (the remainder is cancelled) or has meanwhile passed its expiry (it expires). A failed
 * match ends the order for good, with the reason and the lock expiry.
 */

function pendingOrder(state: VenueState, marketId: string, matchId: bigint): OrderRow {
  const row = state.markets.get(marketId)?.pendingMatches.get(matchKey(matchId));
  if (row === undefined || pendingMatchId(row) !== matchId) {
    throw new AssertionError(`no unsettled match ${matchId} in market ${marketId}`);
  }
  return row;
}

/** True when the settlement pipeline still waits for this match (idempotent retries ask first). */
export function isPendingMatch(state: VenueState, marketId: string, matchId: bigint): boolean {
  const row = state.markets.get(marketId)?.pendingMatches.get(matchKey(matchId));
  return row !== undefined && pendingMatchId(row) === matchId;
}

const FULLY_FILLED: Ending = { kind: 'fully_filled' };
const EXPIRED: Ending = { kind: 'expired' };
const IOC_REMAINDER: Ending = { kind: 'cancelled', cancelReason: 'ioc_remainder' };
const SWEPT: Ending = { kind: 'cancelled', cancelReason: 'disconnect' };

export function applyMatchSettled(
  state: VenueState,
  config: CoreConfig,
  command: MatchSettledCommand,
): CoreEvent[] {
  const row = pendingOrder(state, command.marketId, command.matchId);
  const pending = release(row);
  assert(pending !== null, 'pending match vanished');
  row.filled += pending.baseQuantity;
  assert(row.filled <= row.amount, `order ${row.orderId} filled beyond its amount`);
  row.lockExpirySlot = null;
  const remaining = row.amount - row.filled;
  row.remaining = remaining;
  row.minFill = effectiveMinFill(row.minFillSize, remaining);
  row.market.columns.setQuantities(row);
  if (remaining === 0n) return [finish(state, config, row, FULLY_FILLED)];

  assert(command.changeNote !== null, `match ${command.matchId} left ${remaining} open but no change note`);
  state.notes.delete(row.note.commitment); // the old note is consumed on chain
  row.note = { ...command.changeNote, merkleRoot: row.note.merkleRoot };
  state.notes.set(row.note.commitment, row);
  row.state = 'resting';
  row.resumedBatch = row.market.batchCount;
  startResting(sideOf(row.market, row.side), row);
  row.lastUpdateSlot = state.slot;
  const partial: OrderEvent = {
    type: 'order',
    accountId: row.accountId,
    orderId: row.orderId,
    marketId: row.marketId,
    kind: 'partially_filled',
    slot: state.slot,
    matchId: pending.matchId,
    filledQuantity: row.filled,
    newAmount: remaining,
    newNoteAmount: row.note.value,
  };
  if (row.orderType === 'ioc') return [partial, finish(state, config, row, IOC_REMAINDER)];
  if (takeDeadManSweep(state, row.orderId)) return [partial, finish(state, config, row, DEAD_MAN_CANCEL)];
  if (row.sweepAfterSettlement) return [partial, finish(state, config, row, SWEPT)];
  if (row.expirySlot < state.slot) return [partial, finish(state, config, row, EXPIRED)];
  wakeAt(state, row.expirySlot + 1n, row.orderId);
  return [partial];
}

export function applyMatchFailed(
  state: VenueState,
  config: CoreConfig,
  command: MatchFailedCommand,
): CoreEvent[] {
  const row = pendingOrder(state, command.marketId, command.matchId);
  const lockExpirySlot = row.pending?.lockExpirySlot ?? state.slot;
  return [finish(state, config, row, { kind: 'settlement_failed', reason: command.reason, lockExpirySlot })];
}
