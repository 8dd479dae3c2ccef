import { createHash } from 'node:crypto';
import { fieldFromDigest, loadNoteHasher, type NoteHasher, noteHasherOver } from '@venue/notes';

/**
 * A cheap stand-in for the note hashes, for the simulator only: sha256 over the inputs, truncated to
 * a field element. It keeps Poseidon's shape (the same domain constants, field elements in and out,
 * the same refusals of out-of-range inputs), so the chain, the core and the pipeline run their real
 * code over it; only the permutation differs. Poseidon costs about 50 times as much, and a Merkle
 * append is 20 hashes, which would make 1000 seeds take far longer than the ten minutes they have.
 * A fixed subset of seeds runs with the real Poseidon (`simHasher('poseidon')`).
 */
export function sha256NoteHasher(): NoteHasher {
  // Field checks, domains and encodings are the notes package's own; only the permutation differs.
  return noteHasherOver((inputs) => {
    const hash = createHash('sha256');
    for (const input of inputs) hash.update(input.toString(16).padStart(64, '0'), 'hex');
    return fieldFromDigest(hash.digest());
  });
}

export type SimHasherKind = 'sha256' | 'poseidon';

const SHA256_HASHER = sha256NoteHasher();

/** The hasher a run uses: the cheap one, or circomlib Poseidon (loaded once per process). */
export async function simHasher(kind: SimHasherKind): Promise<NoteHasher> {
  return kind === 'poseidon' ? loadNoteHasher() : SHA256_HASHER;
}
