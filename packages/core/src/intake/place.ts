import { type PlaceOrder, VenueError } from '@venue/protocol';
import type { PlaceCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { ReplyEvent } from '../events.ts';
import { accountFor, book } from '../state/order-index.ts';
import { own } from '../state/own-string.ts';
import {
  type AccountState,
  effectiveMinFill,
  isTerminal,
  type KeyNonces,
  type MarketState,
  NO_SLOT,
  type OrderRow,
  type VenueState,
} from '../state/venue-state.ts';
import { nominalNoteValue } from './note-value.ts';

/**
 * The intake rules of a place-order body that need venue state (spec 2.1, 8). The rules that need
 * none (field shapes, zero order id, bid price 0, min fill above amount, key checks) were applied
 * by the protocol decoder before the command existed. Each rule has its own code; a refusal
 * throws before anything changes.
 */

/**
 * Facts the checks establish, used to book the order. The account and nonce records the checks
 * looked up are handed on, so booking does not look them up again.
 */
export interface AcceptedPlace {
  readonly market: MarketState;
  /** What the note holds: collateral_amount, or exactly the nominal cost. */
  readonly noteValue: bigint;
  readonly account: AccountState | undefined;
  readonly nonces: KeyNonces | undefined;
}

/**
 * The earlier result of the exact same signed body by the same account, if any (spec 2.1). A body
 * names its order id, so the order it booked, if any, is the one filed under that id with that
 * body's digest. An order replaced by a reprice in place, or compacted after its readable window,
 * no longer answers for its old body here (assertNotCompactedRepeat covers the compacted one). `existing` is the order filed under the body's id.
 */
export function isRepeatOf(
  existing: OrderRow | undefined,
  bodyDigest: string,
  accountId: string,
): existing is OrderRow {
  return existing !== undefined && existing.bodyDigest === bodyDigest && existing.accountId === accountId;
}

/**
 * A repeat answers as the first time only while its order lives (resting, partially filled or
 * pending settlement): once it has finished, `accepted` would claim a booking that is gone, so the
 * body is refused and the owner reads GET /orders/{id} for what became of it (docs/security.md).
 */
export function assertRepeatLive(existing: OrderRow): void {
  if (isTerminal(existing.state)) {
    throw new VenueError(
      'ORDER_FINISHED',
      `this body already booked order ${existing.orderId}, which is now ${existing.state}; nothing is booked again`,
    );
  }
}

/**
 * The body of an order compacted after its readable window (FinishedOrder) is refused the same way,
 * though its details can no longer be read.
 */
export function assertNotCompactedRepeat(
  state: VenueState,
  orderId: string,
  bodyDigest: string,
  accountId: string,
): void {
  const finished = state.finished.get(orderId);
  if (finished === undefined || finished.bodyDigest !== bodyDigest || finished.accountId !== accountId)
    return;
  throw new VenueError(
    'ORDER_FINISHED',
    `this body already booked order ${orderId}, which ended ${finished.state} and is no longer readable; nothing is booked again`,
  );
}

/**
 * Checks `order` for booking in the current state. `replacing` is the order a modify retires in
 * the same step: its note and id do not count as taken. `existing` is the order already filed
 * under `order.order_id` (the caller looked it up for repeats).
 */
export function checkPlace(
  state: VenueState,
  config: CoreConfig,
  order: PlaceOrder,
  accountId: string,
  replacing: OrderRow | null,
  existing: OrderRow | undefined,
): AcceptedPlace {
  // spec 2.1 session_id: a body signed for another boot is stale even when all else is valid.
  if (order.session_id !== state.sessionId) {
    throw new VenueError(
      'STALE_SESSION',
      'session_id is not the current boot session; read GET /info and sign again',
    );
  }
  const market = state.marketsBySymbol.get(order.symbol);
  if (market === undefined) {
    throw new VenueError('UNKNOWN_SYMBOL', `symbol ${order.symbol} is not listed; see GET /instruments`);
  }
  // spec section 1 items 7-8: order writes re-check the gates.
  if (state.venuePauseReasons.length > 0) {
    throw new VenueError(
      'TRADING_PAUSED',
      `new trading is paused venue-wide (${state.venuePauseReasons.join(', ')})`,
    );
  }
  if (market.pausedReason !== null) {
    throw new VenueError(
      'MARKET_PAUSED',
      `new trading on ${order.symbol} is paused (${market.pausedReason})`,
    );
  }
  const { config: m } = market;
  // spec 2.1 price_limit: any non-zero value is a multiple of tick_size.
  if (order.price_limit % m.tickSize !== 0n) {
    throw new VenueError(
      'PRICE_NOT_ON_TICK',
      `price_limit ${order.price_limit} is not a multiple of tick_size ${m.tickSize}`,
    );
  }
  if (order.amount < m.minSize) {
    throw new VenueError(
      'BELOW_MIN_SIZE',
      `amount ${order.amount} is below the minimum size ${m.minSize} of ${order.symbol}`,
    );
  }
  // spec 2.1 expiry_slot and spec 8: leave the settlement buffer, stay within the maximum lifetime.
  const earliest = state.slot + config.settlementBufferSlots;
  const latest = state.slot + config.orderLifetimeSlotsMax;
  if (order.expiry_slot < earliest) {
    throw new VenueError(
      'EXPIRY_TOO_SOON',
      `expiry_slot must be at least ${earliest} (current slot + settlement buffer)`,
    );
  }
  if (order.expiry_slot > latest) {
    throw new VenueError(
      'EXPIRY_TOO_FAR',
      `expiry_slot must be at most ${latest} (current slot + ${config.orderLifetimeSlotsMax})`,
    );
  }
  const noteValue = coveredValue(order, m.priceScale);
  if (order.tree_id !== undefined && order.tree_id >= config.treeCount) {
    throw new VenueError('TREE_ID_OUT_OF_RANGE', `tree_id must be below ${config.treeCount}`);
  }
  const treeId = order.tree_id ?? 0;
  if (!(state.roots.get(treeId) ?? []).includes(order.merkle_root)) {
    throw new VenueError(
      'UNKNOWN_MERKLE_ROOT',
      `merkle_root is not in the recent-root window of tree ${treeId}; prove against GET /tree/root`,
    );
  }
  // spec 2.1 owner_commitment: the matcher re-derives note_commitment and rejects a mismatch.
  if (
    config.noteCommitment(order.owner_commitment, order.note_inner_hash, noteValue) !== order.note_commitment
  ) {
    throw new VenueError(
      'NOTE_COMMITMENT_MISMATCH',
      'note_commitment does not re-derive from owner_commitment, note_inner_hash and the note value the order claims',
    );
  }
  // A compacted order's id stays taken as long as its body is refused (FinishedOrder).
  if ((existing !== undefined && existing !== replacing) || state.finished.has(order.order_id)) {
    throw new VenueError(
      'DUPLICATE_ORDER_ID',
      `order_id ${order.order_id} is already used; choose a fresh random id`,
    );
  }
  checkNoteFree(state, order.note_commitment, replacing);
  // spec 2.1 arrival_nonce: strictly above every accepted nonce of the key.
  const nonces = state.nonces.get(order.trading_key);
  const last = nonces === undefined ? 0n : nonces.arrival;
  if (order.arrival_nonce <= last) {
    throw new VenueError(
      'STALE_ARRIVAL_NONCE',
      `arrival_nonce must be above ${last}, the last accepted for this trading key`,
    );
  }
  const account = state.accounts.get(accountId);
  const open = account === undefined ? 0 : account.open;
  const freed = replacing !== null && !isTerminal(replacing.state) ? 1 : 0;
  if (open - freed >= config.accountOpenOrdersMax) {
    throw new VenueError(
      'OPEN_ORDER_LIMIT',
      `the account already has ${open} open orders, the most it may hold`,
    );
  }
  return { market, noteValue, account, nonces };
}

/**
 * decisions section 2: a bid's note covers floor(amount x price_limit / price_scale) quote; an ask's
 * covers `amount` base. collateral_amount, when present, is the note's real value and must cover it.
 */
function coveredValue(order: PlaceOrder, priceScale: bigint): bigint {
  const nominal = nominalNoteValue(order, priceScale);
  if (nominal === null) {
    throw new VenueError(
      'COST_OVERFLOW',
      'amount x price_limit / price_scale does not fit in u64; lower amount or price',
    );
  }
  if (nominal === 0n) {
    throw new VenueError(
      'BELOW_MIN_SIZE',
      'the order is worth less than one quote unit; raise amount or price_limit',
    );
  }
  if (order.collateral_amount === undefined) return nominal;
  if (order.collateral_amount < nominal) {
    throw new VenueError(
      'INSUFFICIENT_COLLATERAL',
      `collateral_amount ${order.collateral_amount} is below the nominal cost ${nominal}`,
    );
  }
  return order.collateral_amount;
}

/** spec 2.1 note_commitment: one live or settlement-pending order per note; failed locks block too. */
function checkNoteFree(state: VenueState, commitment: string, replacing: OrderRow | null): void {
  const hold = state.notes.get(commitment);
  if (hold === undefined) return;
  if (typeof hold !== 'bigint') {
    if (hold === replacing) return;
    throw new VenueError('NOTE_IN_USE', 'note_commitment already backs a live or settlement-pending order');
  }
  if (state.slot <= hold) {
    throw new VenueError(
      'NOTE_IN_USE',
      `note_commitment is locked by a failed settlement until slot ${hold}; reuse it after that slot`,
    );
  }
}

/** What a reprice in place carries over from the order it replaces (spec 4.1 rule 7). */
export interface Carried {
  readonly filled: bigint;
  readonly lastMatchId: bigint | null;
}

const NOTHING_CARRIED: Carried = { filled: 0n, lastMatchId: null };

/**
 * Builds the row of an accepted order. A reprice in place carries the old order's fills: the
 * replacement's amount is what is open from now on, so the row's amount is that plus the fills.
 */
export function newRow(
  state: VenueState,
  order: PlaceOrder,
  accepted: AcceptedPlace,
  fields: { accountId: string; connectionId: string | null; bodyDigest: string },
  carried: Carried = NOTHING_CARRIED,
): OrderRow {
  const minFillSize = order.min_fill_size ?? 0n;
  // Field order matters for speed: the fields a batch reads or writes come first, so a batch touches
  // the first few cache lines of each row and not the rest; the ones a filled order's row gets
  // written (state to lastUpdateSlot) sit together, then those the unfilled are read and written
  // (D148: about 5 ms of a 100,000-order clear). snapshot.ts builds restored rows in the same order,
  // so all rows share one shape. Strings are copies (own-string.ts): a row outlives
  // the request it came from by minutes.
  const row: OrderRow = {
    side: order.side,
    priceLimit: order.price_limit,
    remaining: order.amount,
    minFill: effectiveMinFill(minFillSize, order.amount),
    arrivalSlot: state.slot,
    sequence: state.nextSequence,
    fillOrKill: order.order_type === 'fok',
    ref: -1,
    slot: NO_SLOT,
    state: 'resting',
    pending: null,
    pendingAt: 0,
    lockExpirySlot: null,
    lastUpdateSlot: state.slot,
    orderType: order.order_type,
    arrivalBatchDone: false,
    unfilledBatch: null,
    unfilledSlot: null,
    unfilledReason: null,
    tradingKey: own(order.trading_key),
    owner: own(order.owner_commitment),
    levelNext: null,
    orderId: own(order.order_id),
    accountId: fields.accountId,
    marketId: accepted.market.config.marketId,
    note: {
      commitment: own(order.note_commitment),
      value: accepted.noteValue,
      treeId: order.tree_id ?? 0,
      merkleRoot: own(order.merkle_root),
    },
    viewingPubkey: own(order.viewing_pubkey),
    lastMatchId: carried.lastMatchId,
    market: accepted.market,
    levelPrev: null,
    level: null,
    resumedBatch: null,
    accountNext: null,
    accountPrev: null,
    account: null,
    symbol: order.symbol,
    amount: carried.filled === 0n ? order.amount : order.amount + carried.filled,
    minFillSize,
    expirySlot: order.expiry_slot,
    connectionId: fields.connectionId,
    bodyDigest: own(fields.bodyDigest),
    filled: carried.filled,
    sweepAfterSettlement: false,
    reason: null,
    cancelReason: null,
  };
  state.nextSequence += 1n;
  return row;
}

/** Records the key's new arrival nonce (only after every check passed). */
export function acceptArrivalNonce(
  state: VenueState,
  tradingKey: string,
  nonce: bigint,
  known: KeyNonces | undefined = state.nonces.get(tradingKey),
): void {
  if (known === undefined) state.nonces.set(tradingKey, { arrival: nonce, cancel: 0n });
  else known.arrival = nonce;
}

/** POST /orders and order.place (spec 4.3, 2.5). */
export function applyPlace(state: VenueState, config: CoreConfig, command: PlaceCommand): ReplyEvent[] {
  const existing = state.orders.get(command.order.order_id);
  if (isRepeatOf(existing, command.bodyDigest, command.accountId)) {
    assertRepeatLive(existing);
    return [
      { type: 'placed', accountId: command.accountId, response: placeResponse(existing), repeat: true },
    ];
  }
  if (existing === undefined) {
    assertNotCompactedRepeat(state, command.order.order_id, command.bodyDigest, command.accountId);
  }
  const accepted = checkPlace(state, config, command.order, command.accountId, null, existing);
  const row = newRow(state, command.order, accepted, command);
  acceptArrivalNonce(state, row.tradingKey, command.order.arrival_nonce, accepted.nonces);
  book(state, row, accepted.account ?? accountFor(state, command.accountId));
  return [{ type: 'placed', accountId: command.accountId, response: placeResponse(row), repeat: false }];
}

function placeResponse(row: OrderRow) {
  return { order_id: row.orderId, status: 'accepted' as const, arrival_slot: row.arrivalSlot };
}
