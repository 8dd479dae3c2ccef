import type { CoreConfig } from '@venue/core';
import { NoteUseTags, refusingConsumedNotes } from '../settlement/consumed-notes.ts';
import { LandedBatches } from '../settlement/landed-batches.ts';
import { MatchFacts } from '../settlement/match-facts.ts';
import { NoteOpenings } from '../settlement/note-openings.ts';
import type { SettlementChain } from '../settlement/settlement-chain.ts';
import { SettlementMetrics } from '../settlement/settlement-metrics.ts';
import { CommitmentMemo } from '../venue/commitment-memo.ts';
import type { ProofChecks } from '../venue/intake-checks.ts';
import type { MarketListing } from '../venue/market-listing.ts';
import { proofChecksOf } from '../venue/proof-checks.ts';
import type { StateCompanion } from '../venue/state-companion.ts';
import type { VenuePorts } from './venue-ports.ts';

/**
 * The adapter state the server and the settlement pipeline share. Each is created once per boot,
 * here, and handed to both sides by the assembly, so no caller can give one side a different copy.
 */
export interface VenueCompanions {
  /** Intake remembers each accepted order's note opening; settlement builds its legs from it. */
  readonly openings: NoteOpenings;
  /** Each match's counterparts, as the pipeline grouped them: a restart settles the same groups. */
  readonly facts: MatchFacts;
  /** The batches the chain landed, as the journal saw them: what the state check compares. */
  readonly landed: LandedBatches;
  /** Commitments the proof workers derived, read by the core's `noteCommitment`. */
  readonly commitments: CommitmentMemo;
  /** Written by the pipeline, read by GET /admin/metrics/settlement. */
  readonly metrics: SettlementMetrics;
  /** Note-use tags by commitment, on a settling venue: intake and the consumed-note watch. */
  readonly tags: NoteUseTags | null;
}

export function createCompanions(hasher?: VenuePorts['hasher']): VenueCompanions {
  return {
    openings: new NoteOpenings(),
    facts: new MatchFacts(),
    landed: new LandedBatches(),
    commitments: new CommitmentMemo(),
    metrics: new SettlementMetrics(),
    tags: hasher === undefined ? null : new NoteUseTags(hasher),
  };
}

/** The companions the journal keeps: in each snapshot, and rebuilt from the commands after it. */
export function durableCompanions(companions: VenueCompanions): readonly StateCompanion[] {
  return [companions.openings, companions.facts, companions.landed];
}

/**
 * The proof checks at intake. A verifier derives each order's note commitment on its worker and
 * leaves it in the memo; a settling venue also refuses a note the chain consumed (NOTE_CONSUMED)
 * (NOTE_CONSUMED). The note opening the pipeline needs is kept by the openings companion once the
 * order books.
 */
export function intakeProofs(
  proofs: VenuePorts['proofs'],
  companions: VenueCompanions,
  markets: readonly MarketListing[],
  settles: boolean,
  chain?: SettlementChain,
): ProofChecks {
  const checks =
    'checks' in proofs
      ? proofs.checks
      : proofChecksOf(proofs.verifier, {
          memo: companions.commitments,
          priceScaleOf: (symbol) => markets.find((m) => m.config.symbol === symbol)?.config.priceScale,
        });
  if (!settles) return checks;
  // Note openings are not remembered here but when the order books (NoteOpenings.follow): a
  // verified order the sequencer then refuses must leave nothing behind.
  return chain === undefined || companions.tags === null
    ? checks
    : refusingConsumedNotes(checks, chain, companions.tags);
}

/** The core reads a verifier's derivations before it derives a commitment inline (commitment-memo.ts). */
export function coreWithMemo(
  core: CoreConfig,
  proofs: VenuePorts['proofs'],
  companions: VenueCompanions,
): CoreConfig {
  if ('checks' in proofs) return core;
  return { ...core, noteCommitment: companions.commitments.wrap(core.noteCommitment) };
}
