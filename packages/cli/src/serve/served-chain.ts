import {
  type ChainPorts,
  type ChainReads,
  type RemoteSettlementChain,
  SETTLEMENT_TURN_BUDGET_MS,
  type SettlementWork,
} from '@venue/adapters';
import type { MatchProver } from '@venue/notes';
import type { ChainLink } from './chain-link.ts';
import type { ServeConfig } from './serve-config.ts';

/**
 * The chain of `venue serve`, reached over JSON-RPC, as the assembly's chain ports: the link's poll
 * is the beat (slots and recent roots), settlement goes through `remote` (null when chain.settle is
 * false) on its own poll, and the tree channel polls getTreeUpdates, settling or not.
 */
export function servedChainPorts(
  config: ServeConfig,
  link: ChainLink,
  remote: {
    readonly chain: RemoteSettlementChain;
    readonly prover: MatchProver;
    readonly work: SettlementWork;
  } | null,
  log: (line: string) => void,
): ChainPorts {
  const listeners = new Set<() => void>();
  return {
    reads: admittingReads(link),
    onBeat(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    ...(remote === null
      ? {}
      : {
          settlement: {
            chain: remote.chain,
            governance: remote.chain,
            prover: remote.prover,
            // A served venue keeps intake moving while a backlog settles (docs/scaling.md): its
            // work per turn is bounded, and the hashing and sealing run on the worker.
            turnBudgetMs: SETTLEMENT_TURN_BUDGET_MS,
            work: remote.work,
          },
        }),
    trees: {
      updates: link.rpc,
      pollMs: config.chain.pollMs,
      name: `chain.rpc_url ${config.chain.rpcUrl}`,
      onProblem: log,
      // A root the channel announces is one the core already accepts (as for the tree reads).
      admit: (treeId, root) => link.admit(treeId, root),
    },
    start() {
      link.start(() => {
        for (const listener of listeners) listener();
      });
      remote?.chain.start(config.chain.pollMs);
    },
    async stop() {
      remote?.chain.stop();
      link.stop();
      await remote?.chain.idle();
    },
  };
}

/**
 * The chain's tree reads for the REST routes, answering only with roots the core accepts: a root the
 * chain reports that the polled window does not hold yet is admitted first (ChainLink.admit).
 */
function admittingReads(chain: ChainLink): ChainReads {
  return {
    roots: async () => {
      const roots = await chain.rpc.roots();
      for (const tree of roots.trees) await chain.admit(tree.tree_id, tree.root);
      return roots;
    },
    inclusion: async (treeId, commitment) => {
      const proof = await chain.rpc.inclusion(treeId, commitment);
      await chain.admit(treeId, proof.root);
      return proof;
    },
    leaves: (treeId, from, limit) => chain.rpc.leaves(treeId, from, limit),
    settlementStatus: (lookup) => chain.rpc.settlementStatus(lookup),
  };
}
