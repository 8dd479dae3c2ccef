import { createHash } from 'node:crypto';
import { assert } from '@venue/protocol';
import { fieldFromDigest } from './field.ts';

/**
 * The public inputs of VALID_SPEND, the withdraw and merge circuit (docs/notes.md section 11), in the
 * order the verification key expects them. This module is the one place that layout lives: the
 * prover checks its output against it, the verifier and the chain build the inputs with it.
 *
 * What the chain learns from one proof: the asset, the amount leaving the pool (0 for a merge), the
 * commitments and note-use tags of the notes spent, the output's commitment (0 for none) and the
 * request binding. No owner commitment, inner hash, blinding or value of any note.
 */
export const VALID_SPEND_PUBLIC_INPUTS = [
  'request_binding',
  'asset_id',
  'public_value',
  'output_commitment',
  'input_commitments',
  'note_use_tags',
] as const;

/** Input slots of the circuit: the most notes one merge may join (protocol MERGE_INPUTS_MAX). */
export const SPEND_INPUTS_MAX = 8;

/** How many field elements the verification key takes: 4 scalars and two rows of slots. */
export const VALID_SPEND_PUBLIC_INPUT_COUNT = 4 + 2 * SPEND_INPUTS_MAX;

/** What one VALID_SPEND proof is about. Unused slots hold 0 in both rows. */
export interface SpendStatement {
  readonly requestBinding: bigint;
  readonly assetId: bigint;
  /** Base units leaving the pool to the recipient: the withdrawn amount, 0 for a merge. */
  readonly publicValue: bigint;
  /** The change note of a withdraw or the merged note; 0 when there is none. */
  readonly outputCommitment: bigint;
  /** SPEND_INPUTS_MAX entries, the notes spent first, zero-padded. */
  readonly inputCommitments: readonly bigint[];
  /** The spent notes' note-use tags, in the same slots, zero-padded. */
  readonly noteUseTags: readonly bigint[];
}

/** The statement's public inputs, in VALID_SPEND_PUBLIC_INPUTS order. */
export function spendPublicInputs(statement: SpendStatement): bigint[] {
  assert(
    statement.inputCommitments.length === SPEND_INPUTS_MAX &&
      statement.noteUseTags.length === SPEND_INPUTS_MAX,
    `a spend statement carries ${SPEND_INPUTS_MAX} input slots`,
  );
  return [
    statement.requestBinding,
    statement.assetId,
    statement.publicValue,
    statement.outputCommitment,
    ...statement.inputCommitments,
    ...statement.noteUseTags,
  ];
}

/** `values` zero-padded to SPEND_INPUTS_MAX slots (1 to SPEND_INPUTS_MAX of them). */
export function padSpendSlots(values: readonly bigint[]): bigint[] {
  assert(
    values.length >= 1 && values.length <= SPEND_INPUTS_MAX,
    `a spend has 1 to ${SPEND_INPUTS_MAX} inputs, received ${values.length}`,
  );
  return [...values, ...new Array<bigint>(SPEND_INPUTS_MAX - values.length).fill(0n)];
}

/** The request fields a proof is bound to beyond its own public inputs. */
export interface SpendRequestFields {
  readonly action: 'withdraw' | 'merge';
  /** The shard of each spent note, in slot order. */
  readonly inputTreeIds: readonly number[];
  /** The shard the output is appended to; null when there is no output. */
  readonly outputTreeId: number | null;
  /** The public account receiving a withdraw; '' for a merge. */
  readonly recipient: string;
}

const BINDING_DOMAIN = 'venue-spend-binding-v1\u0000';
const ACTION_BYTE = { withdraw: 1, merge: 2 } as const;

/**
 * The request binding: sha256 of the request's fields that are not public inputs of the proof,
 * truncated to 253 bits. Layout: "venue-spend-binding-v1" NUL, action u8 (1 withdraw, 2 merge),
 * input count u8 and each input's tree id u8, output presence u8 (0 or 1) and its tree id u8 (0 when
 * absent), recipient length u8 and its ASCII. The chain computes it from the request it receives, so a
 * proof made for one request (its recipient, its action, its shards) verifies for no other.
 */
export function spendRequestBinding(fields: SpendRequestFields): bigint {
  const u8 = (value: number, name: string): number => {
    assert(Number.isInteger(value) && value >= 0 && value <= 0xff, `${name}: u8 out of range: ${value}`);
    return value;
  };
  assert(
    /^[\x20-\x7e]*$/.test(fields.recipient) && fields.recipient.length <= 0xff,
    'recipient: expected printable ASCII of at most 255 characters',
  );
  const bytes = [
    ACTION_BYTE[fields.action],
    u8(fields.inputTreeIds.length, 'inputs'),
    ...fields.inputTreeIds.map((id, i) => u8(id, `inputTreeIds[${i}]`)),
    fields.outputTreeId === null ? 0 : 1,
    fields.outputTreeId === null ? 0 : u8(fields.outputTreeId, 'outputTreeId'),
    fields.recipient.length,
  ];
  const digest = createHash('sha256')
    .update(BINDING_DOMAIN, 'ascii')
    .update(Uint8Array.from(bytes))
    .update(fields.recipient, 'ascii')
    .digest();
  return fieldFromDigest(digest);
}
