import { ChainStateCheck, type StateMismatch } from '../settlement/chain-state-check.ts';
import type { LandedBatches } from '../settlement/landed-batches.ts';
import { SettlementPipeline, type SettlementPipelineOptions } from '../settlement/settlement-pipeline.ts';
import { TreeFeed, type TreeSource } from '../settlement/tree-feed.ts';

/**
 * Everything settlement needs at boot: the pipeline's own options (its guard is the state check,
 * made here), the tree channel's reads, and the state check's parts. The assembly passes the same
 * companions it hands the server; the settlement tests drive a pipeline on its own.
 */
export interface SettlementWiring extends Omit<SettlementPipelineOptions, 'guard'> {
  /** Tree reads for the tree channel, read on the chain's beat; without it the channel stays silent. */
  readonly trees?: TreeSource;
  /**
   * A persistent venue checks its recovered state against the chain before it settles anything
   * (chain-state-check.ts). A venue without a state directory starts empty on purpose and leaves
   * this out.
   */
  readonly stateCheck?: {
    readonly landed: LandedBatches;
    /** Closes new trading venue-wide. */
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
  const { trees: _trees, stateCheck: _stateCheck, ...options } = wiring;
  const pipeline = new SettlementPipeline({ ...options, ...(check === null ? {} : { guard: check }) });
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
