import Type, { type Static } from 'typebox';
import { NO_FILL_REASONS } from './account.ts';
import { Base58Address, Count, DecimalU64, OneOf, Strict, U64 } from './primitives.ts';

/**
 * GET /admin/auctions/{market_id}/{batch}: why one batch auction cleared as it did, for auditors.
 * It carries the batch's price discovery and counts of what happened to the orders, never an order
 * id, trading key, account or note: an auditor can check the price rule without learning who
 * traded (docs/core-auction.md, "What is published to whom").
 */

export const DECIDED_BY = ['only_candidate', 'volume', 'surplus', 'oracle_distance', 'lower_price'] as const;
export const NO_CLEAR_REASONS = ['no_oracle', 'no_candidate_in_band', 'no_volume'] as const;

/** Bound on the shortlist (the core keeps at most this many candidates, auction/types.ts). */
export const AUCTION_SHORTLIST_ITEMS_MAX = 8;

export const AuctionParamsSchema = Strict(
  {
    market_id: Base58Address({ description: 'On-chain market configuration address.' }),
    batch: DecimalU64({ description: "The market's auction batch number, as a decimal string." }),
  },
  { title: 'AuctionParams' },
);

export const CandidatePriceSchema = Strict(
  {
    price: U64(),
    demand: U64({ description: 'Base units of bids whose limit is at or above the price.' }),
    supply: U64({ description: 'Base units of asks whose limit is at or below the price (0 included).' }),
    executable: U64({ description: 'min(demand, supply).' }),
    surplus: U64({ description: '|demand - supply|.' }),
    oracle_distance: U64({ description: '|price - oracle reference price|.' }),
  },
  { title: 'CandidatePrice' },
);

export const UnfilledCountSchema = Strict(
  { reason: OneOf(NO_FILL_REASONS), orders: Count(Number.MAX_SAFE_INTEGER) },
  { title: 'UnfilledCount' },
);

export const AuctionExplanationSchema = Strict(
  {
    market_id: Base58Address(),
    batch: U64(),
    slot: U64({ description: 'Slot at which the batch ran.' }),
    participants: Count(Number.MAX_SAFE_INTEGER, { description: 'Orders that took part.' }),
    clearing_price: Type.Optional(U64({ description: 'Absent when the batch did not clear.' })),
    no_clear_reason: Type.Optional(OneOf(NO_CLEAR_REASONS)),
    decided_by: Type.Optional(OneOf(DECIDED_BY, { description: 'Which rule separated the winner.' })),
    candidates_considered: Count(Number.MAX_SAFE_INTEGER),
    candidates_out_of_band: Count(Number.MAX_SAFE_INTEGER),
    shortlist: Type.Array(CandidatePriceSchema, { maxItems: AUCTION_SHORTLIST_ITEMS_MAX }),
    fills: Count(Number.MAX_SAFE_INTEGER, { description: 'Pairs that traded.' }),
    volume: U64({ description: 'Base units that changed hands.' }),
    unfilled: Type.Array(UnfilledCountSchema, {
      maxItems: NO_FILL_REASONS.length,
      description: 'Orders that took part and got nothing, counted by reason (reasons with none left out).',
    }),
  },
  { title: 'AuctionExplanation' },
);
export type AuctionExplanation = Static<typeof AuctionExplanationSchema>;
