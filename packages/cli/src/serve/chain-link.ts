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
  // The windows are read shard by shard, one request each, and replaced together, in the same
  // synchronous step that tells the mirror (`changed`): a root is never in `windows` before the core
  // has been handed it. Filled in place while reading, a poll half done let `admit` find a root in
  // the window and answer a client before the mirror heard of it, and the client's order was
  // refused with 1031. Reads are numbered so that an older read never replaces a newer one.
  let windows = new Map<number, readonly { root: string }[]>();
  let readsStarted = 0;
  let readsApplied = 0;
  const readWindows = async (): Promise<{ at: number; next: Map<number, readonly { root: string }[]> }> => {
    readsStarted += 1;
    const at = readsStarted;
    const next = new Map<number, readonly { root: string }[]>();
    for (let treeId = 0; treeId < options.treeCount; treeId += 1) {
      const window = await rpc.request('getRootWindow', { tree_id: treeId });
      next.set(treeId, window.roots);
    }
    return { at, next };
  };
  /** Replaces the windows with a read unless a newer one was applied; true when it was used. */
  const applyWindows = ({ at, next }: { at: number; next: Map<number, readonly { root: string }[]> }) => {
    if (at < readsApplied) return false;
    readsApplied = at;
    windows = next;
    return true;
  };
  applyWindows(await readWindows());
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
        // The beat runs after every new slot; the windows are replaced unless a newer read was.
        applyWindows(await readWindows());
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
      if (applyWindows(await readWindows())) changed();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
