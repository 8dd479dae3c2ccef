import Type from 'typebox';
import { BYTES } from '../limits.ts';
import { Base58Address, Hex, Strict, U8, U64 } from '../schema/primitives.ts';
import type { ChainStatic } from './frozen.ts';
import { LOCKS_PER_REQUEST_MAX, MERGE_INPUTS_MAX } from './limits.ts';

/**
 * The chain's note, lock and governance requests (docs/chain-sim.md sections 3 and 4). The signed
 * ones carry an Ed25519 signature over sha256 of their canonical bytes (signing.ts, and notes'
 * withdraw-message.ts for the withdraw).
 */

const Hash = () => Hex(BYTES.hash);
const Signature = () => Hex(BYTES.signature);

/** A deposit: the depositor discloses the note's opening (a shielded pool's deposits are public). */
export const DepositRequestSchema = Strict(
  {
    tree_id: U8(),
    mint: Base58Address(),
    value: U64(),
    owner_commitment: Hash(),
    blinding: Hash(),
    spend_authority: Hex(BYTES.publicKey, {
      description: 'Ed25519 key allowed to withdraw or merge this note and the notes derived from it.',
    }),
  },
  { title: 'DepositRequest' },
);
export type DepositRequest = ChainStatic<typeof DepositRequestSchema>;

/** Proof of ownership of a note: its opening (minus the asset); the spend authority signs the request. */
const noteSpendFields = {
  tree_id: U8(),
  commitment: Hash(),
  owner_commitment: Hash(),
  note_inner_hash: Hash(),
  value: U64(),
};
export const NoteSpendSchema = Strict(noteSpendFields, { title: 'NoteSpend' });
export type NoteSpend = ChainStatic<typeof NoteSpendSchema>;

export const WithdrawRequestSchema = Strict(
  {
    ...noteSpendFields,
    recipient: Base58Address({ description: 'Public account that receives the tokens.' }),
    signature: Signature(),
  },
  { title: 'WithdrawRequest' },
);
export type WithdrawRequest = ChainStatic<typeof WithdrawRequestSchema>;

export const MergeRequestSchema = Strict(
  {
    inputs: Type.Array(NoteSpendSchema, { minItems: 2, maxItems: MERGE_INPUTS_MAX }),
    output: Strict(
      { tree_id: U8(), blinding: Hash() },
      { description: 'The merged note: same owner and asset, the summed value, this blinding.' },
    ),
    signature: Signature(),
  },
  { title: 'MergeRequest' },
);
export type MergeRequest = ChainStatic<typeof MergeRequestSchema>;

export const LockRequestSchema = Strict(
  {
    market_id: Base58Address(),
    locks: Type.Array(Strict({ note_use_tag: Hash(), expiry_slot: U64() }), {
      minItems: 1,
      maxItems: LOCKS_PER_REQUEST_MAX,
    }),
    signer: Hex(BYTES.publicKey),
    signature: Signature(),
  },
  { title: 'LockRequest' },
);
export type LockRequest = ChainStatic<typeof LockRequestSchema>;

export const GovernanceRequestSchema = Strict(
  {
    sequence: U64(),
    measurement: Hash(),
    settlement_signer: Hex(BYTES.publicKey),
    signature: Signature(),
  },
  { title: 'GovernanceRequest' },
);
export type GovernanceRequest = ChainStatic<typeof GovernanceRequestSchema>;
