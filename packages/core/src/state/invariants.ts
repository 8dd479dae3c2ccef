import { assert } from '@venue/protocol';
import type { CoreConfig } from '../config.ts';
import { checkDeadMen } from '../lifecycle/dead-man.ts';
import { ordersByPriority } from './book-side.ts';
import { fingerprint, NO_SLOT } from './market-columns.ts';
import {
  type BookSide,
  effectiveMinFill,
  isTerminal,
  type MarketState,
  matchKey,
  type OrderRow,
  type VenueState,
} from './venue-state.ts';

/**
 * Every cross-index invariant of the core state, checked in one pass. Tests call it after every
 * command; a failure is a bug in the core, never a client's doing. It also compares each
 * incrementally kept book side with a from-scratch sort of the market's open orders.
 */
export function validateState(state: VenueState, config: CoreConfig): void {
  checkDeadMen(state);
  let open = 0;
  for (const [orderId, row] of state.orders) {
    checkRow(state, orderId, row);
    if (!isTerminal(row.state)) open += 1;
  }
  let accountOpen = 0;
  for (const [accountId, account] of state.accounts) {
    assert(account.accountId === accountId, `account ${accountId} is filed under another id`);
    assert(account.open > 0, `account ${accountId} keeps an empty open list`);
    assert(
      account.open <= config.accountOpenOrdersMax,
      `account ${accountId} holds ${account.open} open orders`,
    );
    let count = 0;
    let previous: OrderRow | null = null;
    for (let row = account.head; row !== null; row = row.accountNext) {
      assert(row.account === account && row.accountPrev === previous, `account ${accountId}: broken list`);
      assert(
        previous === null || previous.sequence < row.sequence,
        `account ${accountId}: out of intake order`,
      );
      previous = row;
      count += 1;
    }
    assert(account.tail === previous && count === account.open, `account ${accountId} counts ${count}`);
    accountOpen += count;
  }
  assert(accountOpen === open, `account index counts ${accountOpen} open orders, the book ${open}`);
  let liveOpen = 0;
  for (const [marketId, market] of state.markets) {
    assert(market.config.marketId === marketId, `market ${marketId} is filed under another id`);
    assert(state.marketsBySymbol.get(market.config.symbol) === market, `market ${marketId}: symbol index`);
    liveOpen += checkMarket(market);
  }
  assert(liveOpen === open, `market lists count ${liveOpen} open orders, the book ${open}`);
  for (const [commitment, hold] of state.notes) {
    if (typeof hold === 'bigint') continue;
    assert(
      state.orders.get(hold.orderId) === hold &&
        !isTerminal(hold.state) &&
        hold.note.commitment === commitment,
      `note ${commitment} held by a stale order`,
    );
  }
  for (const [orderId, finished] of state.finished) {
    assert(!state.orders.has(orderId), `order ${orderId} is both a row and compacted`);
    assert(isTerminal(finished.state), `compacted order ${orderId} is ${finished.state}`);
    assert(finished.until > state.slot, `compacted order ${orderId} outlived slot ${finished.until}`);
  }
  for (const [connectionId, rows] of state.byConnection) {
    assert(rows.size > 0, `connection ${connectionId} keeps an empty set`);
    for (const row of rows) {
      assert(
        row.connectionId === connectionId && !isTerminal(row.state) && state.orders.get(row.orderId) === row,
        `connection ${connectionId} lists order ${row.orderId}, which is not its open order`,
      );
    }
  }
}

function checkRow(state: VenueState, orderId: string, row: OrderRow): void {
  assert(row.orderId === orderId, `order ${orderId} is filed under another id`);
  assert(
    row.filled >= 0n && row.filled <= row.amount,
    `order ${orderId} filled ${row.filled} of ${row.amount}`,
  );
  assert(row.remaining === row.amount - row.filled, `order ${orderId}: remaining is stale`);
  assert(
    row.fillOrKill === (row.orderType === 'fok' && !row.arrivalBatchDone),
    `order ${orderId}: fill-or-kill flag is stale`,
  );
  assert(
    state.markets.get(row.marketId) === row.market,
    `order ${orderId} names unknown market ${row.marketId}`,
  );
  const hold = state.notes.get(row.note.commitment);
  if (isTerminal(row.state)) {
    assert(row.level === null && row.account === null, `finished order ${orderId} is still indexed as open`);
    assert(row.pending === null, `finished order ${orderId} keeps a pending match`);
    assert(row.slot === NO_SLOT, `finished order ${orderId} keeps batch slot ${row.slot}`);
    assert(hold !== row, `finished order ${orderId} holds its note`);
    return;
  }
  assert(
    row.state === 'resting' || row.state === 'pending_settlement',
    `open order ${orderId} in ${row.state}`,
  );
  assert(row.level !== null && row.account !== null, `open order ${orderId} is missing from an index`);
  assert(row.filled < row.amount, `open order ${orderId} has nothing left to fill`);
  assert(
    row.minFill === effectiveMinFill(row.minFillSize, row.remaining),
    `order ${orderId}: minFill is stale`,
  );
  assert(hold === row, `order ${orderId} does not hold its note`);
  const pending = row.state === 'pending_settlement';
  assert(pending === (row.pending !== null), `order ${orderId}: state ${row.state} disagrees with its match`);
  if (row.pending !== null) {
    assert(
      row.market.pendingMatches.get(row.pending.matchKey(row.pendingAt)) === row &&
        matchKey(row.pending.matchId(row.pendingAt)) === row.pending.matchKey(row.pendingAt),
      `order ${orderId}: pending match not indexed`,
    );
  }
}

/** Checks a market's live list, pending matches and both sides; returns its open order count. */
function checkMarket(market: MarketState): number {
  const id = market.config.marketId;
  const live: OrderRow[] = [];
  const { columns } = market;
  let previous: OrderRow | null = null;
  let previousSlot = NO_SLOT;
  for (let slot = columns.liveHead; slot !== NO_SLOT; slot = columns.liveNext[slot] as number) {
    const row = columns.rows[slot];
    assert(
      row !== undefined &&
        row.slot === slot &&
        columns.livePrev[slot] === previousSlot &&
        live.length < columns.liveSize,
      `market ${id}: broken live list at slot ${slot}`,
    );
    assert(row.market === market, `market ${id}: live list holds an order of another market`);
    assert(
      previous === null || previous.sequence < row.sequence,
      `market ${id}: live list out of intake order`,
    );
    // run-batch.ts finds this slot's arrivals as a run at the tail.
    assert(
      previous === null || previous.arrivalSlot <= row.arrivalSlot,
      `market ${id}: arrival slots decrease along the live list`,
    );
    assert(!isTerminal(row.state), `market ${id} lists finished order ${row.orderId}`);
    // A batch numbers its participants by this mark instead of the row's state.
    assert(
      columns.resting[slot] === (row.state === 'resting' ? 1 : 0),
      `market ${id}: order ${row.orderId}'s resting mark disagrees with its state ${row.state}`,
    );
    live.push(row);
    previous = row;
    previousSlot = slot;
  }
  assert(
    columns.liveTail === previousSlot && live.length === columns.liveSize,
    `market ${id}: live list size`,
  );
  for (const [key, row] of market.pendingMatches.entries()) {
    assert(
      row.state === 'pending_settlement' &&
        row.pending !== null &&
        row.pending.matchKey(row.pendingAt) === key &&
        row.market === market,
      `market ${id}: pending match ${key} names a settled order`,
    );
  }
  // The ioc and fok orders awaiting their arrival batch, in intake order (batch/quiet-batch.ts).
  const due = live.filter((row) => row.orderType !== 'limit' && !row.arrivalBatchDone);
  const kept = [...market.arrivalBatchDue];
  assert(
    kept.length === due.length && kept.every((row, index) => row === due[index]),
    `market ${id}: the orders due their arrival batch differ from the open ioc and fok orders`,
  );
  checkSide(
    market.bids,
    market,
    live.filter((row) => row.side === 'bid'),
  );
  checkSide(
    market.asks,
    market,
    live.filter((row) => row.side === 'ask'),
  );
  return live.length;
}

/** The side's levels are well formed and list exactly `open` in priority (a from-scratch sort). */
function checkSide(side: BookSide, market: MarketState, open: readonly OrderRow[]): void {
  const id = market.config.marketId;
  assert(
    side.byPrice.size === side.levels.length,
    `market ${id}: the level index counts ${side.byPrice.size}`,
  );
  for (let index = 0; index < side.levels.length; index += 1) {
    const level = side.levels[index];
    const next = side.levels[index + 1];
    assert(level !== undefined && level.size > 0, `market ${id}: empty price level`);
    assert(side.byPrice.get(level.price) === level, `market ${id}: level ${level.price} is not indexed`);
    if (next !== undefined) {
      const ordered = side.descending ? level.price > next.price : level.price < next.price;
      assert(ordered, `market ${id}: price levels ${level.price} and ${next.price} out of order`);
    }
    let count = 0;
    let resting = 0;
    let restingUnits = 0n;
    let previous: OrderRow | null = null;
    let slot = level.headSlot;
    for (let row = level.head; row !== null; row = row.levelNext) {
      if (row.state === 'resting') {
        resting += 1;
        restingUnits += row.remaining;
      }
      assert(row.level === level && row.levelPrev === previous, `market ${id}: broken level ${level.price}`);
      assert(row.priceLimit === level.price, `market ${id}: order ${row.orderId} in the wrong level`);
      // The columns' chain of the level lists the same orders (market-columns.ts).
      assert(slot === row.slot, `market ${id}: level ${level.price} chains slot ${slot}, not ${row.slot}`);
      checkColumns(market, row);
      slot = market.columns.next(slot);
      previous = row;
      count += 1;
    }
    assert(slot === NO_SLOT, `market ${id}: level ${level.price} chains slots past its tail`);
    assert(level.tail === previous && count === level.size, `market ${id}: level ${level.price} size`);
    // The resting totals a batch over a book that cannot cross reads (batch/quiet-batch.ts).
    assert(
      level.resting === resting && level.restingUnits === restingUnits,
      `market ${id}: level ${level.price} counts ${level.resting} resting orders and ${level.restingUnits} base, not ${resting} and ${restingUnits}`,
    );
  }
  const restingLevels = side.levels.filter((level) => level.resting > 0).length;
  assert(
    side.restingLevels === restingLevels,
    `market ${id}: ${side.restingLevels} levels counted as resting`,
  );
  const restingOrders = side.levels.reduce((sum, level) => sum + level.resting, 0);
  assert(
    side.restingOrders === restingOrders,
    `market ${id}: ${side.restingOrders} orders counted as resting, not ${restingOrders}`,
  );
  const expected = [...open].sort((a, b) => comparePriority(side, a, b));
  const kept = [...ordersByPriority(side)];
  assert(
    kept.length === expected.length && kept.every((row, index) => row === expected[index]),
    `market ${id}: the ${side.descending ? 'bid' : 'ask'} side differs from a sort of its open orders`,
  );
}

/** The order's batch columns hold what its row says (market-columns.ts). */
function checkColumns(market: MarketState, row: OrderRow): void {
  const { columns } = market;
  const slot = row.slot;
  assert(slot >= 0 && columns.rows[slot] === row, `order ${row.orderId} does not hold slot ${slot}`);
  assert(
    columns.remaining(slot) === Number(row.remaining) &&
      columns.minFill(slot) === Number(row.minFill) &&
      columns.fillOrKill[slot] === (row.fillOrKill ? 1 : 0) &&
      columns.keyPrint(slot) === fingerprint(row.tradingKey) &&
      columns.ownerPrint(slot) === fingerprint(row.owner),
    `order ${row.orderId}: its batch columns are stale`,
  );
}

/** Allocation priority written plainly: the better limit, then the earlier arrival, then sequence. */
function comparePriority(side: BookSide, a: OrderRow, b: OrderRow): number {
  if (a.priceLimit !== b.priceLimit) {
    const better = side.descending ? a.priceLimit > b.priceLimit : a.priceLimit < b.priceLimit;
    return better ? -1 : 1;
  }
  if (a.arrivalSlot !== b.arrivalSlot) return a.arrivalSlot < b.arrivalSlot ? -1 : 1;
  return a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0;
}
