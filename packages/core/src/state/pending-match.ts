import type { OrderRow, PendingMatch, Reservations } from './venue-state.ts';

/**
 * An order's reservation while its match waits on settlement, read from the record that holds it
 * (decisions D148): a batch writes a reference and an index into each filled row, not an object.
 */

/** The order's pending match as a value, or null when none is pending. */
export function pendingOf(row: OrderRow): PendingMatch | null {
  const held = row.pending;
  if (held === null) return null;
  const at = row.pendingAt;
  return {
    matchId: held.matchId(at),
    baseQuantity: held.baseQuantity(at),
    quoteAmount: held.quoteAmount(at),
    lockExpirySlot: held.lockExpirySlot,
  };
}

/** The pending match's id, or null. */
export function pendingMatchId(row: OrderRow): bigint | null {
  return row.pending === null ? null : row.pending.matchId(row.pendingAt);
}

/** The id of the order's latest match: the pending one, else the last one that stopped pending. */
export function lastMatchIdOf(row: OrderRow): bigint | null {
  return row.pending === null ? row.lastMatchId : row.pending.matchId(row.pendingAt);
}

/** The order takes `at` of `held` as its reservation. */
export function reserve(row: OrderRow, held: Reservations, at: number): void {
  row.pending = held;
  row.pendingAt = at;
}

/**
 * The order's match stops pending (settled, failed, or the order ended): its market forgets the
 * match, and the row keeps its id as the latest. Returns what was pending, or null.
 */
export function release(row: OrderRow): PendingMatch | null {
  const pending = pendingOf(row);
  if (pending === null) return null;
  const held = row.pending as Reservations;
  row.market.pendingMatches.delete(held.matchKey(row.pendingAt));
  held.released(row.pendingAt, row.note);
  row.lastMatchId = pending.matchId;
  row.pending = null;
  row.pendingAt = 0;
  return pending;
}

/** One match restored from a snapshot, which keeps a pending match as its four values. */
export class RestoredReservation implements Reservations {
  readonly #match: PendingMatch;

  constructor(match: PendingMatch) {
    this.#match = match;
  }

  get lockExpirySlot(): bigint {
    return this.#match.lockExpirySlot;
  }

  matchId(): bigint {
    return this.#match.matchId;
  }

  matchKey(): number {
    return Number(this.#match.matchId);
  }

  baseQuantity(): bigint {
    return this.#match.baseQuantity;
  }

  quoteAmount(): bigint {
    return this.#match.quoteAmount;
  }

  released(): void {}
}
