import type { CoreEvent, MatchEvent, OrderEvent } from '../events.ts';

/**
 * An order that fills in a batch is told it now waits on settlement by a spec 6.1 order event of
 * kind `pending_settlement`. The core does not build that event: the order's match carries every
 * field of it and stands for it, just before itself (decisions D146), and the core builds no match
 * event either: the batch hands over one record of its matches (D148). A 100,000-order clear fills
 * about half its orders, and each object per filled order was garbage the tick made and kept alive
 * until its events were taken in.
 *
 * Whatever routes or records order events reads them through these functions; `expandedEvents`
 * spells a list out as the core handed it over before both changes (transcripts, audits, tests).
 */

/** The pending_settlement order event a match event stands for. */
export function pendingSettlementEvent(match: MatchEvent): OrderEvent {
  return {
    type: 'order',
    accountId: match.accountId,
    orderId: match.orderId,
    marketId: match.marketId,
    kind: 'pending_settlement',
    slot: match.slot,
    matchId: match.matchId,
    lockExpirySlot: match.lockExpirySlot,
  };
}

/**
 * The events as the core handed them over before batches kept their matches as one record: each
 * record spelled out as its match events, each preceded by the order event it stands for. A list
 * already spelled out comes back as it is (a match event outside a record has its order event
 * before it already), so a consumer may expand what it is handed without asking where it came from.
 */
export function expandedEvents(events: readonly CoreEvent[]): CoreEvent[] {
  const expanded: CoreEvent[] = [];
  for (const event of events) {
    if (event.type === 'matches') {
      const { matches } = event;
      for (let k = 0; k < matches.count; k += 1) {
        const match = matches.event(k);
        expanded.push(pendingSettlementEvent(match), match);
      }
      continue;
    }
    expanded.push(event);
  }
  return expanded;
}

/** Only the order events among `events`, the ones matches stand for included, in order. */
export function orderEventsOf(events: readonly CoreEvent[]): OrderEvent[] {
  const orders: OrderEvent[] = [];
  for (const event of expandedEvents(events)) if (event.type === 'order') orders.push(event);
  return orders;
}

/** Every match among `events` as its own event, in order (a record's matches in match id order). */
export function matchEventsOf(events: readonly CoreEvent[]): MatchEvent[] {
  const matches: MatchEvent[] = [];
  for (const event of events) {
    if (event.type === 'match') matches.push(event);
    else if (event.type === 'matches') {
      for (let k = 0; k < event.matches.count; k += 1) matches.push(event.matches.event(k));
    }
  }
  return matches;
}
