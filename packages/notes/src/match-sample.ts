import { randomFieldElement } from './field.ts';
import type { NoteHasher } from './hash.ts';
import type { MatchBatchHeader } from './match-public-inputs.ts';
import { type MatchLeg, quoteOfFill } from './match-rules.ts';
import { assetIdOfMint } from './note.ts';

/**
 * A made-up settlement batch of honest legs: `pairs` bids each filled once against its own ask, at
 * one clearing price. The benchmark and the tests prove it; it spends no real notes.
 */
export interface MatchBatchSample {
  readonly header: MatchBatchHeader;
  readonly legs: readonly MatchLeg[];
}

export const SAMPLE_MARKET_ID = 'So11111111111111111111111111111111111111112';

export function sampleMatchBatch(hasher: NoteHasher, pairs: number, batchSeq = 1n): MatchBatchSample {
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
  for (let i = 0; i < pairs; i += 1) {
    const baseAmount = 1_000n + BigInt(i) * 37n;
    const quoteAmount = quoteOfFill(baseAmount, header.clearingPrice, header.priceScale);
    const fill = { baseAmount, quoteAmount, salt: randomFieldElement() };
    const opening = (value: bigint) => ({
      ownerCommitment: hasher.ownerCommitment(randomFieldElement()),
      innerHash: randomFieldElement(),
      value,
    });
    legs.push({ side: 'bid', input: opening(quoteAmount + 5_000n), fills: [fill] });
    legs.push({ side: 'ask', input: opening(baseAmount * 2n), fills: [fill] });
  }
  return { header, legs };
}
