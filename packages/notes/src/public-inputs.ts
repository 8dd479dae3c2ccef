import type { PlaceOrder } from '@venue/protocol';
import { fieldFromHex } from './field.ts';
import type { NoteHasher } from './hash.ts';
import { bindingOfTradingKey } from './note.ts';

/**
 * The public inputs of VALID_INPUT, in the order the verification key expects them
 * (docs/notes.md section 4). Each binds the proof to one thing the order claims:
 * - note_commitment: the note spent is exactly the order's note (and so its value);
 * - merkle_root: the tree state the membership was proved against;
 * - tree_id: the shard that root belongs to;
 * - note_use_tag: Poseidon(35, owner_commitment, note_inner_hash) of the order's fields, so the
 *   order's owner_commitment and note_inner_hash are those of the proved note;
 * - asset_id: the token the note holds is the one the order's side spends;
 * - binding: the trading key that signs the order.
 */
export const VALID_INPUT_PUBLIC_INPUTS = [
  'note_commitment',
  'merkle_root',
  'tree_id',
  'note_use_tag',
  'asset_id',
  'binding',
] as const;

/** The fields of a place-order body (spec 2.1) that the proof is checked against. */
export type ProofClaim = Pick<
  PlaceOrder,
  | 'note_commitment'
  | 'merkle_root'
  | 'tree_id'
  | 'owner_commitment'
  | 'note_inner_hash'
  | 'trading_key'
  | 'valid_input_proof'
>;

/**
 * The public inputs for an order, in VALID_INPUT_PUBLIC_INPUTS order. `assetId` is the asset the
 * order's note must hold (assetIdOfMint(spentMint(order.side, market))). Throws VenueError when a
 * field is not a field element: such an order cannot carry a valid proof.
 */
export function publicInputsOfOrder(hasher: NoteHasher, order: ProofClaim, assetId: bigint): bigint[] {
  const owner = fieldFromHex(order.owner_commitment, 'owner_commitment');
  const inner = fieldFromHex(order.note_inner_hash, 'note_inner_hash');
  return [
    fieldFromHex(order.note_commitment, 'note_commitment'),
    fieldFromHex(order.merkle_root, 'merkle_root'),
    BigInt(order.tree_id ?? 0),
    hasher.noteUseTag(owner, inner),
    assetId,
    bindingOfTradingKey(order.trading_key),
  ];
}
