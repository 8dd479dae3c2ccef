import type { NoteHasher } from '@venue/notes';
import type { VenueClock } from '../chain/clock.ts';
import type { VenueEngine } from '../venue/venue-engine.ts';
import type { MatchFacts } from './match-facts.ts';
import type { NoteOpenings } from './note-openings.ts';
import type { SettlementChain } from './settlement-chain.ts';
import type { SettlementMetrics } from './settlement-metrics.ts';
import { SettlementPipeline, type SettlementPublisher } from './settlement-pipeline.ts';
import { TreeFeed, type TreeSource } from './tree-feed.ts';

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
}

export interface Settlement {
  readonly pipeline: SettlementPipeline;
  /** Boot step after recovery: rebuilds the queue from the core's pending matches and the chain. */
  reconcile(): void;
  stop(): void;
}

/** Creates the pipeline and the tree feed, both driven by the chain's beat (slots and reorgs). */
export function createSettlementPipeline(wiring: SettlementWiring): Settlement {
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
  });
  const feed =
    wiring.trees === undefined || wiring.publisher === undefined
      ? null
      : new TreeFeed(wiring.trees, wiring.publisher);
  const detach = feed === null ? () => {} : wiring.chain.onBeat(() => feed.refresh());
  return {
    pipeline,
    reconcile: () => pipeline.reconcile(),
    stop() {
      detach();
      pipeline.stop();
    },
  };
}
