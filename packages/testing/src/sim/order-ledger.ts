import { type CoreEvent, expandedEvents } from '@venue/core';
import type { OrderEventKind } from '@venue/protocol';

/**
 * The simulator's own model of every order, built only from the events the core emits, and the
 * invariants checked against it after every step:
 * - each order has exactly one state, reached by a transition of spec 3.1 (the table below);
 * - a terminal event is the order's last: nothing follows it;
 * - no note backs two live orders (spec 2.1 note_commitment, 3.2);
 * - events go to the account that placed the order (spec 6.1).
 * A violation throws SimInvariantError, which the runner reports with the seed and step.
 */
export type SimOrderState = 'resting' | OrderEventKind;

const TERMINAL: ReadonlySet<SimOrderState> = new Set([
  'fully_filled',
  'settlement_failed',
  'cancelled',
  'expired',
]);

/** spec 3.1: from -> kinds that may follow. A partial fill leaves the remainder resting. */
const NEXT: Readonly<Record<string, readonly OrderEventKind[]>> = {
  resting: ['pending_settlement', 'cancelled', 'expired'],
  pending_settlement: ['partially_filled', 'fully_filled', 'settlement_failed'],
  partially_filled: ['pending_settlement', 'fully_filled', 'cancelled', 'expired'],
};

export class SimInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimInvariantError';
  }
}

interface TrackedOrder {
  readonly accountId: string;
  state: SimOrderState;
  note: string;
}

export class OrderLedger {
  readonly #orders = new Map<string, TrackedOrder>();
  /** match id (per market) -> order id, to follow a partial fill onto its change note. */
  readonly #matches = new Map<string, string>();
  eventsSeen = 0;

  /** Registers an order the core accepted (placed, or a modify's replacement). */
  booked(orderId: string, accountId: string, note: string): void {
    const known = this.#orders.get(orderId);
    if (known !== undefined && !TERMINAL.has(known.state)) {
      known.note = note; // reprice in place: same identity, maybe another note
      return;
    }
    if (known !== undefined)
      throw new SimInvariantError(`order ${orderId} booked again after ${known.state}`);
    this.#orders.set(orderId, { accountId, state: 'resting', note });
  }

  /** Follows the core's events; call with every batch of events, in order. */
  observe(events: readonly CoreEvent[]): void {
    for (const event of expandedEvents(events)) {
      if (event.type === 'match') {
        this.#matches.set(`${event.marketId}/${event.matchId}`, event.orderId);
        continue;
      }
      if (event.type !== 'order') continue;
      this.eventsSeen += 1;
      const order = this.#orders.get(event.orderId);
      if (order === undefined)
        throw new SimInvariantError(`event ${event.kind} for unknown order ${event.orderId}`);
      if (event.accountId !== order.accountId) {
        throw new SimInvariantError(
          `event ${event.kind} of ${event.orderId} routed to ${event.accountId}, owner ${order.accountId}`,
        );
      }
      if (TERMINAL.has(order.state)) {
        throw new SimInvariantError(
          `order ${event.orderId} emitted ${event.kind} after its terminal ${order.state}`,
        );
      }
      const allowed = NEXT[order.state] ?? [];
      if (!allowed.includes(event.kind)) {
        throw new SimInvariantError(
          `order ${event.orderId}: ${order.state} -> ${event.kind} is not a spec 3.1 transition`,
        );
      }
      order.state = event.kind;
    }
  }

  /** A confirmed partial fill moved the order onto its change note. */
  changeNote(marketId: string, matchId: bigint, commitment: string): void {
    const orderId = this.#matches.get(`${marketId}/${matchId}`);
    const order = orderId === undefined ? undefined : this.#orders.get(orderId);
    if (order !== undefined) order.note = commitment;
  }

  /** The order now rests on `commitment` (its change note, as its owner derived it). */
  moveToNote(orderId: string, commitment: string): void {
    const order = this.#orders.get(orderId);
    if (order !== undefined) order.note = commitment;
  }

  /** No note backs two orders that are still live (resting, pending or partially filled). */
  checkNotes(): void {
    const backing = new Map<string, string>();
    for (const [orderId, order] of this.#orders) {
      if (TERMINAL.has(order.state)) continue;
      const other = backing.get(order.note);
      if (other !== undefined)
        throw new SimInvariantError(`note ${order.note} backs live orders ${other} and ${orderId}`);
      backing.set(order.note, orderId);
    }
  }

  liveOrders(accountId?: string): string[] {
    return [...this.#orders]
      .filter(([, o]) => !TERMINAL.has(o.state) && (accountId === undefined || o.accountId === accountId))
      .map(([id]) => id);
  }

  stateOf(orderId: string): SimOrderState | undefined {
    return this.#orders.get(orderId)?.state;
  }

  noteOf(orderId: string): string | undefined {
    return this.#orders.get(orderId)?.note;
  }

  get orderCount(): number {
    return this.#orders.size;
  }
}
