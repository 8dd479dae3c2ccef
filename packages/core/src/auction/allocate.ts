/**
 * Allocation at the clearing price: a greedy, deterministic walk. Bids are taken in priority; each
 * bid walks the asks in priority that still have base left and fills
 * q = min(bid left, ask left, volume left), where volume left starts at the winning candidate's
 * executable volume. (That cap cannot bind before one side runs out, since the executable volume is
 * the smaller of the two sides' totals; it is kept as the stated bound the result is checked
 * against.) A pair that would break a rule is passed over, never partly filled, and the walk moves
 * on to the next ask.
 *
 * Cost: asks that run out are unlinked, so a walk only revisits asks it passed over; with no pair
 * passed over the whole walk is O(bids + asks). Pairs passed over are bounded by the batch's
 * PassBudget (limits.ts): once it is spent, each pair passed over parks the order whose own
 * constraint blocked it (allocation-round.ts, BLAME_*), so the rest of the round passes over at most
 * one pair per order.
 *
 * The walk exists twice, with the same steps: over numbers when the round's quantities fit (units.ts:
 * every one and their sum below 2^53, where doubles are exact), which is the usual case and several
 * times faster, and over bigints otherwise. Quotes are computed exactly either way (quote.ts). The
 * auction tests run both on the same books.
 */
import type { AllocationRound, PassBudget } from './allocation-round.ts';
import type { FillColumns } from './fill-columns.ts';
import type { SkipLog } from './skip-log.ts';
import { walkBigints } from './walk-bigints.ts';
import { walkNumbers } from './walk-numbers.ts';

export type { AllocationRound, PassBudget } from './allocation-round.ts';

/** Allocates the round: over numbers when the round has them (units.ts), else over bigints. */
export function allocate(round: AllocationRound, skips: SkipLog, budget: PassBudget): FillColumns {
  return round.units === null
    ? walkBigints(round, skips, budget)
    : walkNumbers(round, round.units, skips, budget);
}
