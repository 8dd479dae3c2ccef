/**
 * The quote leg of a fill. Decisions section 2: "The quote that changes hands is
 * `floor(base_amount x clearing_price / price_scale)`." Rounding down means the buyer pays at most
 * the exact value; the fraction of a quote unit stays with the bid.
 */
import { bigintOfUnits } from './units.ts';

/** floor(baseAmount x price / priceScale); every operand is a non-negative bigint, so `/` floors. */
export function quoteAmount(baseAmount: bigint, price: bigint, priceScale: bigint): bigint {
  return (baseAmount * price) / priceScale;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The same floor for a walk counting in numbers: `quantity` is a safe integer, and `price` and
 * `priceScale` are given both as bigints and as numbers (NaN when beyond 2^53). While the product
 * stays a safe integer, remainder and division of doubles are exact, so no bigint is built but the
 * result; otherwise the bigints decide.
 */
export function quoteOfUnits(
  quantity: number,
  price: bigint,
  priceUnits: number,
  priceScale: bigint,
  scaleUnits: number,
): bigint {
  const product = quantity * priceUnits;
  if (product <= SAFE && scaleUnits <= SAFE) {
    return bigintOfUnits((product - (product % scaleUnits)) / scaleUnits);
  }
  return quoteAmount(BigInt(quantity), price, priceScale);
}
