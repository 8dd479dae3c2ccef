import { type ChainSimulator, spendAuthorityOf } from '@venue/chain-sim';
import type { MarketConfig } from '@venue/core';
import {
  assetIdOfMint,
  createNote,
  type DerivedNote,
  fieldToHex,
  generateViewingKey,
  type NoteHasher,
} from '@venue/notes';
import { type PlaceOrder, signPlaceOrder } from '@venue/protocol';
import type { Trader } from './venue-fixture.ts';

/**
 * Notes on a settling test venue's chain and orders over them, for tests whose subject is not the
 * proof: a trader's spending key is derived from its trading key, and the venue's proof checks pass
 * any VALID_INPUT proof.
 */

/** The spending key a test derives for `trader` (the owner of its notes). */
export function spendingKeyOf(trader: Trader): bigint {
  return BigInt(`0x${trader.key.publicKey.slice(0, 60)}`);
}

/** A note of `value` deposited for `trader`: base units backing an ask, quote units a bid. */
export function depositFor(
  chain: ChainSimulator,
  hasher: NoteHasher,
  market: MarketConfig,
  trader: Trader,
  side: 'bid' | 'ask',
  value: bigint,
): DerivedNote {
  const spendingKey = spendingKeyOf(trader);
  const mint = side === 'bid' ? market.quoteMint : market.baseMint;
  const note = createNote(hasher, {
    ownerCommitment: hasher.ownerCommitment(spendingKey),
    assetId: assetIdOfMint(mint),
    value,
  });
  chain.deposit({
    tree_id: 0,
    mint,
    value,
    owner_commitment: note.hex.ownerCommitment,
    blinding: fieldToHex(note.blinding),
    spend_authority: spendAuthorityOf(spendingKey).publicKey,
  });
  return note;
}

/** A signed limit order of `trader` over `note`, numbered `id` (order id and arrival nonce). */
export function noteOrder(
  context: {
    readonly chain: ChainSimulator;
    readonly market: MarketConfig;
    readonly sessionId: string;
    readonly slot: bigint;
  },
  trader: Trader,
  note: DerivedNote,
  order: {
    readonly side: 'bid' | 'ask';
    readonly amount: bigint;
    readonly price: bigint;
    readonly id: number;
  },
): PlaceOrder {
  const { market } = context;
  const { side, amount, price, id } = order;
  return signPlaceOrder(
    {
      symbol: market.symbol,
      side,
      order_type: 'limit',
      amount,
      price_limit: price,
      expiry_slot: context.slot + 500n,
      order_id: id.toString(16).padStart(32, '0'),
      arrival_nonce: BigInt(id),
      trading_key: trader.key.publicKey,
      viewing_pubkey: generateViewingKey().publicKey,
      session_id: context.sessionId,
      ...(note.value === (side === 'bid' ? (amount * price) / market.priceScale : amount)
        ? {}
        : { collateral_amount: note.value }),
      note_commitment: note.hex.commitment,
      owner_commitment: note.hex.ownerCommitment,
      note_inner_hash: note.hex.innerHash,
      merkle_root: context.chain.currentRoot(0).root,
      valid_input_proof: '00'.repeat(256),
    },
    trader.key,
  );
}
