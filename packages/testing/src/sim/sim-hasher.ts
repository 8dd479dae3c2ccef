import { createHash } from 'node:crypto';
import {
  DOMAIN,
  fieldFromDigest,
  fieldFromHex,
  fieldToHex,
  isFieldElement,
  loadNoteHasher,
  type NoteHasher,
} from '@venue/notes';
import { U64_MAX, VenueError } from '@venue/protocol';

/**
 * A cheap stand-in for the note hashes, for the simulator only: sha256 over the inputs, truncated to
 * a field element. It keeps Poseidon's shape (the same domain constants, field elements in and out,
 * the same refusals of out-of-range inputs), so the chain, the core and the pipeline run their real
 * code over it; only the permutation differs. Poseidon costs about 50 times as much, and a Merkle
 * append is 20 hashes, which would make 1000 seeds take far longer than the ten minutes they have.
 * A fixed subset of seeds runs with the real Poseidon (`simHasher('poseidon')`).
 */
export function sha256NoteHasher(): NoteHasher {
  const poseidon = (inputs: readonly bigint[]): bigint => {
    if (inputs.length < 1 || inputs.length > 16) throw new Error('the note hash takes 1 to 16 inputs');
    const hash = createHash('sha256');
    for (const input of inputs) {
      if (!isFieldElement(input)) {
        throw new VenueError('OUT_OF_RANGE', `note hash input ${input} is not a BN254 field element`);
      }
      hash.update(input.toString(16).padStart(64, '0'), 'hex');
    }
    return fieldFromDigest(hash.digest());
  };
  const checkedValue = (value: bigint) => {
    if (value < 0n || value > U64_MAX) {
      throw new VenueError('OUT_OF_RANGE', `note value must be a u64, received ${value}`);
    }
    return value;
  };
  const commitment = (owner: bigint, inner: bigint, value: bigint) =>
    poseidon([DOMAIN.commitment, owner, inner, checkedValue(value)]);
  const noteUseTag = (owner: bigint, inner: bigint) => poseidon([DOMAIN.noteUseTag, owner, inner]);
  return {
    poseidon,
    ownerCommitment: (spendingKey) => poseidon([DOMAIN.owner, spendingKey]),
    innerHash: (assetId, blinding) => poseidon([DOMAIN.inner, assetId, blinding]),
    commitment,
    noteUseTag,
    merkleNode: (left, right) => poseidon([left, right]),
    noteCommitment: (owner, inner, value) =>
      fieldToHex(
        commitment(fieldFromHex(owner, 'owner_commitment'), fieldFromHex(inner, 'note_inner_hash'), value),
      ),
    noteUseTagHex: (owner, inner) =>
      fieldToHex(noteUseTag(fieldFromHex(owner, 'owner_commitment'), fieldFromHex(inner, 'note_inner_hash'))),
  };
}

export type SimHasherKind = 'sha256' | 'poseidon';

const SHA256_HASHER = sha256NoteHasher();

/** The hasher a run uses: the cheap one, or circomlib Poseidon (loaded once per process). */
export async function simHasher(kind: SimHasherKind): Promise<NoteHasher> {
  return kind === 'poseidon' ? loadNoteHasher() : SHA256_HASHER;
}
