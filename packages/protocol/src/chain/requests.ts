import Type from 'typebox';
import { BYTES } from '../limits.ts';
import { Base58Address, Hex, Strict, U8, U64 } from '../schema/primitives.ts';
import type { ChainStatic } from './frozen.ts';
import { LOCKS_PER_REQUEST_MAX, MERGE_INPUTS_MAX } from './limits.ts';

/**
 * The chain's note, lock and governance requests (docs/chain-sim.md sections 3 and 4). The signed
 * ones carry an Ed25519 signature over sha256 of their canonical bytes (signing.ts, and notes'
 * withdraw-message.ts for the withdraw); withdraw and merge also carry a VALID_SPEND proof.
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

/**
 * A note a withdraw or merge spends, named without its opening (docs/chain-sim.md section 10): the
 * chain finds the leaf by its commitment and checks the VALID_SPEND proof, which shows that the
 * commitment and this note-use tag belong to one note of the prover's (docs/notes.md section 11).
 */
export const NoteSpendSchema = Strict(
  { tree_id: U8(), commitment: Hash(), note_use_tag: Hash() },
  { title: 'NoteSpend' },
);
export type NoteSpend = ChainStatic<typeof NoteSpendSchema>;

/** A note a withdraw or merge creates: where it goes and its commitment, nothing of its opening. */
export const SpendOutputSchema = Strict({ tree_id: U8(), commitment: Hash() }, { title: 'SpendOutput' });
export type SpendOutput = ChainStatic<typeof SpendOutputSchema>;

const SpendProof = () =>
  Hex(BYTES.proof, { description: 'The VALID_SPEND Groth16 proof (256 bytes, docs/notes.md section 11).' });

export const WithdrawRequestSchema = Strict(
  {
    tree_id: U8(),
    commitment: Hash(),
    note_use_tag: Hash(),
    mint: Base58Address({ description: "The note's token: the chain checks it is the leaf's asset." }),
    value: U64({ description: 'Base units leaving the pool: all of the note, or part with `change`.' }),
    recipient: Base58Address({ description: 'Public account that receives the tokens.' }),
    change: Type.Optional(SpendOutputSchema),
    proof: SpendProof(),
    signature: Signature(),
  },
  { title: 'WithdrawRequest' },
);
export type WithdrawRequest = ChainStatic<typeof WithdrawRequestSchema>;

export const MergeRequestSchema = Strict(
  {
    inputs: Type.Array(NoteSpendSchema, { minItems: 2, maxItems: MERGE_INPUTS_MAX }),
    output: SpendOutputSchema,
    proof: SpendProof(),
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
