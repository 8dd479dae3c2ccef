import { fieldToHex, type NoteHasher, NoteTree } from '@venue/notes';
import { assert, sha256, stringifyJson } from '@venue/protocol';
import { reject } from './errors.ts';
import type {
  Address,
  ConsumedEntry,
  GovernanceAction,
  GovernanceValues,
  Hex32,
  LockAccount,
  MarketAccount,
  OracleAccount,
  RootEntry,
} from './types.ts';

/**
 * A note's opening as the chain was shown it when the note was created: by the depositor, or by the
 * owner of the notes a merge joined. Its note-use tag follows from it.
 */
export interface DisclosedOpening {
  readonly ownerCommitment: bigint;
  readonly innerHash: bigint;
  readonly value: bigint;
  readonly noteUseTag: Hex32;
}

/**
 * What the chain knows about a leaf (docs/chain-sim.md section 10). A settlement output is opaque:
 * the chain holds its commitment and nothing of its opening, no owner, value or tag. Its asset is
 * known all the same, and proved: VALID_MATCH fixes it from the leg's public side (what a bid
 * receives is base, its change quote; an ask the reverse), so a withdraw cannot claim another.
 */
export interface LeafRecord {
  readonly tree_id: number;
  readonly leaf_index: bigint;
  readonly commitment: Hex32;
  readonly assetId: bigint;
  /** Deposits and merge outputs: the disclosed opening. Settlement outputs: null. */
  readonly opening: DisclosedOpening | null;
  /**
   * Ed25519 key allowed to withdraw or merge the note. Notes derived from a note inherit it: a merge
   * output from its inputs, a settlement output from its leg's input (the proof shows one owner).
   */
  readonly spendAuthority: Hex32;
}

interface Shard {
  leaves: bigint[];
  roots: RootEntry[];
  tree: NoteTree;
}

/** The ledger at the start of a slot; restoring it undoes everything the slot and later ones did. */
export interface LedgerSnapshot {
  readonly slot: bigint;
  readonly leafCounts: readonly number[];
  readonly roots: readonly (readonly RootEntry[])[];
  readonly consumed: ReadonlyMap<Hex32, ConsumedEntry>;
  readonly locks: ReadonlyMap<Hex32, LockAccount>;
  readonly markets: ReadonlyMap<Address, MarketAccount>;
  readonly oracles: ReadonlyMap<Address, OracleAccount>;
  readonly vaults: ReadonlyMap<Address, bigint>;
  readonly governance: readonly GovernanceAction[];
}

/**
 * The chain's state: note shards with their root windows, consumed entries, locks, accounts and
 * the pool's token vaults. Records are immutable (replaced, never edited), so a snapshot is a
 * shallow copy of each map plus the shards' leaf counts, and a restore is exact.
 */
export class Ledger {
  readonly shards: Shard[];
  /** Every leaf of every shard, by commitment (a commitment is a leaf at most once chain-wide). */
  readonly notes = new Map<Hex32, LeafRecord>();
  consumed = new Map<Hex32, ConsumedEntry>();
  locks = new Map<Hex32, LockAccount>();
  markets = new Map<Address, MarketAccount>();
  oracles = new Map<Address, OracleAccount>();
  /** Tokens the shielded pool holds, by mint: deposits minus withdrawals. */
  vaults = new Map<Address, bigint>();
  /** Mint of each asset id seen (asset ids are hashes of mints). */
  readonly mints = new Map<Hex32, Address>();
  /** Governance actions, genesis first (sequence 0, final from the start). */
  governance: GovernanceAction[];

  constructor(
    private readonly hasher: NoteHasher,
    shardCount: number,
    private readonly rootWindow: number,
    genesis: GovernanceValues,
  ) {
    this.shards = Array.from({ length: shardCount }, () => {
      const tree = new NoteTree(hasher);
      return { leaves: [], tree, roots: [{ root: fieldToHex(tree.root()), leaf_count: 0n, slot: 0n }] };
    });
    this.governance = [{ ...genesis, sequence: 0n, slot: 0n }];
  }

  shard(treeId: number): Shard {
    const shard = Number.isInteger(treeId) ? this.shards[treeId] : undefined;
    if (shard === undefined) {
      reject('not_found', `tree_id ${treeId} is not a shard of this chain (0 to ${this.shards.length - 1})`);
    }
    return shard;
  }

  /** Appends leaves to shards, then records one new root per touched shard. */
  appendLeaves(records: readonly Omit<LeafRecord, 'leaf_index'>[], slot: bigint): LeafRecord[] {
    const touched = new Set<number>();
    const appended = records.map((record) => {
      assert(!this.notes.has(record.commitment), 'a commitment is a leaf at most once');
      const shard = this.shard(record.tree_id);
      const commitment = BigInt(`0x${record.commitment}`);
      const index = shard.tree.append(commitment);
      shard.leaves.push(commitment);
      const leaf = { ...record, leaf_index: BigInt(index) };
      this.notes.set(record.commitment, leaf);
      touched.add(record.tree_id);
      return leaf;
    });
    for (const treeId of touched) {
      const shard = this.shard(treeId);
      this.pushRoot(shard, {
        root: fieldToHex(shard.tree.root()),
        leaf_count: BigInt(shard.leaves.length),
        slot,
      });
    }
    return appended;
  }

  private pushRoot(shard: Shard, entry: RootEntry): void {
    shard.roots = [...shard.roots, entry].slice(-this.rootWindow);
  }

  /** Removes one root from a shard's window (the root-expiry fault). */
  dropRoot(treeId: number, root: Hex32): void {
    const shard = this.shard(treeId);
    if (!shard.roots.some((entry) => entry.root === root)) {
      reject('not_found', `root ${root} is not in the window of shard ${treeId}`);
    }
    shard.roots = shard.roots.filter((entry) => entry.root !== root);
  }

  snapshot(slot: bigint): LedgerSnapshot {
    return {
      slot,
      leafCounts: this.shards.map((shard) => shard.leaves.length),
      roots: this.shards.map((shard) => shard.roots),
      consumed: new Map(this.consumed),
      locks: new Map(this.locks),
      markets: new Map(this.markets),
      oracles: new Map(this.oracles),
      vaults: new Map(this.vaults),
      governance: [...this.governance],
    };
  }

  restore(snapshot: LedgerSnapshot): void {
    this.shards.forEach((shard, treeId) => {
      const count = snapshot.leafCounts[treeId] ?? 0;
      if (shard.leaves.length > count) this.truncate(shard, count);
      shard.roots = [...(snapshot.roots[treeId] ?? [])];
    });
    this.consumed = new Map(snapshot.consumed);
    this.locks = new Map(snapshot.locks);
    this.markets = new Map(snapshot.markets);
    this.oracles = new Map(snapshot.oracles);
    this.vaults = new Map(snapshot.vaults);
    this.governance = [...snapshot.governance];
  }

  /** NoteTree is append-only: rebuild the shard's tree from the leaves that stay. */
  private truncate(shard: Shard, count: number): void {
    for (const leaf of shard.leaves.slice(count)) this.notes.delete(fieldToHex(leaf));
    shard.leaves.length = count;
    shard.tree = new NoteTree(this.hasher);
    for (const leaf of shard.leaves) shard.tree.append(leaf);
  }

  /**
   * sha256 of the whole ledger in a canonical order (maps sorted by key). Equal hashes mean equal
   * ledgers; the reorg tests compare it before and after a rollback.
   */
  stateHash(): string {
    const sorted = <V>(map: ReadonlyMap<string, V>): [string, V][] =>
      [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const state = {
      shards: this.shards.map((shard) => ({
        leaves: shard.leaves.map(fieldToHex),
        root: fieldToHex(shard.tree.root()),
        window: shard.roots,
      })),
      notes: sorted(this.notes),
      consumed: sorted(this.consumed),
      locks: sorted(this.locks),
      markets: sorted(this.markets),
      oracles: sorted(this.oracles),
      vaults: sorted(this.vaults),
      governance: this.governance,
    };
    return Buffer.from(sha256(Buffer.from(stringifyJson(state), 'utf8'))).toString('hex');
  }
}
