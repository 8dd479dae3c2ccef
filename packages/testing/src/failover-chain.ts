/**
 * The chain of a settling failover test: the chain simulator in its own process (stand-in match
 * proofs, genesis governance naming the world's sealed settlement signer, so no later action is
 * needed however many primaries the test goes through), the test markets on it, and the traders'
 * notes: deposited on the chain, then proved (real VALID_INPUT) in child processes ahead of the load.
 *
 * Notes come in two kinds, in two shards: *resting* notes (shard 0) back orders that never cross and
 * are reused order after order, so shard 0's root never moves and their proofs stay valid for the
 * whole run; *crossing* notes (shard 1) back pairs of orders that match, each note once, and each
 * landed batch adds a root to shard 1 (the venue's window is wide enough to keep the proved one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { ChainRpcClient } from '@venue/adapters';
import type { MarketConfig } from '@venue/core';
import {
  assetIdOfMint,
  createNote,
  type DerivedNote,
  fieldToHex,
  loadNoteHasher,
  NoteTree,
  spendAuthorityOf,
} from '@venue/notes';
import { generateTradingKey } from '@venue/protocol';
import { FAILOVER_MEASUREMENT } from './failover-world.ts';
import type { ProveJob } from './prove-inputs-child.ts';

const CHAIN_MAIN = new URL('../../chain-sim/src/main.ts', import.meta.url).pathname;
const PROVE_CHILD = new URL('./prove-inputs-child.ts', import.meta.url).pathname;

export interface FailoverChain {
  readonly url: string;
  readonly rpc: ChainRpcClient;
  stop(): Promise<void>;
}

/** Starts the chain process and creates `markets` (and their oracles) on it. */
export async function startFailoverChain(options: {
  readonly settlementSigner: string;
  readonly slotMs: number;
  readonly finalityDepth: number;
  readonly shards: number;
  readonly markets: readonly MarketConfig[];
}): Promise<FailoverChain> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CHAIN_MAIN,
      '--port',
      '0',
      '--slot-ms',
      String(options.slotMs),
      '--finality-depth',
      String(options.finalityDepth),
      '--shards',
      String(options.shards),
      '--match-proofs',
      'stand-in',
      '--signer',
      options.settlementSigner,
      '--measurement',
      FAILOVER_MEASUREMENT,
      '--authority',
      generateTradingKey().publicKey,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await readyUrl(child);
  const rpc = new ChainRpcClient(url, 10_000);
  for (const market of options.markets) {
    await rpc.request('updateOracle', { address: market.oracleFeed, price: 1000n, confidence: 1n });
    await rpc.request('createMarket', {
      market_id: market.marketId,
      symbol: market.symbol,
      base_mint: market.baseMint,
      quote_mint: market.quoteMint,
      tick_size: market.tickSize,
      min_size: market.minSize,
      price_scale: market.priceScale,
      oracle: market.oracleFeed,
    });
  }
  return {
    url,
    rpc,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function readyUrl(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith('READY ')) return line.slice('READY '.length).trim();
  }
  throw new Error('the chain process ended before it was ready');
}

/** An order's input: the proved place-order fields of one note. */
export interface ProvedNoteInput {
  readonly note_commitment: string;
  readonly owner_commitment: string;
  readonly note_inner_hash: string;
  readonly merkle_root: string;
  readonly tree_id: number;
  readonly valid_input_proof: string;
}

/** A deposited and proved note: what backs an order, and what the chain's audit is checked with. */
export interface FailoverNote {
  readonly trader: number;
  readonly side: 'bid' | 'ask';
  readonly mint: string;
  readonly value: bigint;
  /** The tag the chain records when the note is consumed. */
  readonly noteUseTag: string;
  readonly input: ProvedNoteInput;
}

export interface NotePlan {
  readonly trader: number;
  readonly side: 'bid' | 'ask';
  readonly value: bigint;
  readonly treeId: number;
}

/**
 * Deposits one note per plan entry on the chain (shard `treeId`, in plan order), checks that the
 * local trees and the chain's agree, and proves every note for its trader's trading key in
 * `workers` child processes. Returns the notes in plan order.
 */
export async function depositAndProve(
  rpc: ChainRpcClient,
  market: MarketConfig,
  plans: readonly NotePlan[],
  tradingKeys: readonly string[],
  workers: number,
): Promise<FailoverNote[]> {
  const hasher = await loadNoteHasher();
  const trees = new Map<number, NoteTree>();
  const made: { plan: NotePlan; note: DerivedNote; spendingKey: bigint; leaf: number; mint: string }[] = [];
  for (const [i, plan] of plans.entries()) {
    const spendingKey = BigInt(
      `0x${createHash('sha256').update(`failover-spend-${i}`).digest('hex').slice(0, 60)}`,
    );
    const mint = plan.side === 'bid' ? market.quoteMint : market.baseMint;
    const note = createNote(hasher, {
      ownerCommitment: hasher.ownerCommitment(spendingKey),
      assetId: assetIdOfMint(mint),
      value: plan.value,
    });
    await rpc.request('deposit', {
      tree_id: plan.treeId,
      mint,
      value: plan.value,
      owner_commitment: note.hex.ownerCommitment,
      blinding: fieldToHex(note.blinding),
      spend_authority: spendAuthorityOf(spendingKey).publicKey,
    });
    let tree = trees.get(plan.treeId);
    if (tree === undefined) {
      tree = new NoteTree(hasher);
      trees.set(plan.treeId, tree);
    }
    made.push({ plan, note, spendingKey, leaf: tree.leafCount, mint });
    tree.append(note.commitment);
  }
  for (const [treeId, tree] of trees) {
    const { roots } = await rpc.request('getRootWindow', { tree_id: treeId });
    if (roots.at(-1)?.root !== fieldToHex(tree.root()))
      throw new Error(`shard ${treeId}: the chain's root is not the local tree's`);
  }
  const jobs: ProveJob[] = made.map(({ plan, note, spendingKey, leaf }) => {
    const tree = trees.get(plan.treeId) as NoteTree;
    const path = tree.path(leaf);
    return {
      spendingKey: String(spendingKey),
      assetId: String(note.assetId),
      blinding: String(note.blinding),
      value: String(note.value),
      leafIndex: leaf,
      siblings: path.siblings.map(String),
      pathBits: [...path.pathBits],
      merkleRoot: String(tree.root()),
      treeId: plan.treeId,
      tradingKey: tradingKeys[plan.trader] as string,
    };
  });
  const shares = Array.from({ length: workers }, (_, w) => jobs.filter((_, i) => i % workers === w));
  const proved = await Promise.all(shares.map(proveInChild));
  return made.map(({ plan, note, mint }, i) => ({
    trader: plan.trader,
    side: plan.side,
    mint,
    value: plan.value,
    noteUseTag: note.hex.noteUseTag,
    input: proved[i % workers]?.[Math.floor(i / workers)] as ProvedNoteInput,
  }));
}

async function proveInChild(jobs: readonly ProveJob[]): Promise<ProvedNoteInput[]> {
  if (jobs.length === 0) return [];
  const child = spawn(process.execPath, ['--import', 'tsx', PROVE_CHILD], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin?.end(JSON.stringify(jobs));
  const proved: ProvedNoteInput[] = [];
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    proved.push(JSON.parse(line) as ProvedNoteInput);
  }
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  if (proved.length !== jobs.length)
    throw new Error(`the prover child proved ${proved.length} of ${jobs.length}`);
  return proved;
}
