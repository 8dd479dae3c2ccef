import { assert, type MergeRequest, mergeBytes, signChainBytes, type WithdrawRequest } from '@venue/protocol';
import { randomFieldElement } from './field.ts';
import { assetIdOfMint } from './note.ts';
import { spendAuthorityOf } from './spend-authority.ts';
import type { SpendProved, SpendProver } from './spend-prover.ts';
import { signWithdrawMessage } from './withdraw-message.ts';

/**
 * The owner's chain requests for a withdraw and a merge (docs/chain-sim.md section 10), proved with
 * VALID_SPEND and signed by the spend authority of the spending key. The SDK's wallet and the tests
 * build them here, so the request, its binding and its signature are made one way.
 */

/** A note of the owner's: where it is and its opening (the owner and asset are the spend's). */
export interface OwnedNote {
  readonly tree_id: number;
  readonly blinding: bigint;
  readonly value: bigint;
}

export interface WithdrawPlan {
  readonly spendingKey: bigint;
  readonly mint: string;
  readonly note: OwnedNote;
  /** Base units leaving the pool: the note's value, or less with the rest as change. */
  readonly value: bigint;
  readonly recipient: string;
  /** The change's shard (default the note's) and blinding (default fresh); unused without change. */
  readonly change?: { readonly tree_id?: number; readonly blinding?: bigint };
}

export interface MergePlan {
  readonly spendingKey: bigint;
  readonly mint: string;
  readonly notes: readonly OwnedNote[];
  readonly output: { readonly tree_id: number; readonly blinding?: bigint };
}

/** A request ready to send, and what the proof says: the notes spent and the output with its opening. */
export interface ProvedRequest<R> {
  readonly request: R;
  readonly proved: SpendProved;
}

export async function proveWithdraw(
  prover: SpendProver,
  plan: WithdrawPlan,
): Promise<ProvedRequest<WithdrawRequest>> {
  const changeValue = plan.note.value - plan.value;
  const changeTree = plan.change?.tree_id ?? plan.note.tree_id;
  const proved = await prover.prove({
    spendingKey: plan.spendingKey,
    assetId: assetIdOfMint(plan.mint),
    inputs: [{ blinding: plan.note.blinding, value: plan.note.value }],
    publicValue: plan.value,
    outputBlinding: plan.change?.blinding ?? randomFieldElement(),
    request: {
      action: 'withdraw',
      inputTreeIds: [plan.note.tree_id],
      outputTreeId: changeValue > 0n ? changeTree : null,
      recipient: plan.recipient,
    },
  });
  const [input] = proved.inputs;
  assert(input !== undefined, 'a withdraw spends one note');
  const message = {
    tree_id: plan.note.tree_id,
    commitment: input.hex.commitment,
    note_use_tag: input.hex.noteUseTag,
    mint: plan.mint,
    value: plan.value,
    recipient: plan.recipient,
    ...(proved.output === null
      ? {}
      : { change: { tree_id: changeTree, commitment: proved.output.hex.commitment } }),
    proof: proved.proof,
  };
  const signature = signWithdrawMessage(message, spendAuthorityOf(plan.spendingKey));
  return { request: { ...message, signature }, proved };
}

export async function proveMerge(prover: SpendProver, plan: MergePlan): Promise<ProvedRequest<MergeRequest>> {
  const proved = await prover.prove({
    spendingKey: plan.spendingKey,
    assetId: assetIdOfMint(plan.mint),
    inputs: plan.notes.map(({ blinding, value }) => ({ blinding, value })),
    publicValue: 0n,
    outputBlinding: plan.output.blinding ?? randomFieldElement(),
    request: {
      action: 'merge',
      inputTreeIds: plan.notes.map((note) => note.tree_id),
      outputTreeId: plan.output.tree_id,
      recipient: '',
    },
  });
  // A merge of notes holding nothing has no output to append: the chain refuses it, say so here.
  assert(proved.output !== null, 'a merge joins notes holding a positive value');
  const unsigned = {
    inputs: proved.inputs.map((note, i) => ({
      tree_id: plan.notes[i]?.tree_id ?? 0,
      commitment: note.hex.commitment,
      note_use_tag: note.hex.noteUseTag,
    })),
    output: { tree_id: plan.output.tree_id, commitment: proved.output.hex.commitment },
    proof: proved.proof,
  };
  const signature = signChainBytes(spendAuthorityOf(plan.spendingKey), mergeBytes(unsigned));
  return { request: { ...unsigned, signature }, proved };
}
