/**
 * The chain ports of a test venue whose chain simulator runs in another process (failover tests):
 * what `venue serve` builds from its config (cli serve/chain-link.ts, served-chain.ts), kept lean
 * here because serve settles only with the real match prover and this test settles with the
 * stand-in. The venue's slot is the chain's as last polled; its recent-root windows likewise;
 * settlement goes through `RemoteSettlementChain`, one view per poll.
 */
import {
  type ChainPorts,
  ChainRpcClient,
  RemoteSettlementChain,
  type RootSource,
  SETTLEMENT_TURN_BUDGET_MS,
  type VenueClock,
} from '@venue/adapters';
import type { MatchProver } from '@venue/notes';
import type { TradingKey } from '@venue/protocol';

export interface RemoteChainOptions {
  readonly url: string;
  readonly pollMs: number;
  readonly slotMs: number;
  readonly treeCount: number;
  readonly log: (line: string) => void;
}

export interface RemoteChainLink {
  readonly clock: VenueClock;
  readonly roots: RootSource;
  /** The assembly's chain ports, settling with `signer` and `prover` on the listed markets. */
  settlingPorts(signer: TradingKey, prover: MatchProver, marketIds: readonly string[]): Promise<ChainPorts>;
}

/** Reads the chain's slot and root windows once (the link is usable at once), then on each poll. */
export async function connectRemoteChain(options: RemoteChainOptions): Promise<RemoteChainLink> {
  const rpc = new ChainRpcClient(options.url, Math.max(2_000, options.pollMs * 5));
  let slots = await rpc.request('getSlot');
  const windows = new Map<number, readonly { root: string }[]>();
  const readWindows = async () => {
    for (let treeId = 0; treeId < options.treeCount; treeId += 1)
      windows.set(treeId, (await rpc.request('getRootWindow', { tree_id: treeId })).roots);
  };
  await readWindows();
  const clock: VenueClock = {
    slotDurationMs: options.slotMs,
    nowMs: () => Date.now(),
    slot: () => slots.slot,
    finalizedSlot: () => slots.finalized_slot,
  };
  return {
    clock,
    roots: { rootWindow: (treeId) => windows.get(treeId) ?? [] },
    async settlingPorts(signer, prover, marketIds) {
      const remote = new RemoteSettlementChain(rpc, signer, { onProblem: options.log });
      // The first view holds the markets' batch numbers: the chain-state check decides at boot.
      remote.sees({ markets: marketIds });
      if (!(await remote.refresh())) throw new Error(`the chain at ${options.url} does not answer`);
      const listeners = new Set<() => void>();
      let timer: NodeJS.Timeout | undefined;
      let polling = false;
      const poll = async () => {
        if (polling) return;
        polling = true;
        try {
          const next = await rpc.request('getSlot');
          if (next.slot <= slots.slot) return;
          await readWindows();
          slots = next;
          for (const listener of listeners) listener();
        } catch (error) {
          options.log(`chain poll failed: ${(error as Error).message}`);
        } finally {
          polling = false;
        }
      };
      return {
        reads: rpc,
        onBeat(listener) {
          listeners.add(listener);
          return () => {
            listeners.delete(listener);
          };
        },
        settlement: {
          chain: remote,
          governance: remote,
          prover,
          turnBudgetMs: SETTLEMENT_TURN_BUDGET_MS,
        },
        trees: { updates: rpc, pollMs: options.pollMs, name: options.url, onProblem: options.log },
        start() {
          for (const listener of listeners) listener();
          timer = setInterval(() => void poll(), options.pollMs);
          remote.start(options.pollMs);
        },
        async stop() {
          clearInterval(timer);
          remote.stop();
          await remote.idle();
        },
      };
    },
  };
}
