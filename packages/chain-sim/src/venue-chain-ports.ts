import type { MatchProver } from '@venue/notes';
import { assert, type TradingKey } from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { chainReadsOf, treeReads } from './reads.ts';
import { settlementChainOf } from './venue-port.ts';

/**
 * The in-process simulator as every port the venue's assembly takes from a chain (structurally the
 * adapters' `ChainPorts`, packages/adapters/src/assembly/venue-ports.ts): the REST tree reads, the
 * beat (every slot and reorg), settlement signed with `signer` under the governance the simulator
 * keeps and proved by `prover` (of the kind the chain verifies), and the tree channel read on each beat. `venue dev`, the test venue and the simulator
 * build their chain this way; the chain's own clock (wall or manual) stays with its owner.
 */
export function venueChainPortsOf(chain: ChainSimulator, signer: TradingKey, prover: MatchProver) {
  // A stand-in proof fails on a verifying chain and a real one is wasted on a stand-in chain.
  assert(
    chain.info().match_proofs === prover.kind,
    `the chain verifies ${chain.info().match_proofs} proofs; the prover makes ${prover.kind} ones`,
  );
  return {
    reads: chainReadsOf(chain),
    onBeat(listener: () => void) {
      return chain.onEvent((event) => {
        if (event.kind === 'slot' || event.kind === 'reorg') listener();
      });
    },
    settlement: { chain: settlementChainOf(chain, signer), governance: chain, prover },
    trees: { reads: treeReads(chain) },
  };
}
