import type { PlaceOrder } from '@venue/protocol';
import { mulDivFloor } from '../u64.ts';

/**
 * decisions section 2: what the note behind an order must hold at least: floor(amount x price_limit
 * / price_scale) quote for a bid, `amount` base for an ask. Null when the product leaves u64.
 */
export function nominalNoteValue(
  order: Pick<PlaceOrder, 'side' | 'amount' | 'price_limit'>,
  priceScale: bigint,
): bigint | null {
  return order.side === 'bid' ? mulDivFloor(order.amount, order.price_limit, priceScale) : order.amount;
}

/**
 * The value the order says its note holds (its `collateral_amount`, else the nominal cost): the
 * value its note commitment is re-derived with (spec 2.1 owner_commitment). Intake adapters use it
 * to derive the commitment off the sequencer before the core checks it.
 */
export function claimedNoteValue(
  order: Pick<PlaceOrder, 'side' | 'amount' | 'price_limit' | 'collateral_amount'>,
  priceScale: bigint,
): bigint | null {
  return order.collateral_amount ?? nominalNoteValue(order, priceScale);
}
