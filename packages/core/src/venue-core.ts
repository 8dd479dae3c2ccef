import { createHash } from 'node:crypto';
import { AssertionError, assert, type DeadManStatus, type OrderRecord, VenueError } from '@venue/protocol';
import type { Command } from './commands.ts';
import { assertCoreConfig, type CoreConfig } from './config.ts';
import type { CoreEvent } from './events.ts';
import { applyCancel } from './intake/cancel.ts';
import { applyDisconnect } from './intake/disconnect.ts';
import { applyModify } from './intake/modify.ts';
import { applyPlace } from './intake/place.ts';
import { applyDeadMan, deadManStatus, fireDeadMenAtBoot } from './lifecycle/dead-man.ts';
import { applyNotesConsumed } from './lifecycle/notes-consumed.ts';
import { applyMatchFailed, applyMatchSettled, isPendingMatch } from './lifecycle/settlement.ts';
import { applyTick } from './lifecycle/tick.ts';
import { assertMarketConfig, type MarketConfig } from './market.ts';
import { validateState } from './state/invariants.ts';
import { lastUnfilled } from './state/last-unfilled.ts';
import { lastMatchIdOf, pendingOf } from './state/pending-match.ts';
import { restoreState, snapshotState } from './state/snapshot.ts';
import { emptyMarket, emptyState, type OrderRow, type VenueState } from './state/venue-state.ts';

/**
 * The venue core: a deterministic state machine. `apply` takes one command and returns the events
 * it caused, or throws a VenueError (nothing changed) when an intake rule refuses it. It reads no
 * clock, draws no random numbers and does no I/O, so the same commands always give the same state
 * and events: recovery is replay, and stateHash() proves it.
 */
export class VenueCore {
  readonly #config: CoreConfig;
  #state: VenueState;

  constructor(config: CoreConfig, state: VenueState = emptyState()) {
    assertCoreConfig(config);
    this.#config = config;
    this.#state = state;
  }

  apply(command: Command): CoreEvent[] {
    const state = this.#state;
    const config = this.#config;
    switch (command.type) {
      case 'boot':
        assert(command.slot >= state.slot, 'boot: slot went backwards');
        state.sessionId = command.sessionId;
        state.slot = command.slot;
        // A restart can move the slot past a dead-man deadline without a tick: fire it now, so no
        // order outlives its account's deadline by a slot (expiries wait for the next tick as before).
        return fireDeadMenAtBoot(state, config);
      case 'add_market':
        return this.#addMarket(command.market);
      case 'place':
        this.#advanceTo(command.slot);
        return applyPlace(state, config, command);
      case 'cancel':
        this.#advanceTo(command.slot);
        return applyCancel(state, config, command);
      case 'modify':
        this.#advanceTo(command.slot);
        return applyModify(state, config, command);
      case 'disconnect':
        return applyDisconnect(state, config, command);
      case 'tick':
        return applyTick(state, config, command);
      case 'oracle_price':
        this.#market(command.marketId).oraclePrice = command.price;
        return [];
      case 'market_gate':
        this.#market(command.marketId).pausedReason = command.pausedReason;
        return [];
      case 'venue_gate':
        state.venuePauseReasons = [...command.pauseReasons];
        return [];
      case 'roots':
        assert(
          command.treeId >= 0 && command.treeId < config.treeCount,
          `roots: tree ${command.treeId} out of range`,
        );
        state.roots.set(command.treeId, command.roots.slice(-config.rootWindowMax));
        return [];
      case 'match_settled':
        return applyMatchSettled(state, config, command);
      case 'match_failed':
        return applyMatchFailed(state, config, command);
      case 'notes_consumed':
        return applyNotesConsumed(state, config, command);
      case 'dead_man':
        this.#advanceTo(command.slot);
        return applyDeadMan(state, command);
    }
  }

  /**
   * Intake commands carry the slot the sequencer observed; it can only be the current slot (ticks
   * move time forward). A command from the past is a sequencer bug.
   */
  #advanceTo(slot: bigint): void {
    // Checked on every intake command: the message is only built when it fails.
    if (slot !== this.#state.slot) {
      throw new AssertionError(`command stamped with slot ${slot} while the venue is at ${this.#state.slot}`);
    }
  }

  #addMarket(market: MarketConfig): CoreEvent[] {
    assertMarketConfig(market);
    const state = this.#state;
    assert(!state.markets.has(market.marketId), `market ${market.marketId} exists`);
    assert(!state.marketsBySymbol.has(market.symbol), `symbol ${market.symbol} exists`);
    const listed = emptyMarket(market);
    state.markets.set(market.marketId, listed);
    state.marketsBySymbol.set(market.symbol, listed);
    return [];
  }

  #market(marketId: string) {
    const market = this.#state.markets.get(marketId);
    assert(market !== undefined, `unknown market ${marketId}`);
    return market;
  }

  // ---- Queries (read-only) ----

  get slot(): bigint {
    return this.#state.slot;
  }

  get sessionId(): string {
    return this.#state.sessionId;
  }

  /** GET /orders/{id}: one order of the caller's account (others' orders are not found). */
  orderRecord(orderId: string, accountId: string): OrderRecord {
    const row = this.#state.orders.get(orderId);
    if (row === undefined || row.accountId !== accountId) {
      throw new VenueError('ORDER_NOT_FOUND', `no order ${orderId} is known for this account`);
    }
    return recordOf(row);
  }

  /** GET /account: the account's open orders, in intake order. */
  openOrders(accountId: string): OrderRecord[] {
    const records: OrderRecord[] = [];
    // The account's list is kept in intake order (validateInternalState checks it).
    for (let row = this.#state.accounts.get(accountId)?.head ?? null; row !== null; row = row.accountNext) {
      records.push(recordOf(row));
    }
    return records;
  }

  /** The account's dead-man timer (GET /account/dead-man). */
  deadMan(accountId: string): DeadManStatus {
    return deadManStatus(this.#state, accountId);
  }

  /**
   * How many orders the state keeps: rows (open, or finished and still readable) and the compact
   * remains of finished ones. The soak benchmark reports them to show memory is bounded.
   */
  retainedOrders(): { rows: number; compacted: number } {
    return { rows: this.#state.orders.size, compacted: this.#state.finished.size };
  }

  /** The account that owns an order, for routing its events (spec 6.1). */
  accountOf(orderId: string): string | undefined {
    return this.#state.orders.get(orderId)?.accountId;
  }

  isPendingMatch(marketId: string, matchId: bigint): boolean {
    return isPendingMatch(this.#state, marketId, matchId);
  }

  /**
   * Every match still waiting for its settlement outcome, by market in listing order and match id.
   * The settlement pipeline rebuilds its queue from this at boot (docs/settlement.md, reconcile).
   */
  pendingMatches(): PendingMatchView[] {
    const views: PendingMatchView[] = [];
    for (const market of this.#state.markets.values()) {
      // PendingMatches iterates in match id order already.
      for (const row of market.pendingMatches.values()) {
        const pending = pendingOf(row);
        if (pending === null) continue;
        views.push({
          marketId: row.marketId,
          matchId: pending.matchId,
          orderId: row.orderId,
          accountId: row.accountId,
          side: row.side,
          baseQuantity: pending.baseQuantity,
          quoteAmount: pending.quoteAmount,
          lockExpirySlot: pending.lockExpirySlot,
          ownerCommitment: row.owner,
          viewingPubkey: row.viewingPubkey,
          note: { ...row.note },
        });
      }
    }
    return views;
  }

  /**
   * The note commitment of every resting order (pending settlement excluded), by market in listing
   * order and intake order within one: what the chain watch checks for consume records (spec 3.2).
   */
  restingNoteCommitments(): string[] {
    const commitments: string[] = [];
    for (const market of this.#state.markets.values()) {
      for (const row of market.columns.liveRows()) {
        if (row.state === 'resting') commitments.push(row.note.commitment);
      }
    }
    return commitments;
  }

  /** The configuration a market was listed with, or undefined when it is not listed. */
  marketConfig(marketId: string): MarketConfig | undefined {
    return this.#state.markets.get(marketId)?.config;
  }

  /** Trading gates as /instruments and /system/status report them. */
  marketGate(marketId: string): { tradingEnabled: boolean; pausedReason: string | null; batchCount: bigint } {
    const market = this.#market(marketId);
    const venueOpen = this.#state.venuePauseReasons.length === 0;
    return {
      tradingEnabled: venueOpen && market.pausedReason === null,
      pausedReason: market.pausedReason,
      batchCount: market.batchCount,
    };
  }

  // ---- Verification and persistence ----

  /** Throws when any cross-index invariant is broken (style: exchange-core's validateInternalState). */
  validateInternalState(): void {
    validateState(this.#state, this.#config);
  }

  /** A deterministic serialisation of the whole state (bigints as decimal strings). */
  snapshot(): string {
    return snapshotState(this.#state);
  }

  static restore(config: CoreConfig, snapshot: string): VenueCore {
    return new VenueCore(config, restoreState(snapshot));
  }

  /** sha256 of the snapshot: equal hashes mean equal states, byte for byte. */
  stateHash(): string {
    return createHash('sha256').update(this.snapshot()).digest('hex');
  }
}

/** One unsettled match as the settlement pipeline needs it (VenueCore.pendingMatches). */
export interface PendingMatchView {
  readonly marketId: string;
  readonly matchId: bigint;
  readonly orderId: string;
  readonly accountId: string;
  readonly side: 'bid' | 'ask';
  readonly baseQuantity: bigint;
  readonly quoteAmount: bigint;
  readonly lockExpirySlot: bigint;
  readonly ownerCommitment: string;
  readonly viewingPubkey: string;
  readonly note: {
    readonly commitment: string;
    readonly value: bigint;
    readonly treeId: number;
    readonly merkleRoot: string;
  };
}

function recordOf(row: OrderRow): OrderRecord {
  const record: OrderRecord = {
    order_id: row.orderId,
    market_id: row.marketId,
    symbol: row.symbol,
    side: row.side,
    order_type: row.orderType,
    // spec 3.1 lists partially_filled as a state: a remainder resting after a confirmed partial fill.
    state: row.state === 'resting' && row.filled > 0n ? 'partially_filled' : row.state,
    amount: row.amount,
    remaining_amount: row.amount - row.filled,
    filled_quantity: row.filled,
    price_limit: row.priceLimit,
    min_fill_size: row.minFillSize,
    expiry_slot: row.expirySlot,
    arrival_slot: row.arrivalSlot,
    note_commitment: row.note.commitment,
    tree_id: row.note.treeId,
    trading_key: row.tradingKey,
    last_update_slot: row.lastUpdateSlot,
  };
  const lastMatchId = lastMatchIdOf(row);
  if (lastMatchId !== null) record.match_id = lastMatchId;
  if (row.reason !== null) record.reason = row.reason;
  if (row.cancelReason !== null) record.cancel_reason = row.cancelReason;
  const unfilled = lastUnfilled(row);
  if (unfilled !== null) record.last_unfilled = unfilled;
  if (
    row.lockExpirySlot !== null &&
    (row.state === 'pending_settlement' || row.state === 'settlement_failed')
  ) {
    record.lock_expiry_slot = row.lockExpirySlot;
  }
  return record;
}
