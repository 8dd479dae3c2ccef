import { assetIdOfMint, fieldToHex, type NoteHasher } from '@venue/notes';
import { U64_MAX, verifyDigest } from '@venue/protocol';
import { reject } from './errors.ts';
import type { DisclosedOpening, LeafRecord, Ledger } from './ledger.ts';
import { digestOf, mergeBytes, withdrawBytes } from './messages.ts';
import { fieldOf, liveLock } from './note-checks.ts';
import type {
  DepositRequest,
  MergeRequest,
  NoteReceipt,
  NoteSpend,
  WithdrawReceipt,
  WithdrawRequest,
} from './types.ts';

/**
 * Deposit, withdraw and merge (spec 3.2: spendable -> consumed by merge or withdraw). Trust model
 * (docs/chain-sim.md section 10): a deposit discloses its opening and binds a spend-authority key;
 * withdraw and merge reveal the opening of the note they spend (the chain checks it hashes to the
 * leaf's commitment, which also gives the note-use tag) and are signed with that key. A withdraw or
 * merge proof circuit, revealing only what leaves the pool, is future work.
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

/** A note being spent: its leaf and the opening its spender revealed (checked against the leaf). */
interface Spent {
  readonly leaf: LeafRecord;
  readonly opening: DisclosedOpening;
}

/**
 * The note a spend names, after checking that the revealed opening hashes to the leaf's commitment
 * (which holds for any note, opaque or not, and gives its note-use tag) and that it may be spent now.
 */
function spendable(ledger: Ledger, hasher: NoteHasher, spend: NoteSpend, slot: bigint, name: string): Spent {
  const leaf = ledger.notes.get(spend.commitment);
  if (leaf === undefined || leaf.tree_id !== spend.tree_id) {
    reject('not_found', `${name}: note ${spend.commitment} is not a leaf of shard ${spend.tree_id}`);
  }
  const owner = fieldOf(spend.owner_commitment);
  const innerHash = fieldOf(spend.note_inner_hash);
  if (
    owner === undefined ||
    innerHash === undefined ||
    fieldToHex(hasher.commitment(owner, innerHash, spend.value)) !== leaf.commitment
  ) {
    reject('unauthorized', `${name}: the opening does not hash to the note's commitment`);
  }
  const opening = disclosed(hasher, owner, innerHash, spend.value);
  if (ledger.consumed.has(opening.noteUseTag))
    reject('note_consumed', `${name}: the note was already consumed`);
  const lock = liveLock(ledger, opening.noteUseTag, slot);
  if (lock !== undefined) {
    reject('note_locked', `${name}: the note is locked for settlement through slot ${lock.expiry_slot}`);
  }
  return { leaf, opening };
}

function authorised(key: string, bytes: Uint8Array, signature: string): void {
  if (!verifyDigest(key, digestOf(bytes), signature)) {
    reject('unauthorized', "signature: not a signature of the note's spend authority over this request");
  }
}

export function withdraw(
  ledger: Ledger,
  hasher: NoteHasher,
  request: WithdrawRequest,
  slot: bigint,
): WithdrawReceipt {
  const { leaf, opening } = spendable(ledger, hasher, request, slot, 'withdraw');
  authorised(leaf.spendAuthority, withdrawBytes(request), request.signature);
  const mint = ledger.mints.get(fieldToHex(leaf.assetId));
  const vault = mint === undefined ? undefined : ledger.vaults.get(mint);
  if (mint === undefined || vault === undefined || vault < opening.value) {
    reject('chain_rejected', 'the pool does not hold the tokens of this note'); // an invariant broke
  }
  ledger.vaults.set(mint, vault - opening.value);
  const tag = opening.noteUseTag;
  ledger.consumed.set(tag, { note_use_tag: tag, slot, by: 'withdraw' });
  return { note_use_tag: tag, mint, value: opening.value, recipient: request.recipient, slot };
}

export function merge(ledger: Ledger, hasher: NoteHasher, request: MergeRequest, slot: bigint): NoteReceipt {
  const notes = request.inputs.map((input, i) => spendable(ledger, hasher, input, slot, `inputs[${i}]`));
  const [first] = notes;
  if (first === undefined) reject('bad_request', 'inputs: a merge needs notes');
  if (new Set(notes.map((note) => note.opening.noteUseTag)).size !== notes.length) {
    reject('bad_request', 'inputs: a note appears twice');
  }
  const owner = first.opening.ownerCommitment;
  const { assetId, spendAuthority } = first.leaf;
  for (const { leaf, opening } of notes) {
    if (
      opening.ownerCommitment !== owner ||
      leaf.assetId !== assetId ||
      leaf.spendAuthority !== spendAuthority
    ) {
      reject('bad_request', 'inputs: merged notes share one owner, one asset and one spend authority');
    }
  }
  authorised(spendAuthority, mergeBytes(request), request.signature);
  const value = notes.reduce((sum, note) => sum + note.opening.value, 0n);
  if (value > U64_MAX) reject('bad_request', 'inputs: the merged value exceeds a u64');
  const blinding = fieldOf(request.output.blinding);
  if (blinding === undefined) reject('bad_request', 'output.blinding: not a BN254 field element');
  const innerHash = hasher.innerHash(assetId, blinding);
  const commitment = fieldToHex(hasher.commitment(owner, innerHash, value));
  if (ledger.notes.has(commitment))
    reject('conflict', 'output: that note is already a leaf; use a fresh blinding');
  const shard = ledger.shard(request.output.tree_id);
  if (shard.leaves.length >= shard.tree.capacity)
    reject('bad_request', `shard ${request.output.tree_id} is full`);
  for (const { opening } of notes) {
    const tag = opening.noteUseTag;
    ledger.consumed.set(tag, { note_use_tag: tag, slot, by: 'merge' });
  }
  const [leaf] = ledger.appendLeaves(
    [
      {
        tree_id: request.output.tree_id,
        commitment,
        assetId,
        // The merged note's opening follows from the revealed ones: the chain computed it itself.
        opening: disclosed(hasher, owner, innerHash, value),
        spendAuthority,
      },
    ],
    slot,
  );
  if (leaf?.opening == null) reject('bad_request', 'nothing appended');
  return receiptOf(ledger, leaf, leaf.opening, slot);
}
