import type { OrderEvent } from '@venue/core';

/**
 * The orders-channel message of spec 6.1 for one core event, without `seq` (the connection adds
 * it). Only the fields the spec lists appear; `cancelReason` stays in the order record.
 */
export function orderEventMessage(event: OrderEvent, serverTimeMs: number): Record<string, unknown> {
  return {
    channel: 'orders',
    order_id: event.orderId,
    market_id: event.marketId,
    ...(event.matchId === undefined ? {} : { match_id: event.matchId.toString() }),
    server_time_ms: serverTimeMs,
    kind: event.kind,
    ...(event.filledQuantity === undefined ? {} : { filled_quantity: event.filledQuantity }),
    ...(event.newAmount === undefined ? {} : { new_amount: event.newAmount }),
    ...(event.newNoteAmount === undefined ? {} : { new_note_amount: event.newNoteAmount }),
    ...(event.reason === undefined ? {} : { reason: event.reason }),
    ...(event.lockExpirySlot === undefined ? {} : { lock_expiry_slot: event.lockExpirySlot }),
  };
}
