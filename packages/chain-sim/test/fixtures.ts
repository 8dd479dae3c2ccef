/**
 * A small world for the simulator's tests: one chain with a governance authority and settlement
 * signer, a SOL-USDC market with its oracle, and wallets that deposit notes and settle trades.
 */
import {
  assetIdOfMint,
  type DerivedNote,
  deriveChangeNote,
  deriveFillNote,
  deriveNote,
  fieldToHex,
} from '@venue/notes';
import { type TradingKey, tradingKeyFromSeed } from '@venue/protocol';
import {
  accountAddress,
  type ChainOptions,
  type ChainSimulator,
  createChainSimulator,
  type MarketAccount,
  type SettlementBatch,
  type SettlementLeg,
  signLockRequest,
  signSettlementBatch,
  spendAuthorityOf,
} from '../src/index.ts';

export const BASE_MINT = 'So11111111111111111111111111111111111111112';
export const QUOTE_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const BASE = assetIdOfMint(BASE_MINT);
export const QUOTE = assetIdOfMint(QUOTE_MINT);
export const RECIPIENT = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

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

export interface World {
  readonly chain: ChainSimulator;
  readonly signer: TradingKey;
  readonly authority: TradingKey;
  readonly market: MarketAccount;
  wallet(seed: number): Wallet;
  deposit(wallet: Wallet, asset: 'base' | 'quote', value: bigint, treeId?: number): HeldNote;
  lock(notes: readonly HeldNote[], expirySlot: bigint, marketId?: string, key?: TradingKey): void;
  /** A signed batch: the bid pays `quote` for `base` from the ask (change back to both). */
  trade(bid: HeldNote, ask: HeldNote, base: bigint, quote: bigint, options?: TradeOptions): SettlementBatch;
}

export interface TradeOptions {
  readonly batchSeq?: bigint;
  readonly deadline?: bigint;
  readonly key?: TradingKey;
  readonly roots?: readonly [string, string];
  readonly outputTree?: number;
}

export async function world(options: ChainOptions = {}): Promise<World> {
  const signer = tradingKeyFromSeed(new Uint8Array(32).fill(1));
  const authority = tradingKeyFromSeed(new Uint8Array(32).fill(2));
  const chain = await createChainSimulator({
    governance: {
      authority: authority.publicKey,
      settlement_signer: signer.publicKey,
      measurement: 'ab'.repeat(32),
    },
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
    price_scale: 1n,
    oracle,
  });
  let blinding = 1000n;
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
    trade(bid, ask, base, quote, options = {}) {
      const outputTree = options.outputTree ?? 0;
      const leg = (
        held: HeldNote,
        root: string,
        paid: bigint,
        gotAsset: bigint,
        got: bigint,
      ): SettlementLeg => {
        const parent = { ownerCommitment: held.note.hex.ownerCommitment, innerHash: held.note.hex.innerHash };
        const notes = [deriveFillNote(chain.hasher, parent, gotAsset, got)];
        if (held.note.value > paid) {
          notes.push(deriveChangeNote(chain.hasher, parent, held.note.assetId, held.note.value - paid));
        }
        return {
          input: {
            tree_id: held.treeId,
            note_commitment: held.note.hex.commitment,
            note_use_tag: held.note.hex.noteUseTag,
            merkle_root: root,
            value: held.note.value,
          },
          outputs: notes.map((note) => ({
            tree_id: outputTree,
            commitment: note.hex.commitment,
            owner_commitment: note.hex.ownerCommitment,
            asset_id: fieldToHex(note.assetId),
            blinding: fieldToHex(note.blinding),
            value: note.value,
          })),
        };
      };
      const roots = options.roots ?? [chain.currentRoot(bid.treeId).root, chain.currentRoot(ask.treeId).root];
      const key = options.key ?? signer;
      return signSettlementBatch(
        {
          market_id: market.market_id,
          batch_seq: options.batchSeq ?? chain.market(market.market_id).next_batch_seq,
          deadline_slot: options.deadline ?? chain.slot + 10n,
          match_count: 1,
          legs: [leg(bid, roots[0], quote, BASE, base), leg(ask, roots[1], base, QUOTE, quote)],
          proof: '',
          signer: key.publicKey,
        },
        key,
      );
    },
  };
  return self;
}

/** The change and fill notes a trade gave a note's owner (what the owner can re-derive). */
export function fillOf(chain: ChainSimulator, held: HeldNote, gotAsset: bigint, got: bigint): HeldNote {
  const parent = { ownerCommitment: held.note.hex.ownerCommitment, innerHash: held.note.hex.innerHash };
  return { note: deriveFillNote(chain.hasher, parent, gotAsset, got), treeId: 0 };
}
