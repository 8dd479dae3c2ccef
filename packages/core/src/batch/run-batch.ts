import { AssertionError, NO_FILL_REASONS, type NoFillReason } from '@venue/protocol';
import { clearGatheredBatch, clearSortedBatch } from '../auction/clear-batch.ts';
import { NO_FILLS } from '../auction/fill-columns.ts';
import type { AuctionResult, Fills } from '../auction/types.ts';
import type { CoreConfig } from '../config.ts';
import type { BatchEvent, BatchPairing, CoreEvent } from '../events.ts';
import { priceBand } from '../market.ts';
import { sideOf, stopResting, stopRestingMany } from '../state/book-side.ts';
import { keepLastUnfilled, keepOwn, type LastUnfilled } from '../state/last-unfilled.ts';
import { AT_REF, type MarketColumns, NO_SLOT, SLOT_I32 } from '../state/market-columns.ts';
import { type Ending, finish } from '../state/order-index.ts';
import { reserve } from '../state/pending-match.ts';
import {
  type BookSide,
  MATCH_IDS_MAX,
  type MarketState,
  type OrderRow,
  type PriceLevel,
  type VenueState,
} from '../state/venue-state.ts';
import { BatchMatches } from './batch-matches.ts';
import { type GatheredBookSide, gatherSide } from './gather.ts';
import {
  ahead,
  type BatchOutcome,
  firstSkips,
  noFillReason,
  reasonOf,
  unclearedReason,
} from './no-fill-reason.ts';
import { quietBatch } from './quiet-batch.ts';

/**
 * Runs one market's batch at the current slot (decisions section 2). Takes part: every resting
 * order of the market that arrived before this slot. Orders in an unsettled match are reserved and
 * take no part. Each order that fills gets one match for this batch and waits in
 * `pending_settlement`; ioc and fok orders that got nothing end here. Events are appended to
 * `events`.
 *
 * A book that cannot cross takes the shortcut in quiet-batch.ts instead, which reads no order.
 *
 * Cost: one walk of the market's live list to number the participants, one walk of each book side
 * (already in priority) to hand them to the auction, and work per fill. Nothing is sorted or looked
 * up by id.
 */
export function runBatch(
  state: VenueState,
  config: CoreConfig,
  market: MarketState,
  events: CoreEvent[],
): void {
  if (config.quietBookShortcut !== false && quietBatch(state, config, market, events)) return;
  const rows = numberParticipants(state, market);
  if (rows.length === 0) return;
  const batch = market.batchCount;
  market.batchCount += 1n;
  const canClear = market.pausedReason === null && state.venuePauseReasons.length === 0;
  const cleared = canClear ? auction(state, market, rows, batch, events) : NOT_CLEARED;
  applyOutcome(state, config, market, rows, cleared, batch, events);
}

/**
 * The batch's participants in intake order. Each open order of the market gets its ref for this
 * batch in the columns (`columns.ref`): its index among the participants (the handle the auction's
 * fills and skips name), or -1. The walk follows the columns' live list and resting marks and reads
 * no row (market-columns.ts): on a book far larger than the caches, reading each row cost a cache
 * miss or more, about a quarter of a 100,000-order clear (decisions D146).
 *
 * Arrival slots never decrease along the live list (rows join its tail stamped with the current
 * slot, and a partial fill keeps its row in place; validateInternalState checks it), so the orders
 * that arrived in this slot, which take no part, are a run at its tail: found from the tail first,
 * reading only those rows.
 */
function numberParticipants(state: VenueState, market: MarketState): OrderRow[] {
  const { rows: rowAt, liveNext, livePrev, resting, i32 } = market.columns;
  let arrivedNow = NO_SLOT;
  for (
    let slot = market.columns.liveTail;
    slot !== NO_SLOT && (rowAt[slot] as OrderRow).arrivalSlot >= state.slot;
    slot = livePrev[slot] as number
  ) {
    arrivedNow = slot;
  }
  // Sized once (the live list's length bounds the participants) rather than grown by copies.
  const rows: OrderRow[] = new Array(market.columns.liveSize);
  let taking = 0;
  let slot = market.columns.liveHead;
  for (; slot !== arrivedNow; slot = liveNext[slot] as number) {
    if (resting[slot] === 1) {
      i32[slot * SLOT_I32 + AT_REF] = taking;
      rows[taking] = rowAt[slot] as OrderRow;
      taking += 1;
    } else {
      i32[slot * SLOT_I32 + AT_REF] = -1;
    }
  }
  rows.length = taking;
  for (; slot !== NO_SLOT; slot = liveNext[slot] as number) i32[slot * SLOT_I32 + AT_REF] = -1;
  return rows;
}

/**
 * The auction reads `ref` from the orders themselves where it works on them rather than on the
 * gathered columns (the bigint path, and the rounds after fill-or-kill orders are set aside):
 * only then are the participants' rows given their refs.
 */
function writeRefs(rows: readonly OrderRow[]): void {
  for (let ref = 0; ref < rows.length; ref += 1) (rows[ref] as OrderRow).ref = ref;
}

/** The participants of one side in allocation priority: the side's order, less those not taking part. */
function participantsByPriority(side: BookSide, columns: MarketColumns<OrderRow>): OrderRow[] {
  const taking: OrderRow[] = [];
  for (const level of side.levels) {
    for (let row = level.head; row !== null; row = row.levelNext) {
      if (columns.ref(row.slot) >= 0) taking.push(row);
    }
  }
  return taking;
}

interface Cleared {
  readonly fills: Fills;
  /** The sides as gathered for the auction, or null (the bigint path, or no auction). */
  readonly gathered: { readonly bids: GatheredBookSide; readonly asks: GatheredBookSide } | null;
  readonly price: bigint;
  /** What explains the batch to each participant that got nothing (no-fill-reason.ts). */
  readonly result: AuctionResult | null;
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
  /** The batch record, whose counts of unfilled orders applyOutcome fills in; null when paused. */
  readonly record: BatchEvent | null;
}

const NOT_CLEARED: Cleared = {
  fills: NO_FILLS,
  gathered: null,
  price: 0n,
  result: null,
  bandLow: 0n,
  bandHigh: 0n,
  record: null,
};

function auction(
  state: VenueState,
  market: MarketState,
  rows: readonly OrderRow[],
  batch: bigint,
  events: CoreEvent[],
): Cleared {
  const oracle = market.oraclePrice;
  const band = oracle === null ? { low: 0n, high: 0n } : priceBand(market.config, oracle);
  const priced = {
    oraclePrice: oracle,
    bandLow: band.low,
    bandHigh: band.high,
    priceScale: market.config.priceScale,
  };
  // Rows are handed over as they are: an open row carries the fields the auction reads. A book whose
  // quantities are exact as numbers (the usual case) is gathered in one pass (gather.ts).
  const bids = gatherSide(market.bids, market.columns);
  const asks = bids === null ? null : gatherSide(market.asks, market.columns);
  const gathered = bids !== null && asks !== null;
  if (!gathered || bids.fillOrKillCount + asks.fillOrKillCount > 0) writeRefs(rows);
  const result = gathered
    ? clearGatheredBatch({
        oraclePrice: priced.oraclePrice,
        bandLow: priced.bandLow,
        bandHigh: priced.bandHigh,
        priceScale: priced.priceScale,
        bids,
        asks,
      })
    : clearSortedBatch({
        ...priced,
        bids: participantsByPriority(market.bids, market.columns),
        asks: participantsByPriority(market.asks, market.columns),
      });
  const record: BatchEvent = {
    type: 'batch',
    marketId: market.config.marketId,
    batch,
    slot: state.slot,
    result,
    participants: 0,
    unfilled: {},
  };
  events.push(record);
  return {
    fills: result.fills,
    gathered: gathered ? { bids, asks } : null,
    price: result.clearingPrice ?? 0n,
    result,
    bandLow: band.low,
    bandHigh: band.high,
    record,
  };
}

const IOC_REMAINDER: Ending = { kind: 'cancelled', cancelReason: 'ioc_remainder' };
const FOK_UNFILLED: Ending = { kind: 'cancelled', cancelReason: 'fok_unfilled' };

/**
 * Applies the batch to its participants in intake order, in two passes that each read a row once
 * (rows lie in memory about in intake order): first the orders that filled, each of which gets one
 * match and its note reserved, then the orders that got nothing, each told why. The first pass also
 * finds the best filled order of each side, which the second pass's reasons compare against, from
 * rows it reads anyway (a separate pass over the fills read two scattered rows per fill). ioc and
 * fok orders end their arrival batch. Refs are the indexes of `rows`, so each order's fills are
 * gathered by ref into one flat array (counting sort, fill order kept), and walking refs in order
 * gives match ids in intake order without sorting. Orders whose arrival batch leaves them with
 * nothing end after every match event, in intake order.
 */
function applyOutcome(
  state: VenueState,
  config: CoreConfig,
  market: MarketState,
  rows: readonly OrderRow[],
  cleared: Cleared,
  batch: bigint,
  events: CoreEvent[],
): void {
  const count = rows.length;
  const { start, fillAt } = fillsByRef(cleared.fills, count);
  if (cleared.record !== null) cleared.record.participants = count;
  // A batch that did not clear gives every participant the market's reason: kept once, not per row
  // (set before the fills, whose rows keepLastUnfilled reads it for; a batch that did not clear has none).
  const marketReason = unclearedReason(cleared.result);
  if (marketReason !== null) market.lastUncleared = { batch, slot: state.slot, reason: marketReason };
  const applying: Applying = { state, config, market, rows, cleared, batch, events, start };
  const best = applyFills(applying, fillAt);
  const explained: BatchOutcome = {
    result: cleared.result,
    bandLow: cleared.bandLow,
    bandHigh: cleared.bandHigh,
    firstSkip: firstSkips(cleared.result, count),
    bestFilledBid: best.bid,
    bestFilledAsk: best.ask,
  };
  explainUnfilled(applying, explained, marketReason);
}

/** One batch's outcome being applied: what both passes of applyOutcome read. */
interface Applying {
  readonly state: VenueState;
  readonly config: CoreConfig;
  readonly market: MarketState;
  readonly rows: readonly OrderRow[];
  readonly cleared: Cleared;
  readonly batch: bigint;
  readonly events: CoreEvent[];
  /** fillsByRef's: ref r filled when start[r] < start[r + 1]. */
  readonly start: Int32Array;
}

/** The best filled order of each side, found while the fills are applied. */
interface BestFilled {
  bid: OrderRow | null;
  ask: OrderRow | null;
}

/**
 * Each order that filled gets one match, in ref order: the first pass of applyOutcome. The batch's
 * matches are one record (batch-matches.ts, decisions D148) that is also each filled order's
 * reservation: per filled order this writes the row's state and its place in the record, and
 * builds no object and no bigint.
 */
function applyFills(applying: Applying, fillAt: Int32Array): BestFilled {
  const { state, config, market, rows, cleared, batch, events, start } = applying;
  const fills = cleared.fills;
  if (fills.length === 0) return { bid: null, ask: null };
  const count = rows.length;
  const { rank, filled } = ranksOfFilled(start, count);
  // From the gathered columns when the auction had them: the best filled order of each side is the
  // first filled in priority, and the levels' resting totals drop a level at a time, so this pass
  // reads no row for either (the bigint path does both per row below).
  const gathered = cleared.gathered;
  const best: BestFilled =
    gathered === null
      ? { bid: null, ask: null }
      : { bid: firstFilledOrder(gathered.bids, start), ask: firstFilledOrder(gathered.asks, start) };
  if (gathered !== null) {
    leaveRestingTotals(market.bids, gathered.bids, rank, market.columns.resting);
    leaveRestingTotals(market.asks, gathered.asks, rank, market.columns.resting);
  }
  // Only orders still due their arrival batch (ioc, fok) end here: none when the market has none.
  const arrivals = market.arrivalBatchDue.size > 0;
  const firstMatchId = takeMatchIds(market, filled);
  const lockExpirySlot = state.slot + config.lockDurationSlots;
  // One record of who filled against whom for the whole batch: each match reads its lists from it
  // when asked (match-pairing.ts), so no list or fill object is built per order here.
  const pairing: BatchPairing = { fills, start, fillAt, rank, firstMatchId };
  const matches = new BatchMatches(
    {
      marketId: market.config.marketId,
      batch,
      slot: state.slot,
      clearingPrice: cleared.price,
      lockExpirySlot,
    },
    pairing,
    filled,
  );
  const { orders, refs } = matches;
  // keepLastUnfilled has nothing to keep while the market has no uncleared batch: checked once here
  // rather than through each row's market, a field on a cache line of the row nothing else reads.
  const keepUnfilled = market.lastUncleared !== null;
  const firstKey = matches.matchKey(0);
  for (let ref = 0; ref < count; ref += 1) {
    const k = rank[ref] as number;
    if (k < 0) continue;
    const row = rows[ref] as OrderRow;
    orders[k] = row;
    refs[k] = ref;
    if (keepUnfilled) keepLastUnfilled(row);
    if (gathered === null) {
      if (row.side === 'bid') {
        if (best.bid === null || ahead(row, best.bid)) best.bid = row;
      } else if (best.ask === null || ahead(row, best.ask)) {
        best.ask = row;
      }
      stopResting(sideOf(market, row.side), row);
    }
    row.state = 'pending_settlement';
    reserve(row, matches, k);
    row.lockExpirySlot = lockExpirySlot;
    row.lastUpdateSlot = state.slot;
    market.pendingMatches.set(firstKey + k, row);
    // ioc and fok take part in their arrival batch only (decisions section 2); a filled ioc's
    // remainder ends after its settlement.
    if (arrivals && row.orderType !== 'limit' && !row.arrivalBatchDone) arrivalBatchDone(market, row);
  }
  // The record stands for every match event, and each for its order's pending_settlement event
  // (pending-events.ts), in match id order.
  events.push({ type: 'matches', matches });
  return best;
}

/**
 * Each order that took part and got nothing is told why (GET /orders/{id}): the second pass of
 * applyOutcome. ioc and fok orders among them end after every match event, in ref order.
 *
 * When the auction had the gathered columns, the reasons come from them, side by side in priority,
 * and are kept in the market's columns by slot (state/last-unfilled.ts): no row is read or written
 * except those of orders that end here (D148). The bigint path reads each row instead.
 */
function explainUnfilled(
  applying: Applying,
  explained: BatchOutcome,
  marketReason: NoFillReason | null,
): void {
  const { state, config, market, rows, cleared, batch, events, start } = applying;
  const count = rows.length;
  const gathered = cleared.gathered;
  // One record per reason, shared by the batch's orders: the explanation writes a pointer per order.
  const shared: (LastUnfilled | undefined)[] = new Array(NO_FILL_REASONS.length);
  const recordOf = (code: number): LastUnfilled =>
    (shared[code] ??= { batch, slot: state.slot, reason: NO_FILL_REASONS[code] as NoFillReason });
  // Each unfilled ref's reason and how many got each. The market's reason is read through
  // lastUncleared; an order records only its own.
  const noting: Noting = {
    reasonAt: new Uint8Array(count),
    tally: new Int32Array(NO_FILL_REASONS.length),
    marketCode: marketReason === null ? -1 : REASON_CODE[marketReason],
    recordOf,
  };
  const { reasonAt, tally } = noting;
  if (gathered !== null) {
    explainSide(gathered.bids, 'bid', applying, explained, noting);
    explainSide(gathered.asks, 'ask', applying, explained, noting);
  } else {
    for (let ref = 0; ref < count; ref += 1) {
      if (start[ref] !== start[ref + 1]) continue;
      const row = rows[ref] as OrderRow;
      const code = note(noting, ref, noFillReason(row, ref, explained));
      if (code !== noting.marketCode) keepOwn(row, recordOf(code));
    }
  }
  const unfilledCounts: Partial<Record<NoFillReason, number>> = cleared.record?.unfilled ?? {};
  for (let code = 0; code < tally.length; code += 1) {
    const n = tally[code] as number;
    if (n > 0) unfilledCounts[NO_FILL_REASONS[code] as NoFillReason] = n;
  }
  // Arrival-batch orders that got nothing end now, after every match event, in ref order.
  if (market.arrivalBatchDue.size === 0) return;
  const ending: number[] = [];
  for (const row of market.arrivalBatchDue) {
    const ref = market.columns.ref(row.slot);
    if (ref >= 0 && reasonAt[ref] !== 0) ending.push(ref);
  }
  ending.sort((a, b) => a - b);
  for (const ref of ending) {
    const row = rows[ref] as OrderRow;
    keepOwn(row, recordOf((reasonAt[ref] as number) - 1));
    arrivalBatchDone(market, row);
  }
  for (const ref of ending) {
    const row = rows[ref] as OrderRow;
    const reason = NO_FILL_REASONS[(reasonAt[ref] as number) - 1] as NoFillReason;
    const ended = finish(state, config, row, row.orderType === 'ioc' ? IOC_REMAINDER : FOK_UNFILLED);
    // The event says why the arrival batch gave it nothing (an additional field, docs/api.md).
    events.push({ ...ended, unfilledReason: reason });
  }
}

/** What explaining a batch's unfilled orders collects (explainUnfilled). */
interface Noting {
  /** ref -> its reason's index in NO_FILL_REASONS plus one (0: it filled). */
  readonly reasonAt: Uint8Array;
  /** Orders given each reason. */
  readonly tally: Int32Array;
  /** The market's reason's index, or -1 (the batch cleared). */
  readonly marketCode: number;
  /** The batch's one shared record for a reason. */
  readonly recordOf: (code: number) => LastUnfilled;
}

/** Notes `reason` for `ref` and counts it; returns its code. */
function note(noting: Noting, ref: number, reason: NoFillReason): number {
  const code = REASON_CODE[reason];
  noting.reasonAt[ref] = code + 1;
  noting.tally[code] = (noting.tally[code] as number) + 1;
  return code;
}

/**
 * The reasons of one gathered side's unfilled orders, walked in priority: each order's limit is its
 * level's price, its terms are the gathered columns, and a filled order of its side is ahead of it
 * when the side's first filled order comes before it in this walk. Each is kept in the market's
 * columns by the order's slot, so no row is touched.
 */
function explainSide(
  side: GatheredBookSide,
  name: 'bid' | 'ask',
  applying: Applying,
  explained: BatchOutcome,
  noting: Noting,
): void {
  const { start, market } = applying;
  const unfilled = market.columns.unfilled;
  const { refs, slots } = side;
  const { remaining, minFill } = side.units;
  const { prices, ends } = side.levels;
  const firstFilled = firstFilledAt(side, start);
  let level = 0;
  for (let at = 0; at < refs.length; at += 1) {
    while (at >= (ends[level] as number)) level += 1;
    const ref = refs[at] as number;
    if (start[ref] !== start[ref + 1]) continue;
    const reason = reasonOf(
      explained,
      explained.firstSkip[ref],
      name,
      prices[level] as bigint,
      minFill[at] === remaining[at],
      firstFilled >= 0 && firstFilled < at,
    );
    const code = note(noting, ref, reason);
    if (code !== noting.marketCode) unfilled[slots[at] as number] = noting.recordOf(code);
  }
}

/** A reason's index in NO_FILL_REASONS. */
const REASON_CODE = Object.fromEntries(NO_FILL_REASONS.map((reason, code) => [reason, code])) as Record<
  NoFillReason,
  number
>;

/** ioc and fok take part in their arrival batch only (decisions section 2): this one was it. */
function arrivalBatchDone(market: MarketState, row: OrderRow): void {
  row.arrivalBatchDone = true;
  row.fillOrKill = false;
  market.columns.fillOrKill[row.slot] = 0;
  market.arrivalBatchDue.delete(row);
}

/** The index in a gathered side (priority order) of its first order that filled, or -1. */
function firstFilledAt(side: GatheredBookSide, start: Int32Array): number {
  const { refs } = side;
  for (let at = 0; at < refs.length; at += 1) {
    const ref = refs[at] as number;
    if (start[ref] !== start[ref + 1]) return at;
  }
  return -1;
}

function firstFilledOrder(side: GatheredBookSide, start: Int32Array): OrderRow | null {
  const at = firstFilledAt(side, start);
  return at < 0 ? null : (side.orders[at] as OrderRow);
}

/**
 * The filled orders of a gathered side stop counting as resting: their marks are cleared by slot and
 * each level's totals drop once, by its filled orders' count and remaining (exact as numbers: the
 * side was gathered).
 */
function leaveRestingTotals(
  side: BookSide,
  gathered: GatheredBookSide,
  rank: Int32Array,
  resting: Uint8Array,
): void {
  const { refs, slots, bookLevels } = gathered;
  const { ends } = gathered.levels;
  const remaining = gathered.units.remaining;
  let from = 0;
  for (let level = 0; level < bookLevels.length; level += 1) {
    const to = ends[level] as number;
    let count = 0;
    let units = 0;
    for (let at = from; at < to; at += 1) {
      if ((rank[refs[at] as number] as number) < 0) continue;
      count += 1;
      units += remaining[at] as number;
      resting[slots[at] as number] = 0;
    }
    from = to;
    if (count > 0) stopRestingMany(side, bookLevels[level] as PriceLevel, count, BigInt(units));
  }
}

/** Each ref's rank among the refs that filled (start[r] < start[r + 1]), in ref order, or -1. */
function ranksOfFilled(start: Int32Array, count: number): { rank: Int32Array; filled: number } {
  const rank = new Int32Array(count);
  let filled = 0;
  for (let ref = 0; ref < count; ref += 1) {
    if (start[ref] === start[ref + 1]) {
      rank[ref] = -1;
    } else {
      rank[ref] = filled;
      filled += 1;
    }
  }
  return { rank, filled };
}

/** The first of `count` match ids the market issues next, counting up (intake order within a batch). */
function takeMatchIds(market: MarketState, count: number): bigint {
  const first = market.matchCount;
  if (!(first + BigInt(count) <= MATCH_IDS_MAX)) throw new AssertionError('match ids ran past 2^53');
  market.matchCount = first + BigInt(count);
  return first;
}

/** Each ref's fill indexes, in fill order: those of ref r are fillAt[start[r]] to fillAt[start[r + 1] - 1]. */
function fillsByRef(fills: Fills, count: number): { start: Int32Array; fillAt: Int32Array } {
  const start = new Int32Array(count + 1);
  for (let index = 0; index < fills.length; index += 1) {
    const bidRef = fills.bidRef(index);
    const askRef = fills.askRef(index);
    if (!(bidRef >= 0 && bidRef < count && askRef >= 0 && askRef < count)) {
      throw new AssertionError(`fill names unknown ref ${bidRef}/${askRef}`);
    }
    start[bidRef + 1] = (start[bidRef + 1] as number) + 1;
    start[askRef + 1] = (start[askRef + 1] as number) + 1;
  }
  for (let ref = 0; ref < count; ref += 1)
    start[ref + 1] = (start[ref + 1] as number) + (start[ref] as number);
  const cursor = start.slice(0, count);
  const fillAt = new Int32Array(2 * fills.length);
  for (let index = 0; index < fills.length; index += 1) {
    const bidRef = fills.bidRef(index);
    const askRef = fills.askRef(index);
    const bidAt = cursor[bidRef] as number;
    fillAt[bidAt] = index;
    cursor[bidRef] = bidAt + 1;
    const askAt = cursor[askRef] as number;
    fillAt[askAt] = index;
    cursor[askRef] = askAt + 1;
  }
  return { start, fillAt };
}
