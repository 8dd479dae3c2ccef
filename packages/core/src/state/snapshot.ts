import {
  AssertionError,
  type CancelReason,
  type NoFillReason,
  type SettlementFailureReason,
} from '@venue/protocol';
import type { MarketConfig } from '../market.ts';
import { ownRecord } from './last-unfilled.ts';
import { accountFor, linkOpen } from './order-index.ts';
import { lastMatchIdOf, pendingOf, RestoredReservation } from './pending-match.ts';
import {
  type DeadManTimer,
  effectiveMinFill,
  emptyMarket,
  emptyState,
  type FinishedOrder,
  isTerminal,
  type KeyNonces,
  NO_SLOT,
  type NoteRef,
  type OrderRow,
  type PendingMatch,
  type VenueState,
} from './venue-state.ts';

/**
 * Snapshot encoding of the core state: the persisted facts only, as JSON with bigints tagged, in a
 * fixed order (collections in their iteration order, row fields in declaration order). The indexes
 * (lists, price levels, accounts, pending matches, derived auction fields) are not written: restore
 * rebuilds them from the rows, and since every index is in intake order, rebuilding by sequence
 * gives back the same structure. Two equal states give byte-identical snapshots, which is what
 * stateHash() compares. (The durability issue seals and stores it; here it is only the bytes.)
 */

const FORMAT_VERSION = 3;
/** Format 2 had no compacted orders; it restores as format 3 with none. */
const FORMATS_READ = new Set([2, FORMAT_VERSION]);

type Persisted<T> = { -readonly [K in keyof T]: T[K] };

/** The row fields a snapshot keeps; everything else on a row is derived. */
type PersistedRow = Persisted<
  Pick<
    OrderRow,
    | 'sequence'
    | 'orderId'
    | 'accountId'
    | 'tradingKey'
    | 'owner'
    | 'marketId'
    | 'symbol'
    | 'side'
    | 'orderType'
    | 'amount'
    | 'priceLimit'
    | 'minFillSize'
    | 'expirySlot'
    | 'arrivalSlot'
    | 'viewingPubkey'
    | 'connectionId'
    | 'bodyDigest'
    | 'note'
    | 'filled'
    | 'state'
    | 'arrivalBatchDone'
    | 'sweepAfterSettlement'
    | 'lastMatchId'
    | 'reason'
    | 'cancelReason'
    | 'lockExpirySlot'
    | 'lastUpdateSlot'
  >
> & {
  /** The pending match's four values (pending-match.ts), or null. */
  pending: PendingMatch | null;
  /**
   * [batch, slot, reason] of the latest batch that gave the order nothing. Written only when there
   * is one, so rows that never sat out a batch keep the bytes they had before it existed.
   */
  unfilled?: [bigint, bigint, string];
  /** The batch count when a settlement last put the order back to resting; absent when never. */
  resumedBatch?: bigint;
};

interface PersistedMarket {
  config: MarketConfig;
  oraclePrice: bigint | null;
  pausedReason: string | null;
  batchCount: bigint;
  matchCount: bigint;
  /** [batch, slot, reason] of the latest batch that did not clear; absent until one has not. */
  lastUncleared?: [bigint, bigint, string];
}

interface PersistedState {
  sessionId: string;
  slot: bigint;
  nextSequence: bigint;
  venuePauseReasons: string[];
  markets: PersistedMarket[];
  orders: PersistedRow[];
  /** Compacted finished orders (FinishedOrder), by id. Absent in format 2. */
  finished?: [string, Persisted<FinishedOrder>][];
  /** commitment -> the holding order's id, or the slot until which a failed lock blocks it. */
  notes: [string, string | bigint][];
  nonces: [string, KeyNonces][];
  byConnection: [string, string[]][];
  roots: [number, readonly string[]][];
  wakeups: [bigint, string[]][];
  wakeupCursor: bigint;
  /** Absent in snapshots written before the dead-man timer existed (read as none armed). */
  deadMen?: [string, DeadManTimer][];
  deadManSweeps?: string[];
}

export function snapshotState(state: VenueState): string {
  const persisted: PersistedState = {
    sessionId: state.sessionId,
    slot: state.slot,
    nextSequence: state.nextSequence,
    venuePauseReasons: state.venuePauseReasons,
    markets: [...state.markets.values()].map((market) => ({
      config: market.config,
      oraclePrice: market.oraclePrice,
      pausedReason: market.pausedReason,
      batchCount: market.batchCount,
      matchCount: market.matchCount,
      ...(market.lastUncleared === null
        ? {}
        : {
            lastUncleared: [
              market.lastUncleared.batch,
              market.lastUncleared.slot,
              market.lastUncleared.reason,
            ] as [bigint, bigint, string],
          }),
    })),
    orders: [...state.orders.values()].map(persistedRow),
    finished: [...state.finished].map(([orderId, f]) => [
      orderId,
      {
        accountId: f.accountId,
        bodyDigest: f.bodyDigest,
        state: f.state,
        until: f.until,
        lockedNote: f.lockedNote,
      },
    ]),
    notes: [...state.notes].map(([commitment, hold]) => [
      commitment,
      typeof hold === 'bigint' ? hold : hold.orderId,
    ]),
    nonces: [...state.nonces],
    byConnection: [...state.byConnection].map(([id, rows]) => [id, [...rows].map((row) => row.orderId)]),
    roots: [...state.roots],
    wakeups: [...state.wakeups],
    wakeupCursor: state.wakeupCursor,
  };
  // Written only when present, so a venue that never used the timer keeps its earlier snapshot bytes.
  if (state.deadMen.size > 0) persisted.deadMen = [...state.deadMen];
  if (state.deadManSweeps.size > 0) persisted.deadManSweeps = [...state.deadManSweeps];
  return JSON.stringify({ format: FORMAT_VERSION, state: persisted }, (_key, value: unknown) =>
    typeof value === 'bigint' ? { $big: value.toString() } : value,
  );
}

function persistedRow(row: OrderRow): PersistedRow {
  return {
    sequence: row.sequence,
    orderId: row.orderId,
    accountId: row.accountId,
    tradingKey: row.tradingKey,
    owner: row.owner,
    marketId: row.marketId,
    symbol: row.symbol,
    side: row.side,
    orderType: row.orderType,
    amount: row.amount,
    priceLimit: row.priceLimit,
    minFillSize: row.minFillSize,
    expirySlot: row.expirySlot,
    arrivalSlot: row.arrivalSlot,
    viewingPubkey: row.viewingPubkey,
    connectionId: row.connectionId,
    bodyDigest: row.bodyDigest,
    note: row.note,
    filled: row.filled,
    state: row.state,
    arrivalBatchDone: row.arrivalBatchDone,
    sweepAfterSettlement: row.sweepAfterSettlement,
    // The four fields only, in this order: the reservation is read from the batch's record of its
    // matches (D148), whose other facts are not state.
    pending: pendingOf(row),
    lastMatchId: lastMatchIdOf(row),
    reason: row.reason,
    cancelReason: row.cancelReason,
    lockExpirySlot: row.lockExpirySlot,
    lastUpdateSlot: row.lastUpdateSlot,
    ...unfilledOf(row),
    ...(row.resumedBatch === null ? {} : { resumedBatch: row.resumedBatch }),
  };
}

export function restoreState(text: string): VenueState {
  const parsed = JSON.parse(text, (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const tagged = value as Record<string, unknown>;
    return typeof tagged['$big'] === 'string' ? BigInt(tagged['$big']) : value;
  }) as { format: number; state: PersistedState };
  if (!FORMATS_READ.has(parsed.format)) {
    throw new AssertionError(
      `snapshot format ${parsed.format} is not one of ${[...FORMATS_READ].join(', ')}`,
    );
  }
  const saved = parsed.state;
  const state = emptyState();
  state.sessionId = saved.sessionId;
  state.slot = saved.slot;
  state.nextSequence = saved.nextSequence;
  state.venuePauseReasons = saved.venuePauseReasons;
  state.wakeupCursor = saved.wakeupCursor;
  for (const market of saved.markets) {
    const restored = emptyMarket(market.config);
    Object.assign(restored, {
      oraclePrice: market.oraclePrice,
      pausedReason: market.pausedReason,
      batchCount: market.batchCount,
      matchCount: market.matchCount,
      lastUncleared:
        market.lastUncleared === undefined
          ? null
          : {
              batch: market.lastUncleared[0],
              slot: market.lastUncleared[1],
              reason: market.lastUncleared[2] as NoFillReason,
            },
    });
    state.markets.set(market.config.marketId, restored);
    state.marketsBySymbol.set(market.config.symbol, restored);
  }
  for (const savedRow of saved.orders) state.orders.set(savedRow.orderId, rowFrom(state, savedRow));
  relinkOpenOrders(state);
  for (const [orderId, f] of saved.finished ?? []) {
    state.finished.set(orderId, {
      accountId: f.accountId,
      bodyDigest: f.bodyDigest,
      state: f.state,
      until: f.until,
      lockedNote: f.lockedNote,
    });
  }
  const orderNamed = (orderId: string): OrderRow => {
    const row = state.orders.get(orderId);
    if (row === undefined) throw new AssertionError(`snapshot names unknown order ${orderId}`);
    return row;
  };
  for (const [commitment, hold] of saved.notes) {
    state.notes.set(commitment, typeof hold === 'bigint' ? hold : orderNamed(hold));
  }
  for (const [key, nonces] of saved.nonces) state.nonces.set(key, nonces);
  // Connection sets are not derivable: a disconnect empties one while its pending orders remain.
  state.byConnection.clear();
  for (const [connectionId, ids] of saved.byConnection) {
    state.byConnection.set(connectionId, new Set(ids.map(orderNamed)));
  }
  for (const [treeId, roots] of saved.roots) state.roots.set(treeId, roots);
  for (const [slot, ids] of saved.wakeups) state.wakeups.set(slot, ids);
  for (const [accountId, timer] of saved.deadMen ?? []) state.deadMen.set(accountId, timer);
  for (const orderId of saved.deadManSweeps ?? []) state.deadManSweeps.add(orderId);
  return state;
}

/** The row's own latest unfilled batch as a snapshot keeps it: absent when there is none. */
function unfilledOf(row: OrderRow): { unfilled?: [bigint, bigint, string] } {
  const own = ownRecord(row);
  return own === null ? {} : { unfilled: [own.batch, own.slot, own.reason] };
}

/** A restored row, its fields in the same order as newRow's (place.ts), so all rows share one shape. */
function rowFrom(state: VenueState, saved: PersistedRow): OrderRow {
  const market = state.markets.get(saved.marketId);
  if (market === undefined) throw new AssertionError(`snapshot order names unknown market ${saved.marketId}`);
  const remaining = saved.amount - saved.filled;
  return {
    side: saved.side,
    priceLimit: saved.priceLimit,
    remaining,
    minFill: effectiveMinFill(saved.minFillSize, remaining),
    arrivalSlot: saved.arrivalSlot,
    sequence: saved.sequence,
    fillOrKill: saved.orderType === 'fok' && !saved.arrivalBatchDone,
    ref: -1,
    slot: NO_SLOT,
    state: saved.state,
    pending: saved.pending === null ? null : new RestoredReservation(saved.pending),
    pendingAt: 0,
    lockExpirySlot: saved.lockExpirySlot,
    lastUpdateSlot: saved.lastUpdateSlot,
    orderType: saved.orderType,
    arrivalBatchDone: saved.arrivalBatchDone,
    unfilledBatch: saved.unfilled?.[0] ?? null,
    unfilledSlot: saved.unfilled?.[1] ?? null,
    unfilledReason: (saved.unfilled?.[2] ?? null) as NoFillReason | null,
    tradingKey: saved.tradingKey,
    owner: saved.owner,
    levelNext: null,
    orderId: saved.orderId,
    accountId: saved.accountId,
    marketId: saved.marketId,
    note: saved.note as NoteRef,
    viewingPubkey: saved.viewingPubkey,
    lastMatchId: saved.lastMatchId,
    market,
    levelPrev: null,
    level: null,
    resumedBatch: saved.resumedBatch ?? null,
    accountNext: null,
    accountPrev: null,
    account: null,
    symbol: saved.symbol,
    amount: saved.amount,
    minFillSize: saved.minFillSize,
    expirySlot: saved.expirySlot,
    connectionId: saved.connectionId,
    bodyDigest: saved.bodyDigest,
    filled: saved.filled,
    sweepAfterSettlement: saved.sweepAfterSettlement,
    reason: saved.reason as SettlementFailureReason | null,
    cancelReason: saved.cancelReason as CancelReason | null,
  };
}

/** Rebuilds the open-order indexes in intake order, the order booking built them in. */
function relinkOpenOrders(state: VenueState): void {
  const open = [...state.orders.values()]
    .filter((row) => !isTerminal(row.state))
    .sort((a, b) => (a.sequence < b.sequence ? -1 : a.sequence > b.sequence ? 1 : 0));
  for (const row of open) {
    linkOpen(state, row, accountFor(state, row.accountId));
    if (row.pending !== null) row.market.pendingMatches.set(row.pending.matchKey(row.pendingAt), row);
  }
}
