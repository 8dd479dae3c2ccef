/**
 * The auction's work limits (TigerBeetle style: a limit on every loop). Both only come into play
 * on books built to be expensive; a batch that stays within them clears exactly as the rules in
 * docs/core-auction.md describe, and one that does not still ends deterministically. The reasons
 * for the values are in docs/core-auction.md ("Limits on the work of one batch").
 */

/**
 * Pairs the allocation walk may pass over (look at without filling) in one batch, over all its
 * rounds, before it turns strict: from then on, each pair passed over takes the order whose own
 * constraint caused it (its minimum, its self-trade as the later arrival, its size too small to move
 * quote) out of the rest of the round. The strict walk passes over at most one pair per order per
 * round, so a batch passes over at most this many pairs plus (rounds x orders).
 */
export const ALLOCATION_PASSES_MAX = 50_000;

/**
 * Rounds of re-pricing after fill-or-kill orders drop out. If this many rounds each still leave a
 * fok order short, every fok order left is recorded as `fill_or_kill` (not filled, the outcome fok
 * always allows) and one last round runs without them.
 */
export const FILL_OR_KILL_ROUNDS_MAX = 8;

export interface AuctionLimits {
  readonly allocationPassesMax: number;
  readonly fillOrKillRoundsMax: number;
}

export const AUCTION_LIMITS: AuctionLimits = {
  allocationPassesMax: ALLOCATION_PASSES_MAX,
  fillOrKillRoundsMax: FILL_OR_KILL_ROUNDS_MAX,
};

/**
 * How the price sweep and the allocation walk count quantities: 'fastest' uses numbers whenever
 * they are exact for the round (units.ts) and bigints otherwise; 'bigint' always uses bigints. The
 * venue always runs 'fastest'; the tests run both on the same books.
 */
export type Arithmetic = 'fastest' | 'bigint';
