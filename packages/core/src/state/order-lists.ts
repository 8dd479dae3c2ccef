import { AssertionError } from '@venue/protocol';
import type { AccountState, OrderRow } from './venue-state.ts';

/**
 * An account's open orders in intake order (GET /account), doubly linked through fields of the
 * row, so joining and leaving cost a few pointer writes and no hashing. Orders join at the tail,
 * which keeps the list in intake order. (The market's live list, the other intake-ordered list, is
 * chained through the market's columns: market-columns.ts.)
 */

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
