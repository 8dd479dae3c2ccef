/**
 * The quote leg of a fill. Decisions section 2: "The quote that changes hands is
 * `floor(base_amount x clearing_price / price_scale)`." Rounding down means the buyer pays at most
 * the exact value; the fraction of a quote unit stays with the bid.
 */
/** floor(baseAmount x price / priceScale); every operand is a non-negative bigint, so `/` floors. */
export function quoteAmount(baseAmount: bigint, price: bigint, priceScale: bigint): bigint {
  return (baseAmount * price) / priceScale;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The same floor for a walk counting in numbers, with no bigint at all: `quantity` is a safe
 * integer, and the price and scale are numbers (NaN when beyond 2^53). While the product stays a
 * safe integer, remainder and division of doubles are exact; otherwise the answer is NaN and the
 * caller takes quoteAmount's bigints.
 */
export function quoteUnitsOf(quantity: number, priceUnits: number, scaleUnits: number): number {
  const product = quantity * priceUnits;
  if (product <= SAFE && scaleUnits <= SAFE) return (product - (product % scaleUnits)) / scaleUnits;
  return Number.NaN;
}
