import { assert } from '@venue/protocol';
import type { CoreConfig } from '../config.ts';
import { isTerminal, matchKey, type VenueState } from './venue-state.ts';

/**
 * Every cross-index invariant of the core state, checked in one pass. Tests call it after every
 * command; a failure is a bug in the core, never a client's doing.
 */
export function validateState(state: VenueState, config: CoreConfig): void {
  let open = 0;
  for (const [orderId, row] of state.orders) {
    assert(row.orderId === orderId, `order ${orderId} is filed under another id`);
    assert(
      row.filled >= 0n && row.filled <= row.amount,
      `order ${orderId} filled ${row.filled} of ${row.amount}`,
    );
    const market = state.markets.get(row.marketId);
    assert(market !== undefined, `order ${orderId} names unknown market ${row.marketId}`);
    const live = market.live.has(orderId);
    const inAccount = state.openByAccount.get(row.accountId)?.has(orderId) ?? false;
    if (isTerminal(row.state)) {
      assert(!live && !inAccount, `finished order ${orderId} is still indexed as open`);
      assert(row.pending === null, `finished order ${orderId} keeps a pending match`);
      const hold = state.notes.get(row.note.commitment);
      assert(
        !(hold !== undefined && 'orderId' in hold && hold.orderId === orderId),
        `finished order ${orderId} holds its note`,
      );
      continue;
    }
    open += 1;
    assert(live && inAccount, `open order ${orderId} is missing from the market or account index`);
    assert(row.filled < row.amount, `open order ${orderId} has nothing left to fill`);
    const hold = state.notes.get(row.note.commitment);
    assert(
      hold !== undefined && 'orderId' in hold && hold.orderId === orderId,
      `order ${orderId} does not hold its note`,
    );
    const pending = row.state === 'pending_settlement';
    assert(
      pending === (row.pending !== null),
      `order ${orderId}: state ${row.state} disagrees with its match`,
    );
    if (row.pending !== null) {
      assert(
        state.pendingMatches.get(matchKey(row.marketId, row.pending.matchId)) === orderId,
        `order ${orderId}: pending match not indexed`,
      );
    }
    if (row.state !== 'resting' && row.state !== 'pending_settlement')
      assert(false, `open order ${orderId} in state ${row.state}`);
  }
  let indexedOpen = 0;
  for (const [accountId, ids] of state.openByAccount) {
    assert(ids.size > 0, `account ${accountId} keeps an empty open set`);
    assert(ids.size <= config.accountOpenOrdersMax, `account ${accountId} holds ${ids.size} open orders`);
    indexedOpen += ids.size;
  }
  assert(indexedOpen === open, `account index counts ${indexedOpen} open orders, the book ${open}`);
  for (const market of state.markets.values()) {
    for (const orderId of market.live)
      assert(state.orders.has(orderId), `market lists unknown order ${orderId}`);
  }
  for (const [commitment, hold] of state.notes) {
    if ('orderId' in hold) {
      const row = state.orders.get(hold.orderId);
      assert(
        row !== undefined && !isTerminal(row.state) && row.note.commitment === commitment,
        `note ${commitment} held by a stale order`,
      );
    }
  }
  for (const [key, orderId] of state.pendingMatches) {
    assert(
      state.orders.get(orderId)?.state === 'pending_settlement',
      `pending match ${key} names a settled order`,
    );
  }
  for (const [digest, orderId] of state.bodies) {
    assert(state.orders.get(orderId)?.bodyDigest === digest, `body ${digest} names another order`);
  }
}
