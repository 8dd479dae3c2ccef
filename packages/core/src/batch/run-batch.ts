import { assert } from '@venue/protocol';
import { clearBatch } from '../auction/clear-batch.ts';
import type { AuctionOrder, Fill } from '../auction/types.ts';
import type { CoreConfig } from '../config.ts';
import type { BatchEvent, CoreEvent, MatchEvent } from '../events.ts';
import { priceBand } from '../market.ts';
import { finish } from '../state/order-index.ts';
import { type MarketState, matchKey, type OrderRow, type VenueState } from '../state/venue-state.ts';

/**
 * Runs one market's batch at the current slot (decisions section 2). Takes part: every resting
 * order of the market that arrived before this slot. Orders in an unsettled match are reserved and
 * take no part. Each order that fills gets one match for this batch and waits in
 * `pending_settlement`; ioc and fok orders that got nothing end here.
 */
export function runBatch(state: VenueState, config: CoreConfig, market: MarketState): CoreEvent[] {
  const rows: OrderRow[] = [];
  for (const orderId of market.live) {
    const row = state.orders.get(orderId);
    assert(row !== undefined, `live order ${orderId} missing`);
    if (row.state === 'resting' && row.arrivalSlot < state.slot) rows.push(row);
  }
  if (rows.length === 0) return [];
  const batch = market.batchCount;
  market.batchCount += 1n;
  const events: CoreEvent[] = [];
  const canClear = market.pausedReason === null && state.venuePauseReasons.length === 0;
  const cleared = canClear ? auction(state, market, rows, batch, events) : { fills: [], price: 0n };
  const filled = applyFills(state, config, market, rows, cleared, batch, events);
  endArrivalBatch(state, config, rows, filled, events);
  return events;
}

interface Cleared {
  readonly fills: readonly Fill[];
  readonly price: bigint;
}

function auction(
  state: VenueState,
  market: MarketState,
  rows: OrderRow[],
  batch: bigint,
  events: CoreEvent[],
): Cleared {
  const oracle = market.oraclePrice;
  const band = oracle === null ? { low: 0n, high: 0n } : priceBand(market.config, oracle);
  const result = clearBatch({
    orders: rows.map((row, ref) => toAuctionOrder(row, ref)),
    oraclePrice: oracle,
    bandLow: band.low,
    bandHigh: band.high,
    priceScale: market.config.priceScale,
  });
  const record: BatchEvent = {
    type: 'batch',
    marketId: market.config.marketId,
    batch,
    slot: state.slot,
    result,
  };
  events.push(record);
  return { fills: result.fills, price: result.clearingPrice ?? 0n };
}

function toAuctionOrder(row: OrderRow, ref: number): AuctionOrder {
  const remaining = row.amount - row.filled;
  const minFill = row.minFillSize === 0n ? 1n : row.minFillSize < remaining ? row.minFillSize : remaining;
  return {
    ref,
    side: row.side,
    priceLimit: row.priceLimit,
    remaining,
    minFill,
    arrivalSlot: row.arrivalSlot,
    sequence: row.sequence,
    tradingKey: row.tradingKey,
    owner: row.ownerCommitment,
    fillOrKill: row.orderType === 'fok' && !row.arrivalBatchDone,
  };
}

interface Taken {
  base: bigint;
  quote: bigint;
  counterparties: number[];
}

/**
 * Turns the auction's fills into one match per order, and reserves the order's note. Refs are the
 * indexes of `rows`, so per-order totals live in an array indexed by ref, and walking it in index
 * order gives match ids in intake order without sorting.
 */
function applyFills(
  state: VenueState,
  config: CoreConfig,
  market: MarketState,
  rows: OrderRow[],
  cleared: Cleared,
  batch: bigint,
  events: CoreEvent[],
): Set<number> {
  const taken: (Taken | undefined)[] = new Array(rows.length);
  const take = (ref: number, base: bigint, quote: bigint, other: number) => {
    const entry = taken[ref];
    if (entry === undefined) taken[ref] = { base, quote, counterparties: [other] };
    else {
      entry.base += base;
      entry.quote += quote;
      entry.counterparties.push(other);
    }
  };
  for (const fill of cleared.fills) {
    take(fill.bidRef, fill.quantity, fill.quoteAmount, fill.askRef);
    take(fill.askRef, fill.quantity, fill.quoteAmount, fill.bidRef);
  }
  const matchIds: bigint[] = new Array(rows.length);
  const filled = new Set<number>();
  for (let ref = 0; ref < rows.length; ref++) {
    if (taken[ref] === undefined) continue;
    matchIds[ref] = market.matchCount;
    market.matchCount += 1n;
    filled.add(ref);
  }
  const lockExpirySlot = state.slot + config.lockDurationSlots;
  for (const ref of filled) {
    const row = rows[ref];
    const entry = taken[ref];
    const matchId = matchIds[ref];
    assert(
      row !== undefined && entry !== undefined && matchId !== undefined,
      `fill names unknown ref ${ref}`,
    );
    row.state = 'pending_settlement';
    row.pending = { matchId, baseQuantity: entry.base, quoteAmount: entry.quote, lockExpirySlot };
    row.lastMatchId = matchId;
    row.lockExpirySlot = lockExpirySlot;
    row.lastUpdateSlot = state.slot;
    state.pendingMatches.set(matchKey(row.marketId, matchId), row.orderId);
    events.push({
      type: 'order',
      accountId: row.accountId,
      orderId: row.orderId,
      marketId: row.marketId,
      kind: 'pending_settlement',
      slot: state.slot,
      matchId,
      lockExpirySlot,
    });
    events.push(
      matchEvent(row, market, { batch, matchId, price: cleared.price, lockExpirySlot }, entry, matchIds),
    );
  }
  return filled;
}

function matchEvent(
  row: OrderRow,
  market: MarketState,
  at: { batch: bigint; matchId: bigint; price: bigint; lockExpirySlot: bigint },
  entry: Taken,
  matchIds: readonly bigint[],
): MatchEvent {
  const { batch, matchId, lockExpirySlot } = at;
  return {
    type: 'match',
    marketId: market.config.marketId,
    matchId,
    batch,
    orderId: row.orderId,
    accountId: row.accountId,
    side: row.side,
    clearingPrice: at.price,
    baseQuantity: entry.base,
    quoteAmount: entry.quote,
    noteCommitment: row.note.commitment,
    noteValue: row.note.value,
    treeId: row.note.treeId,
    merkleRoot: row.note.merkleRoot,
    viewingPubkey: row.viewingPubkey,
    lockExpirySlot,
    counterpartyMatchIds: [...new Set(entry.counterparties)].map((ref) => matchIds[ref] ?? -1n),
  };
}

/** ioc and fok take part in their arrival batch only (decisions section 2). */
function endArrivalBatch(
  state: VenueState,
  config: CoreConfig,
  rows: OrderRow[],
  filled: Set<number>,
  events: CoreEvent[],
): void {
  rows.forEach((row, ref) => {
    if (row.orderType === 'limit' || row.arrivalBatchDone) return;
    row.arrivalBatchDone = true;
    if (filled.has(ref)) return; // an ioc's unfilled remainder ends after its settlement
    const cancelReason = row.orderType === 'ioc' ? 'ioc_remainder' : 'fok_unfilled';
    events.push(finish(state, config, row, { kind: 'cancelled', cancelReason }));
  });
}
