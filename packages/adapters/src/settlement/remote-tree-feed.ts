import {
  assert,
  LEAVES_PAGE_MAX,
  type TreePageReply,
  type TreeUpdateReply,
  type TreeUpdatesReply,
  type TreeUpdatesRequest,
} from '@venue/protocol';
import { pollEvery } from '../chain/poll-loop.ts';
import { TREE_ANCHORS_KEPT_MAX, TREE_CATCH_UP_READS_MAX } from '../config/limits.ts';
import { type TreePublisher, treeFrame } from '../stream/stream-frames.ts';

/**
 * The stream's tree channel for a venue whose chain answers over JSON-RPC (`venue serve`,
 * docs/settlement.md section 9). `TreeFeed` reads the in-process chain synchronously at each beat;
 * this one asks, once per poll, for everything since the roots it last announced (the chain's
 * `getTreeUpdates`, which `ChainRpcClient.treeUpdates` calls) and publishes the same messages:
 * per shard, contiguous leaves, the root and size after them, the slot of that root.
 *
 * What it announced is the only state, kept as anchors (size and root of each message, oldest
 * first). A read that fails or answers something inconsistent publishes nothing and changes
 * nothing, so the next read asks from the same anchors: no leaf is skipped or sent twice across an
 * outage, and the backlog comes in pages of at most 1000 leaves, each with the root after it. When
 * the chain no longer has an anchor's root at its size (a reorg dropped announced leaves) it
 * answers from the newest anchor it still continues, and the next message starts there, as the
 * in-process feed restarts at the surviving size: a client holding more than
 * `leaf_count - leaves.length` leaves drops the extra ones.
 */

/** The chain's `getTreeUpdates` messages (packages/protocol/src/chain/views.ts), as the feed names them. */
export type TreeUpdatePage = TreePageReply;
export type TreeLeaf = TreeUpdatePage['leaves'][number];
export type TreeShardUpdate = TreeUpdateReply;
export type TreeUpdates = TreeUpdatesReply;
export type TreeUpdateRequest = TreeUpdatesRequest;

/** The chain's tree updates over the network (`ChainRpcClient`, ../chain, is one). */
export interface TreeUpdateSource {
  treeUpdates(request: TreeUpdateRequest): Promise<TreeUpdates>;
}

export interface RemoteTreeFeedOptions {
  /** Told once when the chain stops answering (or answers nonsense), and once when it answers again. */
  readonly onProblem?: (message: string) => void;
  /** Leaves per message at most (default and maximum: the protocol's page, 1000). */
  readonly pageLeaves?: number;
  /**
   * Called with each shard's newest root before any message announcing it is published, and
   * awaited: the venue's root windows take the root in first, so a client that proves against a
   * root the channel announced is never refused with 1031 because the venue had not seen it yet.
   */
  readonly admit?: (treeId: number, root: string) => Promise<void>;
}

interface Anchor {
  readonly leaf_count: bigint;
  readonly root: string;
  readonly slot: bigint;
}

const HEX32 = /^[0-9a-f]{64}$/;

export class RemoteTreeFeed {
  readonly #source: TreeUpdateSource;
  readonly #publisher: TreePublisher;
  readonly #options: RemoteTreeFeedOptions;
  readonly #pageLeaves: number;
  /** Per shard, what clients were told, oldest first; null until the first read. */
  #anchors: Map<number, Anchor[]> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #failing = false;
  /** Why the last read failed, for `open()`. */
  #lastError = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(source: TreeUpdateSource, publisher: TreePublisher, options: RemoteTreeFeedOptions = {}) {
    const pageLeaves = options.pageLeaves ?? LEAVES_PAGE_MAX;
    assert(
      Number.isInteger(pageLeaves) && pageLeaves >= 1 && pageLeaves <= LEAVES_PAGE_MAX,
      `pageLeaves: expected 1 to ${LEAVES_PAGE_MAX}`,
    );
    this.#source = source;
    this.#publisher = publisher;
    this.#options = options;
    this.#pageLeaves = pageLeaves;
  }

  /**
   * The first read: the chain as it is now is where the channel starts (clients page history from
   * GET /tree/leaves). Call it before clients can subscribe; throws when the chain does not answer.
   */
  async open(): Promise<void> {
    if (!(await this.refresh())) throw new Error(this.#lastError);
  }

  /**
   * One poll: reads until caught up (or TREE_CATCH_UP_READS_MAX reads) and publishes what is new. False
   * when a read failed; what it would have published comes with a later refresh. Refreshes run
   * one after another, never interleaved.
   */
  refresh(): Promise<boolean> {
    const run = this.#queue.then(() => this.#refresh());
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Refreshes every `pollMs` until `stop()`; a poll is skipped while the last one runs. */
  start(pollMs: number): void {
    assert(this.#timer === undefined, 'the tree feed is already started');
    this.#timer = pollEvery(pollMs, () => this.refresh());
  }

  /** Stops polling; resolves once a refresh under way has finished. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#queue;
  }

  async #refresh(): Promise<boolean> {
    for (let read = 0; read < TREE_CATCH_UP_READS_MAX; read += 1) {
      let updates: TreeUpdates;
      try {
        updates = await this.#source.treeUpdates(this.#request());
      } catch (error) {
        // The source reaches the chain over the network: its rejections (no answer, a timeout, a
        // refusal) are the chain's, operating errors by the source's contract.
        return this.#failed(error instanceof Error ? error.message : String(error));
      }
      // An inconsistent answer is the chain's fault too: a refusal, not an assertion of ours.
      const problem = this.#check(updates);
      if (problem !== null) return this.#failed(problem);
      if (this.#failing) this.#options.onProblem?.('the chain answers tree updates again');
      this.#failing = false;
      const admitted = await this.#admit(updates);
      if (admitted !== null) return this.#failed(admitted);
      if (!this.#apply(updates)) break;
    }
    return true;
  }

  /** Admits each shard's newest root that comes with pages (see `admit`); what failed, or null. */
  async #admit(updates: TreeUpdates): Promise<string | null> {
    const admit = this.#options.admit;
    if (admit === undefined || this.#anchors === null) return null;
    for (const tree of updates.trees) {
      const newest = tree.pages.at(-1)?.root;
      if (newest === undefined) continue;
      try {
        await admit(tree.tree_id, newest);
      } catch (error) {
        return `the root windows could not be read (${error instanceof Error ? error.message : String(error)})`;
      }
    }
    return null;
  }

  #failed(message: string): false {
    this.#lastError = message;
    if (!this.#failing)
      this.#options.onProblem?.(`tree updates from the chain failed (${message}); the tree channel waits`);
    this.#failing = true;
    return false;
  }

  #request(): TreeUpdateRequest {
    const trees = [...(this.#anchors ?? new Map<number, Anchor[]>())].map(([treeId, anchors]) => ({
      tree_id: treeId,
      anchors: anchors.map((anchor) => ({ leaf_count: anchor.leaf_count, root: anchor.root })),
    }));
    return { trees, page_leaves: this.#pageLeaves };
  }

  /**
   * The whole answer is checked before anything is published: pages contiguous from a known size.
   * Returns what is wrong with it, or null.
   */
  #check(updates: TreeUpdates): string | null {
    const seen = new Set<number>();
    for (const tree of updates.trees) {
      const name = `tree ${tree.tree_id}`;
      if (seen.has(tree.tree_id)) return `${name} answered twice`;
      seen.add(tree.tree_id);
      if (!HEX32.test(tree.root)) return `${name}: the root is not 32 bytes of hex`;
      const anchors = this.#anchors?.get(tree.tree_id);
      if (anchors === undefined) {
        if (this.#anchors !== null) return `${name} was not there before`;
        continue;
      }
      if (tree.from !== 0n && !anchors.some((anchor) => anchor.leaf_count === tree.from))
        return `${name}: from ${tree.from} is no size announced`;
      let next = tree.from;
      for (const page of tree.pages) {
        if (page.leaves.length < 1 || page.leaves.length > this.#pageLeaves) return `${name}: a page's size`;
        for (const [k, leaf] of page.leaves.entries()) {
          if (leaf.index !== next + BigInt(k)) return `${name}: leaf ${leaf.index} out of order`;
          if (!HEX32.test(leaf.commitment)) return `${name}: leaf ${leaf.index} is not 32 bytes of hex`;
        }
        next += BigInt(page.leaves.length);
        if (page.leaf_count !== next) return `${name}: a page's size after its leaves`;
        if (!HEX32.test(page.root)) return `${name}: a page's root is not 32 bytes of hex`;
      }
      if (next > tree.leaf_count) return `${name}: pages beyond the current size`;
    }
    if (this.#anchors !== null)
      for (const treeId of this.#anchors.keys()) if (!seen.has(treeId)) return `tree ${treeId} missing`;
    return null;
  }

  /** Publishes a checked answer and records it; true when some shard has more to read. */
  #apply(updates: TreeUpdates): boolean {
    const known = this.#anchors;
    if (known === null) {
      this.#anchors = new Map(
        updates.trees.map((tree) => [
          tree.tree_id,
          [{ leaf_count: tree.leaf_count, root: tree.root, slot: tree.slot }],
        ]),
      );
      return false;
    }
    let more = false;
    for (const tree of updates.trees) {
      const before = known.get(tree.tree_id) ?? [];
      const restart = before.at(-1)?.leaf_count !== tree.from;
      // Anchors are prefixes of one another, so those up to `from` are all still the chain's.
      const anchors = before.filter((anchor) => anchor.leaf_count <= tree.from);
      for (const page of tree.pages) {
        this.#announce(tree.tree_id, page);
        anchors.push({ leaf_count: page.leaf_count, root: page.root, slot: page.slot });
      }
      if (restart && tree.pages.length === 0 && tree.from === tree.leaf_count) {
        // Dropped leaves and nothing new: say where the shard stands now, with no leaves.
        const current = { root: tree.root, leaf_count: tree.leaf_count, slot: tree.slot, leaves: [] };
        this.#announce(tree.tree_id, current);
        anchors.push(current);
      }
      known.set(tree.tree_id, pruned(anchors, updates.finalized_slot));
      if ((anchors.at(-1)?.leaf_count ?? 0n) < tree.leaf_count) more = true;
    }
    return more;
  }

  #announce(treeId: number, page: TreeUpdatePage): void {
    this.#publisher.publishTree(
      treeFrame({
        treeId,
        slot: page.slot,
        root: page.root,
        leafCount: page.leaf_count,
        leaves: page.leaves,
      }),
    );
  }
}

/**
 * A reorg cannot drop a final slot, so the newest anchor at or below the finalized slot is always
 * continued: older ones are of no more use. Past the cap the oldest go (a reorg deeper than all
 * of them restarts the shard at 0, which is still correct, only long).
 */
function pruned(anchors: Anchor[], finalizedSlot: bigint): Anchor[] {
  let first = 0;
  for (let i = 0; i < anchors.length; i += 1) if ((anchors[i] as Anchor).slot <= finalizedSlot) first = i;
  const kept = anchors.slice(first);
  return kept.length > TREE_ANCHORS_KEPT_MAX ? kept.slice(-TREE_ANCHORS_KEPT_MAX) : kept;
}
