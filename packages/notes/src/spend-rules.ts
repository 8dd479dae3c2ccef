import { U64_MAX } from '@venue/protocol';
import { isFieldElement } from './field.ts';
import type { NoteHasher } from './hash.ts';
import { type DerivedNote, deriveNote } from './note.ts';
import {
  padSpendSlots,
  SPEND_INPUTS_MAX,
  type SpendRequestFields,
  type SpendStatement,
  spendRequestBinding,
} from './spend-public-inputs.ts';

/**
 * The rules VALID_SPEND proves, in plain TypeScript (docs/notes.md section 11): the reference the
 * circuit is tested against, and what the SDK runs before it spends time proving.
 *
 * A spend takes 1 to 8 notes of one owner and one asset out of use; `publicValue` of their total
 * leaves the pool (a withdraw; 0 for a merge) and the rest becomes one output note of the same
 * owner and asset (a withdraw's change or the merged note), absent when it would hold nothing.
 */

/** One note spent or created, as its owner knows it (the owner and asset are the spend's). */
export interface SpendOpening {
  readonly blinding: bigint;
  readonly value: bigint;
}

/** Everything the owner supplies to spend: secrets, openings, and the request the proof is bound to. */
export interface SpendRequest {
  /** The spending key (a field element); it never leaves the prover. */
  readonly spendingKey: bigint;
  readonly assetId: bigint;
  readonly inputs: readonly SpendOpening[];
  /** What leaves the pool: the withdrawn amount, 0 for a merge. */
  readonly publicValue: bigint;
  /** The output's blinding (fresh per output); unused when the output holds nothing. */
  readonly outputBlinding: bigint;
  readonly request: SpendRequestFields;
}

/** The circuit's private inputs, slot by slot (circuits/lib/valid_spend.circom). */
export interface SpendWitness {
  readonly spendingKey: bigint;
  readonly used: readonly bigint[];
  readonly blindings: readonly bigint[];
  readonly values: readonly bigint[];
  readonly outputBlinding: bigint;
  readonly outputValue: bigint;
}

/** A checked spend: its statement, its witness, the notes spent and the output (null when none). */
export interface SpendPlan {
  readonly statement: SpendStatement;
  readonly witness: SpendWitness;
  readonly inputs: readonly DerivedNote[];
  readonly output: DerivedNote | null;
}

/** A rule of the spend, named as the tests and errors name it. */
export type SpendRule =
  | 'inputs_count' // 1 to SPEND_INPUTS_MAX inputs
  | 'amount_u64' // every value and the public value are u64
  | 'field' // the key, the asset and every blinding are field elements
  | 'value_created' // the public value is at most the inputs' total
  | 'duplicate_input'; // no note is spent twice

/** Thrown when a spend breaks a rule: it could not be proved, so nothing is sent. */
export class SpendRuleError extends Error {
  constructor(readonly rules: readonly SpendRule[]) {
    super(`the spend breaks ${rules.join(', ')} (docs/notes.md section 11)`);
    this.name = 'SpendRuleError';
  }
}

const isU64 = (value: bigint): boolean => value >= 0n && value <= U64_MAX;

function brokenRules(request: SpendRequest): SpendRule[] {
  const rules: SpendRule[] = [];
  const { inputs } = request;
  if (inputs.length < 1 || inputs.length > SPEND_INPUTS_MAX) rules.push('inputs_count');
  if (!isU64(request.publicValue) || inputs.some((input) => !isU64(input.value))) rules.push('amount_u64');
  const fields = [
    request.spendingKey,
    request.assetId,
    request.outputBlinding,
    ...inputs.map((i) => i.blinding),
  ];
  if (!fields.every(isFieldElement)) rules.push('field');
  const total = inputs.reduce((sum, input) => sum + input.value, 0n);
  if (request.publicValue > total) rules.push('value_created');
  if (new Set(inputs.map((input) => input.blinding)).size !== inputs.length) rules.push('duplicate_input');
  return rules;
}

/** Checks a spend against the rules and computes its statement and witness; throws SpendRuleError. */
export function planSpend(hasher: NoteHasher, request: SpendRequest): SpendPlan {
  const rules = brokenRules(request);
  if (rules.length > 0) throw new SpendRuleError(rules);
  const ownerCommitment = hasher.ownerCommitment(request.spendingKey);
  const { assetId } = request;
  const inputs = request.inputs.map((input) => deriveNote(hasher, { ownerCommitment, assetId, ...input }));
  const total = inputs.reduce((sum, note) => sum + note.value, 0n);
  const outputValue = total - request.publicValue;
  const output =
    outputValue === 0n
      ? null
      : deriveNote(hasher, {
          ownerCommitment,
          assetId,
          blinding: request.outputBlinding,
          value: outputValue,
        });
  const statement: SpendStatement = {
    requestBinding: spendRequestBinding(request.request),
    assetId,
    publicValue: request.publicValue,
    outputCommitment: output?.commitment ?? 0n,
    inputCommitments: padSpendSlots(inputs.map((note) => note.commitment)),
    noteUseTags: padSpendSlots(inputs.map((note) => note.noteUseTag)),
  };
  const witness: SpendWitness = {
    spendingKey: request.spendingKey,
    used: padSpendSlots(inputs.map(() => 1n)),
    blindings: padSpendSlots(inputs.map((note) => note.blinding)),
    values: padSpendSlots(inputs.map((note) => note.value)),
    outputBlinding: request.outputBlinding,
    outputValue,
  };
  return { statement, witness, inputs, output };
}

/**
 * Whether (statement, witness) satisfies VALID_SPEND, constraint by constraint as the circuit states
 * them. The property tests hold the circuit to this: it accepts a witness exactly when this holds.
 */
export function spendRelationHolds(
  hasher: NoteHasher,
  statement: SpendStatement,
  witness: SpendWitness,
): boolean {
  const slots = Array.from({ length: SPEND_INPUTS_MAX }, (_, k) => k);
  const field = [
    witness.spendingKey,
    witness.outputBlinding,
    statement.assetId,
    statement.requestBinding,
    ...witness.blindings,
  ];
  if (!field.every(isFieldElement)) return false;
  if (!isU64(statement.publicValue) || !isU64(witness.outputValue)) return false;
  const owner = hasher.ownerCommitment(witness.spendingKey);
  let total = 0n;
  for (const k of slots) {
    const used = witness.used[k] ?? -1n;
    const value = witness.values[k] ?? -1n;
    const blinding = witness.blindings[k] ?? 0n;
    if ((used !== 0n && used !== 1n) || !isU64(value) || (used === 0n && value !== 0n)) return false;
    const inner = hasher.innerHash(statement.assetId, blinding);
    const commitment = used * hasher.commitment(owner, inner, value);
    const tag = used * hasher.noteUseTag(owner, inner);
    if (commitment !== statement.inputCommitments[k] || tag !== statement.noteUseTags[k]) return false;
    total += value;
  }
  if (total !== witness.outputValue + statement.publicValue) return false;
  const outInner = hasher.innerHash(statement.assetId, witness.outputBlinding);
  const output = witness.outputValue === 0n ? 0n : hasher.commitment(owner, outInner, witness.outputValue);
  return output === statement.outputCommitment;
}

/** The circuit's input signals: the statement's public inputs and the witness. Nothing is checked. */
export function spendCircuitInput(statement: SpendStatement, witness: SpendWitness): Record<string, unknown> {
  return {
    request_binding: statement.requestBinding,
    asset_id: statement.assetId,
    public_value: statement.publicValue,
    output_commitment: statement.outputCommitment,
    input_commitments: statement.inputCommitments,
    note_use_tags: statement.noteUseTags,
    spending_key: witness.spendingKey,
    used: witness.used,
    blindings: witness.blindings,
    values: witness.values,
    output_blinding: witness.outputBlinding,
    output_value: witness.outputValue,
  };
}
