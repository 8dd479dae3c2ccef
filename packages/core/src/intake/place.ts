import { type PlaceOrder, VenueError } from '@venue/protocol';
import type { PlaceCommand } from '../commands.ts';
import type { CoreConfig } from '../config.ts';
import type { ReplyEvent } from '../events.ts';
import { book } from '../state/order-index.ts';
import type { MarketState, OrderRow, VenueState } from '../state/venue-state.ts';
import { isTerminal } from '../state/venue-state.ts';
import { mulDivFloor } from '../u64.ts';

/**
 * The intake rules of a place-order body that need venue state (spec 2.1, 8). The rules that need
 * none (field shapes, zero order id, bid price 0, min fill above amount, key checks) were applied
 * by the protocol decoder before the command existed. Each rule has its own code; a refusal
 * throws before anything changes.
 */

/** Facts the checks establish, used to book the order. */
export interface AcceptedPlace {
  readonly market: MarketState;
  /** What the note holds: collateral_amount, or exactly the nominal cost. */
  readonly noteValue: bigint;
}

/** The earlier result of the exact same signed body by the same account, if any (spec 2.1). */
export function repeatOf(state: VenueState, command: PlaceCommand): OrderRow | undefined {
  const orderId = state.bodies.get(command.bodyDigest);
  if (orderId === undefined) return undefined;
  const row = state.orders.get(orderId);
  return row !== undefined && row.accountId === command.accountId ? row : undefined;
}

/**
 * Checks `order` for booking in the current state. `replacing` is the order a modify retires in
 * the same step: its note and id do not count as taken.
 */
export function checkPlace(
  state: VenueState,
  config: CoreConfig,
  order: PlaceOrder,
  accountId: string,
  replacing: OrderRow | null,
): AcceptedPlace {
  // spec 2.1 session_id: a body signed for another boot is stale even when all else is valid.
  if (order.session_id !== state.sessionId) {
    throw new VenueError(
      'STALE_SESSION',
      'session_id is not the current boot session; read GET /info and sign again',
    );
  }
  const marketId = state.marketIdBySymbol.get(order.symbol);
  const market = marketId === undefined ? undefined : state.markets.get(marketId);
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
  const existing = state.orders.get(order.order_id);
  if (existing !== undefined && existing !== replacing) {
    throw new VenueError(
      'DUPLICATE_ORDER_ID',
      `order_id ${order.order_id} is already used; choose a fresh random id`,
    );
  }
  checkNoteFree(state, order.note_commitment, replacing);
  // spec 2.1 arrival_nonce: strictly above every accepted nonce of the key.
  const last = state.nonces.get(order.trading_key)?.arrival ?? 0n;
  if (order.arrival_nonce <= last) {
    throw new VenueError(
      'STALE_ARRIVAL_NONCE',
      `arrival_nonce must be above ${last}, the last accepted for this trading key`,
    );
  }
  const open = state.openByAccount.get(accountId)?.size ?? 0;
  const freed = replacing !== null && !isTerminal(replacing.state) ? 1 : 0;
  if (open - freed >= config.accountOpenOrdersMax) {
    throw new VenueError(
      'OPEN_ORDER_LIMIT',
      `the account already has ${open} open orders, the most it may hold`,
    );
  }
  return { market, noteValue };
}

/**
 * decisions section 2: a bid's note covers floor(amount x price_limit / price_scale) quote; an ask's
 * covers `amount` base. collateral_amount, when present, is the note's real value and must cover it.
 */
function coveredValue(order: PlaceOrder, priceScale: bigint): bigint {
  const nominal =
    order.side === 'bid' ? mulDivFloor(order.amount, order.price_limit, priceScale) : order.amount;
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
  if ('orderId' in hold) {
    if (replacing !== null && hold.orderId === replacing.orderId) return;
    throw new VenueError('NOTE_IN_USE', 'note_commitment already backs a live or settlement-pending order');
  }
  if (state.slot <= hold.lockedUntilSlot) {
    throw new VenueError(
      'NOTE_IN_USE',
      `note_commitment is locked by a failed settlement until slot ${hold.lockedUntilSlot}; reuse it after that slot`,
    );
  }
}

/** Builds the row of an accepted order. */
export function newRow(
  state: VenueState,
  order: PlaceOrder,
  accepted: AcceptedPlace,
  fields: { accountId: string; connectionId: string | null; bodyDigest: string },
): OrderRow {
  const row: OrderRow = {
    sequence: state.nextSequence,
    orderId: order.order_id,
    accountId: fields.accountId,
    tradingKey: order.trading_key,
    ownerCommitment: order.owner_commitment,
    marketId: accepted.market.config.marketId,
    symbol: order.symbol,
    side: order.side,
    orderType: order.order_type,
    amount: order.amount,
    priceLimit: order.price_limit,
    minFillSize: order.min_fill_size ?? 0n,
    expirySlot: order.expiry_slot,
    arrivalSlot: state.slot,
    viewingPubkey: order.viewing_pubkey,
    connectionId: fields.connectionId,
    bodyDigest: fields.bodyDigest,
    note: {
      commitment: order.note_commitment,
      value: accepted.noteValue,
      treeId: order.tree_id ?? 0,
      merkleRoot: order.merkle_root,
    },
    filled: 0n,
    state: 'resting',
    arrivalBatchDone: false,
    sweepAfterSettlement: false,
    pending: null,
    lastMatchId: null,
    reason: null,
    cancelReason: null,
    lockExpirySlot: null,
    lastUpdateSlot: state.slot,
  };
  state.nextSequence += 1n;
  return row;
}

/** Records the key's new arrival nonce (only after every check passed). */
export function acceptArrivalNonce(state: VenueState, tradingKey: string, nonce: bigint): void {
  const nonces = state.nonces.get(tradingKey);
  if (nonces === undefined) state.nonces.set(tradingKey, { arrival: nonce, cancel: 0n });
  else nonces.arrival = nonce;
}

/** POST /orders and order.place (spec 4.3, 2.5). */
export function applyPlace(state: VenueState, config: CoreConfig, command: PlaceCommand): ReplyEvent[] {
  const repeat = repeatOf(state, command);
  if (repeat !== undefined) {
    return [{ type: 'placed', accountId: command.accountId, response: placeResponse(repeat), repeat: true }];
  }
  const accepted = checkPlace(state, config, command.order, command.accountId, null);
  const row = newRow(state, command.order, accepted, command);
  acceptArrivalNonce(state, row.tradingKey, command.order.arrival_nonce);
  book(state, row);
  return [{ type: 'placed', accountId: command.accountId, response: placeResponse(row), repeat: false }];
}

function placeResponse(row: OrderRow) {
  return { order_id: row.orderId, status: 'accepted' as const, arrival_slot: row.arrivalSlot };
}
