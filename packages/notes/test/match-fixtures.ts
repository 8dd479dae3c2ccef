/**
 * Settlement batches for the VALID_MATCH tests: fast-check arbitraries of honest batches (random
 * fills between bids and asks, up to the narrow circuit's 4 per leg, or 5 to 16 for one bid when
 * wide), and the committed witness generators of both circuits, so a test can ask whether a circuit
 * accepts a leg without proving it.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import {
  artifactPath,
  assetIdOfMint,
  loadArtifact,
  MATCH_CIRCUIT_ARTIFACTS,
  MATCH_FILLS_NARROW,
  MATCH_FILLS_WIDE,
  type MatchBatchHeader,
  type MatchCircuitInput,
  type MatchFill,
  type MatchLeg,
  type MatchWidth,
  type NoteHasher,
  quoteOfFill,
} from '../src/index.ts';

export interface HonestBatch {
  readonly header: MatchBatchHeader;
  readonly legs: readonly MatchLeg[];
}

const U40 = (1n << 40n) - 1n;

/**
 * Narrow: a batch of 1 to 4 fills between up to three bids and three asks. Wide: 5 to 16 fills, all
 * of one bid (its leg needs the wide circuit) against up to three asks.
 */
export function honestBatchArbitrary(
  hasher: NoteHasher,
  width: MatchWidth = MATCH_FILLS_NARROW,
): fc.Arbitrary<HonestBatch> {
  const wide = width === MATCH_FILLS_WIDE;
  // Largest base per fill: with prices below 2^24, `width` fills' quote stays below 2^62 (a u64).
  const baseMax = (1n << 38n) / BigInt(width) - 1n;
  return fc
    .record({
      seq: fc.bigInt({ min: 1n, max: 1n << 40n }),
      price: fc.bigInt({ min: 1n, max: 1n << 24n }),
      scale: fc.bigInt({ min: 1n, max: 1n << 30n }),
      fills: fc.array(
        fc.record({
          bid: fc.nat({ max: wide ? 0 : 2 }),
          ask: fc.nat({ max: 2 }),
          base: fc.bigInt({ min: 1n, max: baseMax }),
          salt: fc.bigInt({ min: 0n, max: (1n << 250n) - 1n }),
        }),
        { minLength: wide ? MATCH_FILLS_NARROW + 1 : 1, maxLength: width },
      ),
      extras: fc.array(fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: U40 })), {
        minLength: 6,
        maxLength: 6,
      }),
      owners: fc.array(fc.bigInt({ min: 1n, max: (1n << 250n) - 1n }), { minLength: 12, maxLength: 12 }),
    })
    .map(({ seq, price, scale, fills, extras, owners }) => {
      const header: MatchBatchHeader = {
        marketId: 'So11111111111111111111111111111111111111112',
        batchSeq: seq,
        deadlineSlot: seq + 50n,
        baseAssetId: assetIdOfMint('So11111111111111111111111111111111111111112'),
        quoteAssetId: assetIdOfMint('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
        priceScale: scale,
        clearingPrice: price,
      };
      const legs: MatchLeg[] = [];
      for (const side of ['bid', 'ask'] as const) {
        for (let index = 0; index < 3; index += 1) {
          // Every fill moves some quote, as the core's fills do: base x price >= scale.
          const least = (scale + price - 1n) / price;
          const mine: MatchFill[] = fills
            .filter((fill) => fill[side] === index)
            .map((fill) => ({
              baseAmount: fill.base + least,
              quoteAmount: quoteOfFill(fill.base + least, price, scale),
              salt: fill.salt,
            }));
          if (mine.length === 0) continue;
          const slot = (side === 'bid' ? 0 : 3) + index;
          const paid = mine.reduce((sum, f) => sum + (side === 'bid' ? f.quoteAmount : f.baseAmount), 0n);
          legs.push({
            side,
            input: {
              ownerCommitment: hasher.ownerCommitment(owners[slot] ?? 1n),
              innerHash: owners[slot + 6] ?? 2n,
              value: paid + (extras[slot] ?? 0n),
            },
            fills: mine,
          });
        }
      }
      return { header, legs };
    });
}

interface WitnessCalculator {
  calculateWTNSBin(input: object, sanityCheck: boolean): Promise<Uint8Array>;
  calculateWitness(input: object, sanityCheck: boolean): Promise<bigint[]>;
}

/** The committed witness generator of the VALID_MATCH circuit of `width` (pinned), instantiated once. */
export async function loadMatchWitness(
  width: MatchWidth = MATCH_FILLS_NARROW,
): Promise<(input: MatchCircuitInput) => Promise<bigint[]>> {
  const wasm = await loadArtifact(MATCH_CIRCUIT_ARTIFACTS[width].wasm);
  await loadArtifact('witnessCalculator');
  const builder = createRequire(import.meta.url)(artifactPath('witnessCalculator')) as (
    code: Uint8Array,
  ) => Promise<WitnessCalculator>;
  const calculator = await builder(wasm);
  return (input) => calculator.calculateWitness(input, true);
}

/** True when the circuit accepts the input (the witness calculation satisfies every constraint). */
export async function accepts(
  witness: (input: MatchCircuitInput) => Promise<bigint[]>,
  input: MatchCircuitInput,
): Promise<boolean> {
  try {
    await witness(input);
    return true;
  } catch {
    return false;
  }
}
