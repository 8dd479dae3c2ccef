/**
 * The contract of one market's batch auction (decisions section 2): a pure function from the
 * orders taking part and the oracle band to one clearing price, the fills at that price, and a
 * record of why. It knows nothing of notes, events or accounts; the core prepares its input and
 * applies its result.
 */

export type AuctionSide = 'bid' | 'ask';

/** One order as the auction sees it. Every amount is in base units, every price in scaled ticks. */
export interface AuctionOrder {
  /** The core's handle for the order; unique within one auction. */
  readonly ref: number;
  readonly side: AuctionSide;
  /** Worst acceptable price in the market's price scale; 0 only for an ask that takes any price. */
  readonly priceLimit: bigint;
  /** Base units still open (> 0). */
  readonly remaining: bigint;
  /**
   * Smallest fill this order accepts, already capped at `remaining` by the core (1 <= minFill <=
   * remaining). Binds every fill the order takes part in; minFill == remaining is all-or-none.
   */
  readonly minFill: bigint;
  /** Time priority: arrival slot first, then the venue's intake sequence (unique). */
  readonly arrivalSlot: bigint;
  readonly sequence: bigint;
  /** Self-trade identity: two orders sharing either never fill each other. */
  readonly tradingKey: string;
  readonly owner: string;
  /** A fok order in its arrival batch: it fills `remaining` completely in this batch or not at all. */
  readonly fillOrKill: boolean;
}

export interface AuctionInput {
  readonly orders: readonly AuctionOrder[];
  /** Oracle reference price (scaled), or null when the market has no valid oracle price. */
  readonly oraclePrice: bigint | null;
  /** Inclusive band of acceptable clearing prices (the circuit-breaker policy around the oracle). */
  readonly bandLow: bigint;
  readonly bandHigh: bigint;
  /** quote = floor(base x price / priceScale). */
  readonly priceScale: bigint;
}

/** One fill as an object (tests, transcripts, explanations); a batch keeps its fills in columns. */
export interface Fill {
  readonly bidRef: number;
  readonly askRef: number;
  /** Base units that change hands (> 0). */
  readonly quantity: bigint;
  /** floor(quantity x clearingPrice / priceScale) quote units (> 0). */
  readonly quoteAmount: bigint;
}

/** A batch's fills as a consumer reads them, in allocation order (kept in columns: fill-columns.ts). */
export interface Fills {
  readonly length: number;
  bidRef(index: number): number;
  askRef(index: number): number;
  /** Base units that change hands (> 0). */
  quantity(index: number): bigint;
  /** floor(quantity x clearingPrice / priceScale) quote units (> 0). */
  quoteAmount(index: number): bigint;
  /** The quantity as a number (sums without bigints); NaN when the fill's amounts are bigints. */
  quantityUnits(index: number): number;
  /** The quote as a number; NaN when the fill's amounts are bigints (one of them is past 2^53). */
  quoteUnits(index: number): number;
  /** Base units of every fill together. */
  totalQuantity(): bigint;
  /** One fill as an object (tests, transcripts, explanations). */
  at(index: number): Fill;
  /** Every fill as an object, in allocation order. */
  toArray(): Fill[];
}

/** How the winning price was separated from the runner-up (decisions section 2, in order). */
export type DecidedBy = 'only_candidate' | 'volume' | 'surplus' | 'oracle_distance' | 'lower_price';

export interface CandidatePrice {
  readonly price: bigint;
  /** Sum of `remaining` of bids with priceLimit >= price. */
  readonly demand: bigint;
  /** Sum of `remaining` of asks with priceLimit <= price (limit 0 included). */
  readonly supply: bigint;
  /** min(demand, supply): the volume the price could execute before per-order constraints. */
  readonly executable: bigint;
  /** |demand - supply|: what stays unmatched at that price. */
  readonly surplus: bigint;
  /** |price - oraclePrice|. */
  readonly oracleDistance: bigint;
}

/** Why an order that was eligible at the clearing price got less than it could have. */
export type SkipReason = 'min_fill' | 'self_trade' | 'fill_or_kill' | 'zero_quote';

/** Bound on the candidate shortlist kept in a batch record (a limit on everything). */
export const AUCTION_SHORTLIST_MAX = 8;

export interface AuctionResult {
  /** null: the market does not clear this batch (no oracle, no candidate in band, or no volume). */
  readonly clearingPrice: bigint | null;
  readonly noClearReason: 'no_oracle' | 'no_candidate_in_band' | 'no_volume' | null;
  /** How many distinct limit prices were candidates, and how many of them lay outside the band. */
  readonly candidatesConsidered: number;
  readonly candidatesOutOfBand: number;
  /** The best candidates in rank order, winner first, at most AUCTION_SHORTLIST_MAX. */
  readonly shortlist: readonly CandidatePrice[];
  readonly decidedBy: DecidedBy | null;
  /** Fills in allocation order, in columns (fill-columns.ts). */
  readonly fills: Fills;
  /** Eligible orders that were passed over (or passed over a counterparty), with the reason. */
  readonly skipped: readonly { readonly ref: number; readonly reason: SkipReason }[];
}
