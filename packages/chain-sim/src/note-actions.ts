import { assetIdOfMint, fieldToHex, type NoteHasher } from '@venue/notes';
import { U64_MAX, verifyDigest } from '@venue/protocol';
import { reject } from './errors.ts';
import type { LeafRecord, Ledger } from './ledger.ts';
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
 * withdraw and merge prove ownership by repeating the opening and signing with that key. A real
 * chain would verify a zero-knowledge proof of the spending key instead.
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
        ownerCommitment: owner,
        innerHash,
        assetId,
        value: request.value,
        noteUseTag: fieldToHex(hasher.noteUseTag(owner, innerHash)),
        spendAuthority: request.spend_authority,
      },
    ],
    slot,
  );
  if (leaf === undefined) reject('bad_request', 'nothing appended');
  return receiptOf(ledger, leaf, slot);
}

export function receiptOf(ledger: Ledger, leaf: LeafRecord, slot: bigint): NoteReceipt {
  return {
    tree_id: leaf.tree_id,
    leaf_index: leaf.leaf_index,
    commitment: leaf.commitment,
    note_use_tag: leaf.noteUseTag,
    root: fieldToHex(ledger.shard(leaf.tree_id).tree.root()),
    slot,
  };
}

/** The note a spend names, after checking the caller knows its opening and may spend it now. */
function spendable(ledger: Ledger, spend: NoteSpend, slot: bigint, name: string): LeafRecord {
  const note = ledger.notes.get(spend.commitment);
  if (note === undefined || note.tree_id !== spend.tree_id) {
    reject('not_found', `${name}: note ${spend.commitment} is not a leaf of shard ${spend.tree_id}`);
  }
  if (
    fieldToHex(note.ownerCommitment) !== spend.owner_commitment ||
    fieldToHex(note.innerHash) !== spend.note_inner_hash ||
    note.value !== spend.value
  ) {
    reject('unauthorized', `${name}: the opening does not match the note`);
  }
  if (ledger.consumed.has(note.noteUseTag)) reject('note_consumed', `${name}: the note was already consumed`);
  const lock = liveLock(ledger, note.noteUseTag, slot);
  if (lock !== undefined) {
    reject('note_locked', `${name}: the note is locked for settlement through slot ${lock.expiry_slot}`);
  }
  return note;
}

function authorised(key: string, bytes: Uint8Array, signature: string): void {
  if (!verifyDigest(key, digestOf(bytes), signature)) {
    reject('unauthorized', "signature: not a signature of the note's spend authority over this request");
  }
}

export function withdraw(ledger: Ledger, request: WithdrawRequest, slot: bigint): WithdrawReceipt {
  const note = spendable(ledger, request, slot, 'withdraw');
  authorised(note.spendAuthority, withdrawBytes(request), request.signature);
  const mint = ledger.mints.get(fieldToHex(note.assetId));
  const vault = mint === undefined ? undefined : ledger.vaults.get(mint);
  if (mint === undefined || vault === undefined || vault < note.value) {
    reject('chain_rejected', 'the pool does not hold the tokens of this note'); // an invariant broke
  }
  ledger.vaults.set(mint, vault - note.value);
  ledger.consumed.set(note.noteUseTag, { note_use_tag: note.noteUseTag, slot, by: 'withdraw' });
  return { note_use_tag: note.noteUseTag, mint, value: note.value, recipient: request.recipient, slot };
}

export function merge(ledger: Ledger, hasher: NoteHasher, request: MergeRequest, slot: bigint): NoteReceipt {
  const notes = request.inputs.map((input, i) => spendable(ledger, input, slot, `inputs[${i}]`));
  const [first] = notes;
  if (first === undefined) reject('bad_request', 'inputs: a merge needs notes');
  if (new Set(notes.map((note) => note.noteUseTag)).size !== notes.length) {
    reject('bad_request', 'inputs: a note appears twice');
  }
  for (const note of notes) {
    if (
      note.ownerCommitment !== first.ownerCommitment ||
      note.assetId !== first.assetId ||
      note.spendAuthority !== first.spendAuthority
    ) {
      reject('bad_request', 'inputs: merged notes share one owner, one asset and one spend authority');
    }
  }
  authorised(first.spendAuthority, mergeBytes(request), request.signature);
  const value = notes.reduce((sum, note) => sum + note.value, 0n);
  if (value > U64_MAX) reject('bad_request', 'inputs: the merged value exceeds a u64');
  const blinding = fieldOf(request.output.blinding);
  if (blinding === undefined) reject('bad_request', 'output.blinding: not a BN254 field element');
  const innerHash = hasher.innerHash(first.assetId, blinding);
  const commitment = fieldToHex(hasher.commitment(first.ownerCommitment, innerHash, value));
  if (ledger.notes.has(commitment))
    reject('conflict', 'output: that note is already a leaf; use a fresh blinding');
  const shard = ledger.shard(request.output.tree_id);
  if (shard.leaves.length >= shard.tree.capacity)
    reject('bad_request', `shard ${request.output.tree_id} is full`);
  for (const note of notes) {
    ledger.consumed.set(note.noteUseTag, { note_use_tag: note.noteUseTag, slot, by: 'merge' });
  }
  const [leaf] = ledger.appendLeaves(
    [
      {
        tree_id: request.output.tree_id,
        commitment,
        ownerCommitment: first.ownerCommitment,
        innerHash,
        assetId: first.assetId,
        value,
        noteUseTag: fieldToHex(hasher.noteUseTag(first.ownerCommitment, innerHash)),
        spendAuthority: first.spendAuthority,
      },
    ],
    slot,
  );
  if (leaf === undefined) reject('bad_request', 'nothing appended');
  return receiptOf(ledger, leaf, slot);
}
