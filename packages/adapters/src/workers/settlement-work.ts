import type { MatchBatchHeader, MatchLeg, MatchProof, MemoContext } from '@venue/notes';
import type { FillMemo, FillMemoPlaintext } from '@venue/protocol';
import type { LegHashes, LegHashInput } from '../settlement/settling-match.ts';

/** One fill memo to seal for its owner's viewing key. */
export interface SealJob {
  readonly viewingPubkey: string;
  readonly context: MemoContext;
  readonly plaintext: FillMemoPlaintext;
}

/** One leg to prove with the stand-in prover (a benchmark's or a test's chain in stand-in mode). */
export interface ProveJob {
  readonly header: MatchBatchHeader;
  readonly leg: MatchLeg;
}

/** The messages to the settlement worker: one kind of job each, answered in one reply, in order. */
export type SettlementWorkRequest =
  | { readonly id: number; readonly kind: 'hash'; readonly jobs: readonly LegHashInput[] }
  | { readonly id: number; readonly kind: 'seal'; readonly jobs: readonly SealJob[] }
  | { readonly id: number; readonly kind: 'prove'; readonly jobs: readonly ProveJob[] };

export type SettlementWorkReply =
  | { readonly id: 0; readonly kind: 'ready' }
  | { readonly id: number; readonly kind: 'hash'; readonly results: readonly LegHashes[] }
  | { readonly id: number; readonly kind: 'seal'; readonly results: readonly FillMemo[] }
  | {
      readonly id: number;
      readonly kind: 'prove';
      readonly results: readonly (MatchProof | { readonly error: string })[];
    }
  | { readonly id: number; readonly kind: 'failed'; readonly message: string };

/**
 * The settlement pipeline's per-leg CPU work as it sees it (settlement-pool.ts runs it on a worker
 * thread). Results come back in the order asked, one promise per job.
 */
export interface SettlementWork {
  /** Jobs handed over and not yet answered. */
  readonly depth: number;
  /** Whether `jobs` more jobs may be handed over now (the pool's bound). */
  accepts(jobs: number): boolean;
  /** Plans' Poseidon hashes (settling-match.ts hashLeg), one per input, same order. */
  hashLegs(inputs: readonly LegHashInput[]): Promise<LegHashes[]>;
  /** One sealed fill memo (notes sealFillMemo). */
  sealMemo(job: SealJob): Promise<FillMemo>;
}
