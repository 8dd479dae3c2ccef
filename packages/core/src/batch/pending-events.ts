import type { CoreEvent, MatchEvent, OrderEvent } from '../events.ts';

/**
 * An order that fills in a batch is told it now waits on settlement by a spec 6.1 order event of
 * kind `pending_settlement`. The core does not build that event: the order's match event carries
 * every field of it and stands for it in the event list, just before itself (decisions D146). A
 * 100,000-order clear fills about half its orders, and one object per filled order fewer is a
 * fifth of what the tick allocates and keeps alive until its events are taken in.
 *
 * Whatever routes or records order events reads them through `orderEventOf`; `expandedEvents`
 * spells a list out as the core used to hand it over (transcripts, audits, tests).
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

/** The order event an event is, or stands for (a match event), or null. */
export function orderEventOf(event: CoreEvent): OrderEvent | null {
  if (event.type === 'order') return event;
  return event.type === 'match' ? pendingSettlementEvent(event) : null;
}

/** The events with each match event preceded by the order event it stands for. */
export function expandedEvents(events: readonly CoreEvent[]): CoreEvent[] {
  const expanded: CoreEvent[] = [];
  for (const event of events) {
    if (event.type === 'match') expanded.push(pendingSettlementEvent(event));
    expanded.push(event);
  }
  return expanded;
}

/** Only the order events among `events`, the ones match events stand for included, in order. */
export function orderEventsOf(events: readonly CoreEvent[]): OrderEvent[] {
  const orders: OrderEvent[] = [];
  for (const event of events) {
    const order = orderEventOf(event);
    if (order !== null) orders.push(order);
  }
  return orders;
}
