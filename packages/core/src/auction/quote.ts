/**
 * The quote leg of a fill. Decisions section 2: "The quote that changes hands is
 * `floor(base_amount x clearing_price / price_scale)`." Rounding down means the buyer pays at most
 * the exact value; the fraction of a quote unit stays with the bid.
 */

/** floor(baseAmount x price / priceScale); every operand is a non-negative bigint, so `/` floors. */
export function quoteAmount(baseAmount: bigint, price: bigint, priceScale: bigint): bigint {
  return (baseAmount * price) / priceScale;
}
