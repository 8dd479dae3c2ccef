import { randomFieldElement } from './field.ts';
import type { NoteHasher } from './hash.ts';
import type { MatchBatchHeader } from './match-public-inputs.ts';
import { type MatchLeg, quoteOfFill } from './match-rules.ts';
import { assetIdOfMint } from './note.ts';

/**
 * A made-up settlement batch of honest legs: `pairs` bids each filled against `fillsPerBid` asks of
 * its own (one fill each), at one clearing price. The benchmark and the tests prove it; it spends no
 * real notes. With more than 4 fills per bid, the bids' legs need the wide circuit.
 */
export interface MatchBatchSample {
  readonly header: MatchBatchHeader;
  readonly legs: readonly MatchLeg[];
}

export const SAMPLE_MARKET_ID = 'So11111111111111111111111111111111111111112';

export function sampleMatchBatch(
  hasher: NoteHasher,
  pairs: number,
  batchSeq = 1n,
  fillsPerBid = 1,
): MatchBatchSample {
  const header: MatchBatchHeader = {
    marketId: SAMPLE_MARKET_ID,
    batchSeq,
    deadlineSlot: batchSeq + 100n,
    baseAssetId: assetIdOfMint('So11111111111111111111111111111111111111112'),
    quoteAssetId: assetIdOfMint('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
    priceScale: 1_000_000n,
    clearingPrice: 151_250_000n,
  };
  const legs: MatchLeg[] = [];
  const opening = (value: bigint) => ({
    ownerCommitment: hasher.ownerCommitment(randomFieldElement()),
    innerHash: randomFieldElement(),
    value,
  });
  for (let i = 0; i < pairs; i += 1) {
    const fills = Array.from({ length: fillsPerBid }, (_, k) => {
      const baseAmount = 1_000n + BigInt(i) * 37n + BigInt(k) * 11n;
      const quoteAmount = quoteOfFill(baseAmount, header.clearingPrice, header.priceScale);
      return { baseAmount, quoteAmount, salt: randomFieldElement() };
    });
    const paid = fills.reduce((sum, fill) => sum + fill.quoteAmount, 0n);
    legs.push({ side: 'bid', input: opening(paid + 5_000n), fills });
    for (const fill of fills) legs.push({ side: 'ask', input: opening(fill.baseAmount * 2n), fills: [fill] });
  }
  return { header, legs };
}
