import { AssertionError } from '@venue/protocol';
import type { AccountState, LiveList, OrderRow } from './venue-state.ts';

/**
 * The two intake-ordered lists an open order belongs to besides its price level: its market's live
 * list (the order a batch numbers its participants in) and its account's open list (GET /account).
 * Both are doubly linked through fields of the row, so joining and leaving cost a few pointer writes
 * and no hashing. Orders join at the tail, which keeps each list in intake order.
 */

/** The row is the newest open order (see enterLevel); validateInternalState checks the order. */
export function appendLive(list: LiveList, row: OrderRow): void {
  const tail = list.tail;
  row.livePrev = tail;
  row.liveNext = null;
  if (tail === null) list.head = row;
  else tail.liveNext = row;
  list.tail = row;
  list.size += 1;
}

export function unlinkLive(list: LiveList, row: OrderRow): void {
  const { livePrev: previous, liveNext: next } = row;
  if (previous === null) list.head = next;
  else previous.liveNext = next;
  if (next === null) list.tail = previous;
  else next.livePrev = previous;
  row.livePrev = null;
  row.liveNext = null;
  list.size -= 1;
}

export function appendAccount(account: AccountState, row: OrderRow): void {
  const tail = account.tail;
  row.account = account;
  row.accountPrev = tail;
  row.accountNext = null;
  if (tail === null) account.head = row;
  else tail.accountNext = row;
  account.tail = row;
  account.open += 1;
}

/** Removes the row from its account's list; returns the account, which may now be empty. */
export function unlinkAccount(row: OrderRow): AccountState {
  const account = row.account;
  if (account === null) throw new AssertionError(`order ${row.orderId} is in no account list`);
  const { accountPrev: previous, accountNext: next } = row;
  if (previous === null) account.head = next;
  else previous.accountNext = next;
  if (next === null) account.tail = previous;
  else next.accountPrev = previous;
  row.account = null;
  row.accountPrev = null;
  row.accountNext = null;
  account.open -= 1;
  return account;
}
