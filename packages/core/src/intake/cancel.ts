import { type CancelParams, VenueError } from '@venue/protocol';
import type { CancelCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { CoreEvent } from '../events.ts';
import { type Ending, finish } from '../state/order-index.ts';
import type { KeyNonces, OrderRow, VenueState } from '../state/venue-state.ts';

/**
 * DELETE /orders/{id} and order.cancel (spec 2.4, 4.3). Also the first half of a modify, whose
 * preconditions are the same (spec 4.1 rule 1a).
 */

/**
 * Finds the caller's order and checks that `tradingKey` owns it. An order of another account is
 * reported as unknown, so ids of other accounts' orders cannot be probed.
 */
export function ownedOrder(
  state: VenueState,
  orderId: string,
  accountId: string,
  tradingKey: string,
): OrderRow {
  const row = state.orders.get(orderId);
  if (row === undefined || row.accountId !== accountId) {
    throw new VenueError('ORDER_NOT_FOUND', `no order ${orderId} is known for this account`);
  }
  if (row.tradingKey !== tradingKey) {
    throw new VenueError('NOT_ORDER_OWNER', `order ${orderId} is booked under another trading key`);
  }
  return row;
}

/**
 * The cancel rules that need state: session, nonce, and an order still resting. Returns the key's
 * nonce record (if it has one) for acceptCancelNonce.
 */
export function checkCancel(
  state: VenueState,
  row: OrderRow,
  params: Pick<CancelParams, 'cancel_nonce' | 'session_id'>,
): KeyNonces | undefined {
  if (params.session_id !== state.sessionId) {
    throw new VenueError(
      'STALE_SESSION',
      'session_id is not the current boot session; read GET /info and sign again',
    );
  }
  const nonces = state.nonces.get(row.tradingKey);
  const last = nonces === undefined ? 0n : nonces.cancel;
  if (params.cancel_nonce <= last) {
    throw new VenueError(
      'STALE_CANCEL_NONCE',
      `cancel_nonce must be above ${last}, the last accepted for this trading key`,
    );
  }
  if (row.state !== 'resting') {
    throw new VenueError(
      'ORDER_NOT_RESTING',
      `order ${row.orderId} is ${row.state} and cannot be cancelled now`,
    );
  }
  return nonces;
}

export function acceptCancelNonce(
  state: VenueState,
  tradingKey: string,
  nonce: bigint,
  known: KeyNonces | undefined,
): void {
  if (known === undefined) state.nonces.set(tradingKey, { arrival: 0n, cancel: nonce });
  else known.cancel = nonce;
}

const CANCELLED_BY_OWNER: Ending = { kind: 'cancelled', cancelReason: 'owner' };

export function applyCancel(state: VenueState, config: CoreConfig, command: CancelCommand): CoreEvent[] {
  const row = ownedOrder(state, command.orderId, command.accountId, command.params.trading_key);
  const nonces = checkCancel(state, row, command.params);
  acceptCancelNonce(state, row.tradingKey, command.params.cancel_nonce, nonces);
  const event = finish(state, config, row, CANCELLED_BY_OWNER);
  return [
    event,
    {
      type: 'cancelled_reply',
      accountId: command.accountId,
      response: { order_id: row.orderId, status: 'cancelled', cancelled_slot: state.slot },
    },
  ];
}
