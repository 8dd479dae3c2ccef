import type { NoteHasher } from '@venue/notes';
import type { VenueClock } from '../chain/clock.ts';
import { ChainStateCheck, type StateMismatch } from '../settlement/chain-state-check.ts';
import type { LandedBatches } from '../settlement/landed-batches.ts';
import type { MatchFacts } from '../settlement/match-facts.ts';
import type { NoteOpenings } from '../settlement/note-openings.ts';
import type { SettlementChain } from '../settlement/settlement-chain.ts';
import type { SettlementMetrics } from '../settlement/settlement-metrics.ts';
import { SettlementPipeline, type SettlementPublisher } from '../settlement/settlement-pipeline.ts';
import { TreeFeed, type TreeSource } from '../settlement/tree-feed.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';

/**
 * Everything settlement needs at boot, in the order the boot has it. Before the server exists:
 * `NoteOpenings` (wrap the proof checks with `rememberingProofChecks`) and `SettlementMetrics`
 * (pass as the server's `settlement` telemetry). After it: the engine and the stream (publisher).
 */
export interface SettlementWiring {
  readonly engine: VenueEngine;
  readonly chain: SettlementChain;
  readonly hasher: NoteHasher;
  readonly openings: NoteOpenings;
  /** Pass the same MatchFacts to the server's `companions`, so they survive a restart. */
  readonly facts?: MatchFacts;
  readonly clock: VenueClock;
  readonly metrics?: SettlementMetrics;
  /** The stream server (its `publish`): fills to owners, tree messages to every subscriber. */
  readonly publisher?: SettlementPublisher;
  /** Tree reads for the tree channel; without it the channel stays silent. */
  readonly trees?: TreeSource;
  readonly batchLegsMax?: number;
  /**
   * A persistent venue checks its recovered state against the chain before it settles anything
   * (chain-state-check.ts). Pass the same LandedBatches to the server's `companions`. A venue
   * without a state directory starts empty on purpose and leaves this out.
   */
  readonly stateCheck?: {
    readonly landed: LandedBatches;
    /** Closes new trading venue-wide: `(reason) => server.gates.set(reason, true)`. */
    readonly pause: (reason: StateMismatch) => void;
    readonly log: (line: string) => void;
    /** chain.accept_state_mismatch: the operator accepts the loss (disaster recovery). */
    readonly acceptMismatch?: boolean;
  };
}

export interface Settlement {
  readonly pipeline: SettlementPipeline;
  /** The state-against-chain check, when `stateCheck` was given. */
  readonly check: ChainStateCheck | null;
  /** Boot step after recovery: rebuilds the queue from the core's pending matches and the chain. */
  reconcile(): void;
  stop(): void;
}

/** Creates the pipeline and the tree feed, both driven by the chain's beat (slots and reorgs). */
export function createSettlementPipeline(wiring: SettlementWiring): Settlement {
  const stateCheck = wiring.stateCheck;
  const check =
    stateCheck === undefined
      ? null
      : new ChainStateCheck({
          engine: wiring.engine,
          chain: wiring.chain,
          landed: stateCheck.landed,
          pause: stateCheck.pause,
          log: stateCheck.log,
          ...(stateCheck.acceptMismatch === undefined ? {} : { acceptMismatch: stateCheck.acceptMismatch }),
        });
  const pipeline = new SettlementPipeline({
    engine: wiring.engine,
    chain: wiring.chain,
    hasher: wiring.hasher,
    openings: wiring.openings,
    ...(wiring.facts === undefined ? {} : { facts: wiring.facts }),
    clock: wiring.clock,
    ...(wiring.metrics === undefined ? {} : { metrics: wiring.metrics }),
    ...(wiring.publisher === undefined ? {} : { publisher: wiring.publisher }),
    ...(wiring.batchLegsMax === undefined ? {} : { batchLegsMax: wiring.batchLegsMax }),
    ...(check === null ? {} : { guard: check }),
  });
  const feed =
    wiring.trees === undefined || wiring.publisher === undefined
      ? null
      : new TreeFeed(wiring.trees, wiring.publisher);
  const detach = feed === null ? () => {} : wiring.chain.onBeat(() => feed.refresh());
  return {
    pipeline,
    check,
    reconcile: () => pipeline.reconcile(),
    stop() {
      detach();
      pipeline.stop();
    },
  };
}
