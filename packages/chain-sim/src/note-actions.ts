import {
  assetIdOfMint,
  fieldToHex,
  type NoteHasher,
  padSpendSlots,
  type SpendStatement,
  spendRequestBinding,
} from '@venue/notes';
import { U64_MAX, verifyDigest } from '@venue/protocol';
import { reject } from './errors.ts';
import type { DisclosedOpening, LeafRecord, Ledger } from './ledger.ts';
import type { MatchProofCheck } from './match-proofs.ts';
import { digestOf, mergeBytes, withdrawBytes } from './messages.ts';
import { fieldOf, liveLock } from './note-checks.ts';
import type {
  DepositRequest,
  Hex32,
  MergeReceipt,
  MergeRequest,
  NoteLeaf,
  NoteReceipt,
  NoteSpend,
  SpendOutput,
  WithdrawReceipt,
  WithdrawRequest,
} from './types.ts';

/**
 * Deposit, withdraw and merge (spec 3.2: spendable -> consumed by merge or withdraw). Trust model
 * (docs/chain-sim.md section 10): a deposit discloses its opening (public tokens move in, so there is
 * nothing to hide) and binds a spend-authority key; a withdraw or merge reveals no opening: it names
 * its notes by commitment and tag, carries a VALID_SPEND proof (docs/notes.md section 11) that the
 * chain checks against the statement it rebuilds, and is signed with the notes' spend authority.
 * Their outputs are opaque leaves, like settlement outputs.
 */

export function deposit(
  ledger: Ledger,
  hasher: NoteHasher,
  request: DepositRequest,
  slot: bigint,
): NoteReceipt {
  const shard = ledger.shard(request.tree_id);
  if (request.value === 0n) reject('bad_request', 'value: a deposit holds a positive value');
  const owner = fieldOf(request.owner_commitment);
  const blinding = fieldOf(request.blinding);
  if (owner === undefined || blinding === undefined) {
    reject('bad_request', 'owner_commitment and blinding must be BN254 field elements');
  }
  const assetId = assetIdOfMint(request.mint);
  const innerHash = hasher.innerHash(assetId, blinding);
  const commitment = fieldToHex(hasher.commitment(owner, innerHash, request.value));
  if (ledger.notes.has(commitment))
    reject('conflict', `note ${commitment} is already a leaf; use a fresh blinding`);
  if (shard.leaves.length >= shard.tree.capacity) reject('bad_request', `shard ${request.tree_id} is full`);
  const vault = (ledger.vaults.get(request.mint) ?? 0n) + request.value;
  if (vault > U64_MAX) reject('bad_request', `the pool's ${request.mint} vault would exceed a u64`);
  ledger.mints.set(fieldToHex(assetId), request.mint);
  ledger.vaults.set(request.mint, vault);
  const [leaf] = ledger.appendLeaves(
    [
      {
        tree_id: request.tree_id,
        commitment,
        assetId,
        opening: disclosed(hasher, owner, innerHash, request.value),
        spendAuthority: request.spend_authority,
      },
    ],
    slot,
  );
  if (leaf?.opening == null) reject('bad_request', 'nothing appended');
  return receiptOf(ledger, leaf, leaf.opening, slot);
}

function disclosed(hasher: NoteHasher, owner: bigint, innerHash: bigint, value: bigint): DisclosedOpening {
  const noteUseTag = fieldToHex(hasher.noteUseTag(owner, innerHash));
  return { ownerCommitment: owner, innerHash, value, noteUseTag };
}

function receiptOf(ledger: Ledger, leaf: LeafRecord, opening: DisclosedOpening, slot: bigint): NoteReceipt {
  return {
    tree_id: leaf.tree_id,
    leaf_index: leaf.leaf_index,
    commitment: leaf.commitment,
    note_use_tag: opening.noteUseTag,
    root: fieldToHex(ledger.shard(leaf.tree_id).tree.root()),
    slot,
  };
}

/**
 * The leaf a spend names, once it may be spent now: a leaf of that shard, its tag a field element
 * (and the disclosed one, for a deposit), not consumed, not locked. An opaque leaf's tag is bound to
 * its commitment by the proof alone (checked last).
 */
function spendable(ledger: Ledger, spend: NoteSpend, slot: bigint, name: string): LeafRecord {
  const leaf = ledger.notes.get(spend.commitment);
  if (leaf === undefined || leaf.tree_id !== spend.tree_id) {
    reject('not_found', `${name}: note ${spend.commitment} is not a leaf of shard ${spend.tree_id}`);
  }
  const tag = fieldOf(spend.note_use_tag);
  if (tag === undefined || tag === 0n)
    reject('bad_request', `${name}.note_use_tag: 0 or not a field element`);
  if (leaf.opening !== null && leaf.opening.noteUseTag !== spend.note_use_tag) {
    reject('unauthorized', `${name}.note_use_tag is not the note's tag`);
  }
  if (ledger.consumed.has(spend.note_use_tag))
    reject('note_consumed', `${name}: the note was already consumed`);
  const lock = liveLock(ledger, spend.note_use_tag, slot);
  if (lock !== undefined) {
    reject('note_locked', `${name}: the note is locked for settlement through slot ${lock.expiry_slot}`);
  }
  return leaf;
}

/** A new output's commitment and shard: a field element other than 0, not a leaf yet, with room. */
function checkedOutput(ledger: Ledger, output: SpendOutput, name: string): bigint {
  const shard = ledger.shard(output.tree_id);
  const commitment = fieldOf(output.commitment);
  // 0 stands for "no note" in the proof's statement: a present output never commits to it.
  if (commitment === undefined || commitment === 0n)
    reject('bad_request', `${name}.commitment: 0 or not a field element`);
  if (ledger.notes.has(output.commitment)) reject('conflict', `${name}: that note is already a leaf`);
  if (shard.leaves.length >= shard.tree.capacity) reject('bad_request', `shard ${output.tree_id} is full`);
  return commitment;
}

function authorised(key: string, bytes: Uint8Array, signature: string): void {
  if (!verifyDigest(key, digestOf(bytes), signature)) {
    reject('unauthorized', "signature: not a signature of the note's spend authority over this request");
  }
}

/** The VALID_SPEND statement the chain rebuilds from the request and its ledger; the proof must verify for it. */
function proved(proofs: MatchProofCheck, statement: SpendStatement, proof: string, name: string): void {
  if (!proofs.verifySpend({ statement, proof })) {
    reject(
      'proof_invalid',
      `${name}: the VALID_SPEND proof does not verify for this request (${proofs.mode})`,
    );
  }
}

const field = (hex: Hex32): bigint => BigInt(`0x${hex}`);

/** The opaque output of a withdraw or merge: its commitment only, the asset and authority of its inputs. */
function opaqueLeaf(output: SpendOutput, leaf: LeafRecord): Omit<LeafRecord, 'leaf_index'> {
  return {
    tree_id: output.tree_id,
    commitment: output.commitment,
    assetId: leaf.assetId,
    opening: null,
    spendAuthority: leaf.spendAuthority,
  };
}

function noteLeafOf(ledger: Ledger, leaf: LeafRecord): NoteLeaf {
  return {
    tree_id: leaf.tree_id,
    leaf_index: leaf.leaf_index,
    commitment: leaf.commitment,
    root: fieldToHex(ledger.shard(leaf.tree_id).tree.root()),
  };
}

/**
 * A withdraw (docs/chain-sim.md section 10): `value` of one note's tokens leave the pool to the
 * recipient, the rest (if any) stays as an opaque change note. The chain learns the note spent
 * (commitment, tag), the mint, the amount and the recipient; the proof shows the note is the
 * prover's, holds this asset and at least this value, and that the change holds exactly the rest.
 */
export function withdraw(
  ledger: Ledger,
  proofs: MatchProofCheck,
  request: WithdrawRequest,
  slot: bigint,
): WithdrawReceipt {
  const leaf = spendable(ledger, request, slot, 'withdraw');
  authorised(leaf.spendAuthority, withdrawBytes(request), request.signature);
  if (assetIdOfMint(request.mint) !== leaf.assetId) reject('bad_request', "mint: not the note's asset");
  if (request.value === 0n) reject('bad_request', 'value: a withdraw moves a positive value');
  const vault = ledger.vaults.get(request.mint);
  if (vault === undefined || vault < request.value) {
    // An honest proof never claims more than the note holds, and the vault holds every note.
    reject('bad_request', `value: the pool does not hold ${request.value} of ${request.mint}`);
  }
  const change = request.change === undefined ? 0n : checkedOutput(ledger, request.change, 'change');
  const statement: SpendStatement = {
    requestBinding: spendRequestBinding({
      action: 'withdraw',
      inputTreeIds: [request.tree_id],
      outputTreeId: request.change?.tree_id ?? null,
      recipient: request.recipient,
    }),
    assetId: leaf.assetId,
    publicValue: request.value,
    outputCommitment: change,
    inputCommitments: padSpendSlots([field(request.commitment)]),
    noteUseTags: padSpendSlots([field(request.note_use_tag)]),
  };
  proved(proofs, statement, request.proof, 'withdraw');
  ledger.vaults.set(request.mint, vault - request.value);
  const tag = request.note_use_tag;
  ledger.consumed.set(tag, { note_use_tag: tag, slot, by: 'withdraw' });
  const appended =
    request.change === undefined ? [] : ledger.appendLeaves([opaqueLeaf(request.change, leaf)], slot);
  const [changeLeaf] = appended;
  return {
    note_use_tag: tag,
    mint: request.mint,
    value: request.value,
    recipient: request.recipient,
    ...(changeLeaf === undefined ? {} : { change: noteLeafOf(ledger, changeLeaf) }),
    slot,
  };
}

/**
 * A merge (docs/chain-sim.md section 10): 2 to 8 notes of one owner, asset and spend authority
 * become one opaque note holding their sum. The chain learns which notes were spent and where the
 * output went, nothing of any value.
 */
export function merge(
  ledger: Ledger,
  proofs: MatchProofCheck,
  request: MergeRequest,
  slot: bigint,
): MergeReceipt {
  const leaves = request.inputs.map((input, i) => spendable(ledger, input, slot, `inputs[${i}]`));
  const [first] = leaves;
  if (first === undefined) reject('bad_request', 'inputs: a merge needs notes');
  const tags = request.inputs.map((input) => input.note_use_tag);
  if (new Set(tags).size !== tags.length || new Set(leaves.map((l) => l.commitment)).size !== leaves.length) {
    reject('bad_request', 'inputs: a note appears twice');
  }
  if (leaves.some((leaf) => leaf.assetId !== first.assetId || leaf.spendAuthority !== first.spendAuthority)) {
    reject('bad_request', 'inputs: merged notes share one asset and one spend authority');
  }
  authorised(first.spendAuthority, mergeBytes(request), request.signature);
  const output = checkedOutput(ledger, request.output, 'output');
  const statement: SpendStatement = {
    requestBinding: spendRequestBinding({
      action: 'merge',
      inputTreeIds: request.inputs.map((input) => input.tree_id),
      outputTreeId: request.output.tree_id,
      recipient: '',
    }),
    assetId: first.assetId,
    publicValue: 0n,
    outputCommitment: output,
    inputCommitments: padSpendSlots(request.inputs.map((input) => field(input.commitment))),
    noteUseTags: padSpendSlots(tags.map(field)),
  };
  proved(proofs, statement, request.proof, 'merge');
  for (const tag of tags) ledger.consumed.set(tag, { note_use_tag: tag, slot, by: 'merge' });
  const [leaf] = ledger.appendLeaves([opaqueLeaf(request.output, first)], slot);
  if (leaf === undefined) reject('bad_request', 'nothing appended');
  return { consumed: tags, output: noteLeafOf(ledger, leaf), slot };
}
