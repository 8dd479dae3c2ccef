import { assert, U64_MAX, VenueError } from '@venue/protocol';
import { loadArtifact } from './artifacts.ts';
import { fieldFromHex, fieldToHex, isFieldElement } from './field.ts';
import { instantiatePoseidon, POSEIDON_INPUTS_MAX } from './poseidon-wasm.ts';

/**
 * Domain constants: the first input of each note hash says what is being hashed, so a value of one
 * kind can never be presented as another (docs/notes.md section 2). 32 is fixed by the interface
 * (spec 2.1 owner_commitment); the circuit uses the same numbers.
 */
export const DOMAIN = {
  owner: 32n,
  inner: 33n,
  commitment: 34n,
  noteUseTag: 35n,
  changeBlinding: 36n,
  fillBlinding: 37n,
} as const;

/**
 * The note hashes, all circomlib-compatible Poseidon over BN254 (the same permutation as
 * circomlib's `Poseidon(n)` template). Synchronous once loaded: `await loadNoteHasher()` once, then
 * call freely. Bigint methods take and return field elements; the `*Hex` methods take and return
 * the wire encoding (64 lowercase hex characters, big-endian, below the modulus).
 */
export interface NoteHasher {
  /** Raw circomlib Poseidon of 1 to 16 field elements. */
  poseidon(inputs: readonly bigint[]): bigint;
  /** Poseidon(32, spending_key): who may spend a note (spec 2.1). */
  ownerCommitment(spendingKey: bigint): bigint;
  /** Poseidon(33, asset_id, blinding): the note's amount-independent inner hash. */
  innerHash(assetId: bigint, blinding: bigint): bigint;
  /** Poseidon(34, owner_commitment, inner_hash, value): the leaf the chain stores. */
  commitment(ownerCommitment: bigint, innerHash: bigint, value: bigint): bigint;
  /** Poseidon(35, owner_commitment, inner_hash): keys consumed entries and locks. */
  noteUseTag(ownerCommitment: bigint, innerHash: bigint): bigint;
  /** Poseidon(left, right): an inner node of a note tree. */
  merkleNode(left: bigint, right: bigint): bigint;
  /**
   * The core's injected re-derivation (packages/core CoreConfig.noteCommitment): hex in, hex out.
   * Throws VenueError OUT_OF_RANGE for a hash at or above the field modulus or a value beyond u64.
   */
  noteCommitment(ownerCommitment: string, innerHash: string, value: bigint): string;
  /** noteUseTag on the wire encodings of an order's owner_commitment and note_inner_hash. */
  noteUseTagHex(ownerCommitment: string, innerHash: string): string;
}

let loading: Promise<NoteHasher> | undefined;

/**
 * Loads the prebuilt Poseidon module once per thread and returns the hasher (cached): tens of
 * milliseconds, against the second or so circomlibjs's run-time build costs (poseidon-wasm.ts).
 */
export function loadNoteHasher(): Promise<NoteHasher> {
  loading ??= loadArtifact('poseidonWasm').then(instantiatePoseidon).then(noteHasherOver);
  return loading;
}

/**
 * The note hashes over a given permutation of 1 to 16 field elements. The venue uses circomlib's
 * Poseidon (`loadNoteHasher`); the deterministic simulator passes a cheap stand-in with the same
 * shape, so everything above the permutation (domains, field checks, hex encodings) is this code.
 */
export function noteHasherOver(permutation: (inputs: readonly bigint[]) => bigint): NoteHasher {
  const poseidon = (inputs: readonly bigint[]): bigint => {
    assert(inputs.length >= 1 && inputs.length <= POSEIDON_INPUTS_MAX, 'Poseidon takes 1 to 16 inputs');
    for (const input of inputs) {
      // The module reduces nothing (and circomlibjs would silently reduce): refuse instead.
      if (!isFieldElement(input)) {
        throw new VenueError('OUT_OF_RANGE', `Poseidon input ${input} is not a BN254 field element`);
      }
    }
    return permutation(inputs);
  };
  const commitment = (owner: bigint, inner: bigint, value: bigint): bigint =>
    poseidon([DOMAIN.commitment, owner, inner, checkedValue(value)]);
  const noteUseTag = (owner: bigint, inner: bigint): bigint => poseidon([DOMAIN.noteUseTag, owner, inner]);
  return {
    poseidon,
    ownerCommitment: (spendingKey) => poseidon([DOMAIN.owner, spendingKey]),
    innerHash: (assetId, blinding) => poseidon([DOMAIN.inner, assetId, blinding]),
    commitment,
    noteUseTag,
    merkleNode: (left, right) => poseidon([left, right]),
    noteCommitment: (ownerCommitment, innerHash, value) =>
      fieldToHex(
        commitment(
          fieldFromHex(ownerCommitment, 'owner_commitment'),
          fieldFromHex(innerHash, 'note_inner_hash'),
          value,
        ),
      ),
    noteUseTagHex: (ownerCommitment, innerHash) =>
      fieldToHex(
        noteUseTag(
          fieldFromHex(ownerCommitment, 'owner_commitment'),
          fieldFromHex(innerHash, 'note_inner_hash'),
        ),
      ),
  };
}

/** A note's value is a u64, as every amount on the wire (the circuit checks the same). */
function checkedValue(value: bigint): bigint {
  if (value < 0n || value > U64_MAX) {
    throw new VenueError('OUT_OF_RANGE', `note value must be a u64 (0 to ${U64_MAX}), received ${value}`);
  }
  return value;
}
