import { VenueError } from '@venue/protocol';
import type { ModifyCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { accountFor, book, type Ending, finish, unlinkOpen } from '../state/order-index.ts';
import type { OrderRow, VenueState } from '../state/venue-state.ts';
import { acceptCancelNonce, checkCancel, ownedOrder } from './cancel.ts';
import {
  acceptArrivalNonce,
  assertNotCompactedRepeat,
  assertRepeatLive,
  checkPlace,
  isRepeatOf,
  newRow,
} from './place.ts';

const CANCELLED_BY_MODIFY: Ending = { kind: 'cancelled', cancelReason: 'modify' };

/**
 * PUT /orders/{id} and order.modify (spec 4.1). Every precondition of both halves is checked before
 * anything changes (rule 1); then the old order is retired and the replacement booked inside this
 * one command, so no batch can run between them (rule 2, decisions section 2).
 */
export function applyModify(state: VenueState, config: CoreConfig, command: ModifyCommand): CoreEvent[] {
  const { request } = command;
  const replacement = request.replacement;
  const existing = state.orders.get(replacement.order_id);
  const repeat = repeatOfModify(state, command, existing);
  if (repeat !== null) return [repeat];
  // Its replacement finished and was compacted: the same exact body stays refused.
  if (existing === undefined) {
    assertNotCompactedRepeat(state, replacement.order_id, command.replacementDigest, command.accountId);
  }
  // rule 1a and rule 3: the old order exists for this account and the replacement's key owns it.
  const old = ownedOrder(state, command.oldOrderId, command.accountId, replacement.trading_key);
  // rule 4: the replacement stays in the old order's market.
  if (replacement.symbol !== old.symbol) {
    throw new VenueError(
      'CROSS_MARKET_MODIFY',
      `the replacement names ${replacement.symbol} but the order trades ${old.symbol}; cancel and place instead`,
    );
  }
  // rule 6: the replacement's session scopes the cancel half; the cancel nonce is the key's.
  const cancelNonces = checkCancel(state, old, {
    cancel_nonce: request.cancel_nonce,
    session_id: replacement.session_id,
  });
  // rule 1b and rule 5: a normal place-order check, where the old order's id and note count as free.
  const accepted = checkPlace(state, config, replacement, command.accountId, old, existing);
  // rule 8 is covered: checkPlace re-reads the gates, and a refusal leaves the old order untouched.

  acceptCancelNonce(state, old.tradingKey, request.cancel_nonce, cancelNonces);
  // The same key: looked up again, since the cancel half may have just created its record.
  acceptArrivalNonce(state, replacement.trading_key, replacement.arrival_nonce);
  const events: CoreEvent[] = [];
  const fields = {
    accountId: command.accountId,
    connectionId: command.connectionId,
    bodyDigest: command.replacementDigest,
  };
  let row: OrderRow;
  if (replacement.order_id === old.orderId) {
    // rule 7, same id: the order keeps its identity and what it has filled (carried into the row).
    row = newRow(state, replacement, accepted, fields, old);
    repriceInPlace(state, old, row);
  } else {
    // rule 7: a new id retires the old one with `cancelled`.
    row = newRow(state, replacement, accepted, fields);
    events.push(finish(state, config, old, CANCELLED_BY_MODIFY));
    // The account record is looked up after the old order left: it is dropped when it empties.
    book(state, row, accountFor(state, command.accountId));
  }
  events.push({
    type: 'modified',
    accountId: command.accountId,
    response: {
      old_order_id: old.orderId,
      order_id: row.orderId,
      status: 'modified',
      arrival_slot: row.arrivalSlot,
    },
  });
  return events;
}

/**
 * rule 7, same id: the logical order keeps its identity and what it has filled; the replacement's
 * amount is what is open from now on. It takes a new place in time priority.
 */
function repriceInPlace(state: VenueState, old: OrderRow, row: OrderRow): void {
  unlinkOpen(state, old);
  state.notes.delete(old.note.commitment);
  // The old body no longer describes the order (the row under its id now carries the replacement's
  // digest): a repeat of it is a duplicate id, not a repeat.
  book(state, row, accountFor(state, row.accountId));
}

/** The exact modify repeated after it succeeded: the same answer while the replacement lives. */
function repeatOfModify(
  state: VenueState,
  command: ModifyCommand,
  existing: OrderRow | undefined,
): CoreEvent | null {
  if (!isRepeatOf(existing, command.replacementDigest, command.accountId)) return null;
  const row = existing;
  const old = state.orders.get(command.oldOrderId);
  const retired = old !== undefined && old !== row && old.cancelReason === 'modify';
  if (row.orderId !== command.oldOrderId && !retired) return null;
  assertRepeatLive(row);
  return {
    type: 'modified',
    accountId: command.accountId,
    response: {
      old_order_id: command.oldOrderId,
      order_id: row.orderId,
      status: 'modified',
      arrival_slot: row.arrivalSlot,
    },
  };
}
