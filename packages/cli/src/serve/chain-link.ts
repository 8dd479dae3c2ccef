import { ChainRpcClient, type RootSource, type VenueClock } from '@venue/adapters';

/**
 * The served venue's view of a chain it reaches over JSON-RPC. The core and the root mirror read
 * the slot and the recent-root windows synchronously, so this link polls them every `pollMs` and
 * serves the last answer: the venue's slot is the chain's as last seen, and never goes back. While
 * the chain cannot be reached the slot stands still (orders do not expire on a venue that cannot
 * see the chain) and the failure is reported once per outage.
 */
export interface ChainLink {
  readonly rpc: ChainRpcClient;
  readonly clock: VenueClock;
  readonly roots: RootSource;
  /** Polls once now, then every pollMs; `onChange` runs after each poll that saw something new. */
  start(onChange: () => void): void;
  /**
   * Makes sure the shard's window holds `root` (a root the chain just reported to a tree read):
   * when it does not, the windows are read again at once and `onChange` runs, so the core accepts
   * the root before the venue hands it to a client. Without this, a client that read a root minted
   * within the current slot (a deposit) and proved against it would be refused until the next poll.
   */
  admit(treeId: number, root: string): Promise<void>;
  stop(): void;
}

interface SlotInfo {
  readonly slot: bigint;
  readonly finalized_slot: bigint;
}

export async function connectChain(
  url: string,
  options: { pollMs: number; slotDurationMs: number; treeCount: number; onError: (message: string) => void },
): Promise<ChainLink> {
  const rpc = new ChainRpcClient(url, Math.max(1_000, options.pollMs * 5));
  let slots: SlotInfo;
  try {
    slots = await rpc.request('getSlot');
  } catch (error) {
    throw new Error(
      `chain.rpc_url ${url} does not answer getSlot (${(error as Error).message}); start the chain first`,
    );
  }
  const windows = new Map<number, readonly { root: string }[]>();
  const pollWindows = async () => {
    for (let treeId = 0; treeId < options.treeCount; treeId += 1) {
      const window = await rpc.request('getRootWindow', { tree_id: treeId });
      windows.set(treeId, window.roots);
    }
  };
  await pollWindows();
  let timer: NodeJS.Timeout | undefined;
  let changed: () => void = () => {};
  let failing = false;
  let polling = false;
  const poll = async (onChange: () => void) => {
    if (polling) return;
    polling = true;
    try {
      const next = await rpc.request('getSlot');
      if (next.slot > slots.slot) {
        slots = {
          slot: next.slot,
          finalized_slot:
            next.finalized_slot > slots.finalized_slot ? next.finalized_slot : slots.finalized_slot,
        };
        await pollWindows();
        onChange();
      }
      if (failing) options.onError(`chain RPC ${url} answers again`);
      failing = false;
    } catch (error) {
      if (!failing)
        options.onError(`chain RPC ${url} failed (${(error as Error).message}); the slot stands still`);
      failing = true;
    } finally {
      polling = false;
    }
  };
  return {
    rpc,
    clock: {
      slotDurationMs: options.slotDurationMs,
      nowMs: () => Date.now(),
      slot: () => slots.slot,
      finalizedSlot: () => slots.finalized_slot,
    },
    roots: { rootWindow: (treeId) => windows.get(treeId) ?? [] },
    start(onChange) {
      changed = onChange;
      onChange();
      timer = setInterval(() => void poll(onChange), options.pollMs);
      timer.unref();
    },
    async admit(treeId, root) {
      if ((windows.get(treeId) ?? []).some((entry) => entry.root === root)) return;
      await pollWindows();
      changed();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
