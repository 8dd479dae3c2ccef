/**
 * One real VALID_INPUT proof and the place-order bodies around it, shared by the proof tests. Two
 * notes of one owner sit in a note tree; the proof is for the first one, in shard 0, for trading
 * key KEY. The variants keep every other field and change one claim each.
 */
import type { PlaceOrder } from '@venue/protocol';
import {
  assetIdOfMint,
  BASE_FIELD_MODULUS,
  createNote,
  createValidInputProver,
  type DerivedNote,
  fieldToHex,
  loadNoteHasher,
  NoteTree,
  type ProvedInput,
} from '../src/index.ts';

export const BASE_MINT = 'So11111111111111111111111111111111111111112';
export const QUOTE_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const KEY = '5a'.repeat(32);
export const SPENDING_KEY = 0x1234_5678_9abc_def0_1234_5678_9abc_def0n;

export interface ProofFixture {
  readonly proved: ProvedInput;
  readonly note: DerivedNote;
  readonly otherNote: DerivedNote;
  readonly tree: NoteTree;
  /** The valid order: an ask, so its note holds the base asset. */
  readonly order: PlaceOrder;
  readonly assetId: bigint;
  /** One order per way of claiming something the proof was not made for. */
  readonly wrong: Readonly<Record<string, PlaceOrder>>;
}

export function placeOrder(fields: ProvedInput['orderFields']): PlaceOrder {
  return {
    symbol: 'SOL-USDC',
    side: 'ask',
    order_type: 'limit',
    amount: 1000n,
    price_limit: 0n,
    expiry_slot: 1000n,
    order_id: '01'.repeat(16),
    arrival_nonce: 1n,
    trading_key: KEY,
    trading_key_signature: '00'.repeat(64),
    viewing_pubkey: '77'.repeat(32),
    session_id: 'ab'.repeat(32),
    ...fields,
  };
}

/** The proof with its A point replaced by -A: still a curve point, no longer a valid proof. */
function negatedA(proofHex: string): string {
  const ay = BigInt(`0x${proofHex.slice(64, 128)}`);
  return (
    proofHex.slice(0, 64) + (BASE_FIELD_MODULUS - ay).toString(16).padStart(64, '0') + proofHex.slice(128)
  );
}

export async function proofFixture(): Promise<ProofFixture> {
  const hasher = await loadNoteHasher();
  const assetId = assetIdOfMint(BASE_MINT);
  const owner = hasher.ownerCommitment(SPENDING_KEY);
  const note = createNote(hasher, { ownerCommitment: owner, assetId, value: 1000n, blinding: 99n });
  const otherNote = createNote(hasher, { ownerCommitment: owner, assetId, value: 1000n, blinding: 98n });
  const tree = new NoteTree(hasher);
  tree.append(hasher.poseidon([1n]));
  const index = tree.append(note.commitment);
  tree.append(otherNote.commitment);
  const prover = await createValidInputProver();
  try {
    const proved = await prover.prove({
      spendingKey: SPENDING_KEY,
      note,
      path: tree.path(index),
      merkleRoot: tree.root(),
      treeId: 0,
      tradingKey: KEY,
    });
    const order = placeOrder(proved.orderFields);
    const proof = order.valid_input_proof;
    const flipped = `${proof.slice(0, 100)}${proof[100] === '0' ? '1' : '0'}${proof.slice(101)}`;
    const later = new NoteTree(hasher);
    for (const leaf of [hasher.poseidon([1n]), note.commitment, otherNote.commitment, 5n]) later.append(leaf);
    const wrong: Record<string, PlaceOrder> = {
      'tampered proof (A negated)': { ...order, valid_input_proof: negatedA(proof) },
      'tampered proof (one hex digit)': { ...order, valid_input_proof: flipped },
      'another root': { ...order, merkle_root: fieldToHex(later.root()) },
      'another note': {
        ...order,
        note_commitment: otherNote.hex.commitment,
        note_inner_hash: otherNote.hex.innerHash,
      },
      'another tree': { ...order, tree_id: 1 },
      'another trading key': { ...order, trading_key: '5b'.repeat(32) },
      'another owner': { ...order, owner_commitment: fieldToHex(hasher.ownerCommitment(SPENDING_KEY + 1n)) },
      'another inner hash': { ...order, note_inner_hash: otherNote.hex.innerHash },
    };
    return { proved, note, otherNote, tree, order, assetId, wrong };
  } finally {
    await prover.close();
  }
}
