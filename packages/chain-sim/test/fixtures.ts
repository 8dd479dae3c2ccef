/**
 * A small world for the simulator's tests: one chain with a governance authority and settlement
 * signer, a SOL-USDC market with its oracle, and wallets that deposit notes and settle trades. A trade
 * is planned as the venue would (one VALID_MATCH leg per side, settleLeg's statements and output
 * notes) and proved with stand-in proofs, or with real ones from a MatchProver (`batchOf`).
 */
import {
  assetIdOfMint,
  createStandInSpendProver,
  type DerivedNote,
  deriveNote,
  fieldToHex,
  type MatchBatchHeader,
  type MatchLeg,
  type MatchProof,
  proveMerge,
  proveWithdraw,
  quoteOfFill,
  type SettledLeg,
  type SpendProved,
  type SpendProver,
  settleLeg,
  standInMatchProof,
} from '@venue/notes';
import { type TradingKey, tradingKeyFromSeed } from '@venue/protocol';
import {
  accountAddress,
  type ChainOptions,
  type ChainSimulator,
  createChainSimulator,
  type MarketAccount,
  type MergeRequest,
  type NoteOpeningReveal,
  type SettlementBatch,
  type SettlementLeg,
  signLockRequest,
  signSettlementBatch,
  spendAuthorityOf,
  type WithdrawRequest,
} from '../src/index.ts';

export const BASE_MINT = 'So11111111111111111111111111111111111111112';
export const QUOTE_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const BASE = assetIdOfMint(BASE_MINT);
export const QUOTE = assetIdOfMint(QUOTE_MINT);
export const RECIPIENT = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
/** The market's price scale: a price P is P / 100 quote units per base unit. */
export const PRICE_SCALE = 100n;

export interface Wallet {
  readonly spendingKey: bigint;
  readonly owner: bigint;
  readonly authority: TradingKey;
}

/** A deposited (or derived) note with what its owner knows about it. */
export interface HeldNote {
  readonly note: DerivedNote;
  readonly treeId: number;
}

/** A trade as the venue plans it before proving: the batch header, one leg per side, their notes. */
export interface TradePlan {
  readonly header: MatchBatchHeader;
  /** The bid's leg, then the ask's. */
  readonly legs: readonly [MatchLeg, MatchLeg];
  readonly inputs: readonly [HeldNote, HeldNote];
  readonly roots: readonly [string, string];
  /** settleLeg's statement and output notes per leg (what the owners learn from their fill memos). */
  readonly settled: readonly [SettledLeg, SettledLeg];
  readonly outputTree: number;
}

export interface World {
  readonly chain: ChainSimulator;
  readonly signer: TradingKey;
  readonly authority: TradingKey;
  readonly market: MarketAccount;
  wallet(seed: number): Wallet;
  deposit(wallet: Wallet, asset: 'base' | 'quote', value: bigint, treeId?: number): HeldNote;
  lock(notes: readonly HeldNote[], expirySlot: bigint, marketId?: string, key?: TradingKey): void;
  /** The bid buys `base` from the ask at `price`, paying floor(base x price / PRICE_SCALE) quote. */
  plan(bid: HeldNote, ask: HeldNote, base: bigint, price: bigint, options?: TradeOptions): TradePlan;
  /** A signed batch of the plan's two legs with `proofs` (stand-in proofs by default). */
  batchOf(plan: TradePlan, proofs?: readonly MatchProof[], options?: BatchOptions): SettlementBatch;
  /** plan + batchOf with stand-in proofs. */
  trade(bid: HeldNote, ask: HeldNote, base: bigint, price: bigint, options?: TradeOptions): SettlementBatch;
  /**
   * A withdraw of `held` by `wallet`, proved by `spender` (stand-in by default) and signed by the
   * wallet's spend authority: all of it to RECIPIENT unless `options` says otherwise.
   */
  withdrawal(wallet: Wallet, held: HeldNote, options?: WithdrawOptions): Promise<Spend<WithdrawRequest>>;
  /** A merge of `notes` by `wallet` into one note in shard `outputTree` (default 0). */
  merging(wallet: Wallet, notes: readonly HeldNote[], outputTree?: number): Promise<Spend<MergeRequest>>;
  /** The prover of withdrawal and merging: stand-in, or whatever the test sets. */
  spender: SpendProver;
}

export interface WithdrawOptions {
  readonly value?: bigint;
  readonly recipient?: string;
  readonly changeTree?: number;
}

/** A proved, signed spend request, and the output (with its opening) the owner now holds. */
export interface Spend<R> {
  readonly request: R;
  readonly proved: SpendProved;
  readonly output: HeldNote | null;
}

export interface TradeOptions {
  readonly batchSeq?: bigint;
  readonly deadline?: bigint;
  readonly key?: TradingKey;
  readonly roots?: readonly [string, string];
  readonly outputTree?: number;
}

/** What the signed batch says, when a test makes it say something else than its proofs were made for. */
export interface BatchOptions {
  readonly batchSeq?: bigint;
  readonly deadline?: bigint;
  readonly key?: TradingKey;
}

/** The mint of a note the world made (every note holds base or quote). */
export function mintOf(held: HeldNote): string {
  return held.note.assetId === BASE ? BASE_MINT : QUOTE_MINT;
}

/** The stand-in proofs of a plan (what createStandInMatchProver would answer). */
export function standInProofs(plan: TradePlan): MatchProof[] {
  return plan.settled.map(({ statement }) => ({ statement, proof: standInMatchProof(statement) }));
}

/** The openings of a trade's outputs, as their owners reveal them to a withdraw or the audit. */
export function outputsOf(plan: TradePlan): HeldNote[] {
  return plan.settled.flatMap((leg) =>
    [leg.received, leg.change]
      .filter((note) => note.value > 0n)
      .map((note) => ({ note, treeId: plan.outputTree })),
  );
}

export function revealOf(held: HeldNote): NoteOpeningReveal {
  return {
    commitment: held.note.hex.commitment,
    owner_commitment: held.note.hex.ownerCommitment,
    note_inner_hash: held.note.hex.innerHash,
    value: held.note.value,
  };
}

/** A world whose chain checks stand-in proofs unless `options.matchProofs` says otherwise. */
export async function world(options: ChainOptions = {}): Promise<World> {
  const signer = tradingKeyFromSeed(new Uint8Array(32).fill(1));
  const authority = tradingKeyFromSeed(new Uint8Array(32).fill(2));
  const chain = await createChainSimulator({
    governance: {
      authority: authority.publicKey,
      settlement_signer: signer.publicKey,
      measurement: 'ab'.repeat(32),
    },
    matchProofs: 'stand-in',
    ...options,
  });
  const oracle = accountAddress('oracle', 'SOL-USDC');
  chain.updateOracle({ address: oracle, price: 150n, confidence: 1n });
  const market = chain.createMarket({
    symbol: 'SOL-USDC',
    base_mint: BASE_MINT,
    quote_mint: QUOTE_MINT,
    tick_size: 1n,
    min_size: 1n,
    price_scale: PRICE_SCALE,
    oracle,
  });
  let blinding = 1000n;
  let salt = 7000n;
  const self: World = {
    chain,
    signer,
    authority,
    market,
    wallet(seed) {
      const spendingKey = 0x5eed_0000n + BigInt(seed);
      return {
        spendingKey,
        owner: chain.hasher.ownerCommitment(spendingKey),
        authority: spendAuthorityOf(spendingKey),
      };
    },
    deposit(wallet, asset, value, treeId = 0) {
      blinding += 1n;
      const note = deriveNote(chain.hasher, {
        ownerCommitment: wallet.owner,
        assetId: asset === 'base' ? BASE : QUOTE,
        blinding,
        value,
      });
      chain.deposit({
        tree_id: treeId,
        mint: asset === 'base' ? BASE_MINT : QUOTE_MINT,
        value,
        owner_commitment: note.hex.ownerCommitment,
        blinding: fieldToHex(blinding),
        spend_authority: wallet.authority.publicKey,
      });
      return { note, treeId };
    },
    lock(notes, expirySlot, marketId = market.market_id, key = signer) {
      chain.lockNotes(
        signLockRequest(
          {
            market_id: marketId,
            locks: notes.map((held) => ({ note_use_tag: held.note.hex.noteUseTag, expiry_slot: expirySlot })),
            signer: key.publicKey,
          },
          key,
        ),
      );
    },
    plan(bid, ask, base, price, options = {}) {
      const header: MatchBatchHeader = {
        marketId: market.market_id,
        batchSeq: options.batchSeq ?? chain.market(market.market_id).next_batch_seq,
        deadlineSlot: options.deadline ?? chain.slot + 10n,
        baseAssetId: BASE,
        quoteAssetId: QUOTE,
        priceScale: PRICE_SCALE,
        clearingPrice: price,
      };
      salt += 1n;
      const fill = { baseAmount: base, quoteAmount: quoteOfFill(base, price, PRICE_SCALE), salt };
      const opening = (held: HeldNote) => ({
        ownerCommitment: held.note.ownerCommitment,
        innerHash: held.note.innerHash,
        value: held.note.value,
      });
      const legs: [MatchLeg, MatchLeg] = [
        { side: 'bid', input: opening(bid), fills: [fill] },
        { side: 'ask', input: opening(ask), fills: [fill] },
      ];
      return {
        header,
        legs,
        inputs: [bid, ask],
        roots: options.roots ?? [chain.currentRoot(bid.treeId).root, chain.currentRoot(ask.treeId).root],
        settled: [settleLeg(chain.hasher, header, legs[0]), settleLeg(chain.hasher, header, legs[1])],
        outputTree: options.outputTree ?? 0,
      };
    },
    batchOf(plan, proofs = standInProofs(plan), options = {}) {
      const output = (note: DerivedNote) =>
        note.value === 0n ? undefined : { tree_id: plan.outputTree, commitment: note.hex.commitment };
      const legs = plan.settled.map((settled, i): SettlementLeg => {
        const held = plan.inputs[i] as HeldNote;
        const received = output(settled.received);
        const change = output(settled.change);
        return {
          input: {
            tree_id: held.treeId,
            note_commitment: held.note.hex.commitment,
            note_use_tag: held.note.hex.noteUseTag,
            merkle_root: plan.roots[i] as string,
          },
          side: settled.statement.side,
          clearing_price: settled.statement.clearingPrice,
          ...(received === undefined ? {} : { received }),
          ...(change === undefined ? {} : { change }),
          fill_tags: settled.statement.fillTags.filter((tag) => tag !== 0n).map(fieldToHex),
          proof: proofs[i]?.proof ?? '',
        };
      });
      const key = options.key ?? signer;
      return signSettlementBatch(
        {
          market_id: market.market_id,
          batch_seq: options.batchSeq ?? plan.header.batchSeq,
          deadline_slot: options.deadline ?? plan.header.deadlineSlot,
          match_count: 1,
          legs,
          signer: key.publicKey,
        },
        key,
      );
    },
    trade(bid, ask, base, price, options = {}) {
      const plan = self.plan(bid, ask, base, price, options);
      return self.batchOf(plan, standInProofs(plan), options);
    },
    spender: createStandInSpendProver(chain.hasher),
    async withdrawal(wallet, held, options = {}) {
      const changeTree = options.changeTree ?? held.treeId;
      const { request, proved } = await proveWithdraw(self.spender, {
        spendingKey: wallet.spendingKey,
        mint: mintOf(held),
        note: { tree_id: held.treeId, blinding: held.note.blinding, value: held.note.value },
        value: options.value ?? held.note.value,
        recipient: options.recipient ?? RECIPIENT,
        change: { tree_id: changeTree },
      });
      return { request, proved, output: proved.output && { note: proved.output, treeId: changeTree } };
    },
    async merging(wallet, notes, outputTree = 0) {
      const [first] = notes;
      const { request, proved } = await proveMerge(self.spender, {
        spendingKey: wallet.spendingKey,
        mint: first === undefined ? BASE_MINT : mintOf(first),
        notes: notes.map((held) => ({
          tree_id: held.treeId,
          blinding: held.note.blinding,
          value: held.note.value,
        })),
        output: { tree_id: outputTree },
      });
      return { request, proved, output: proved.output && { note: proved.output, treeId: outputTree } };
    },
  };
  return self;
}
