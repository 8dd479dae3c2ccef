import { assert, VenueError } from '@venue/protocol';
import * as snarkjs from 'snarkjs';
import { fieldToHex, isFieldElement } from './field.ts';
import { loadNoteHasher, type NoteHasher } from './hash.ts';
import { type InclusionPath, NOTE_TREE_DEPTH, rootFromPath } from './merkle.ts';
import { bindingOfTradingKey, deriveNote } from './note.ts';
import { coordinatesOfSnarkjs, encodeProof } from './proof-bytes.ts';
import { type WarmCircuit, warmCircuit } from './warm-circuit.ts';

/**
 * The SDK side of VALID_INPUT (docs/notes.md section 7): proves, from the user's spending key, the
 * note's opening and its inclusion path, that the order may spend the note. The witness
 * WebAssembly is instantiated once per prover and reused; the proving key is read once.
 */
export interface ProveRequest {
  /** The spending key (a field element); it never leaves the prover. */
  readonly spendingKey: bigint;
  /** The note's opening: its asset (assetIdOfMint of the token's mint), blinding and value. */
  readonly note: { readonly assetId: bigint; readonly blinding: bigint; readonly value: bigint };
  /** The note's path in its shard, leaf level first (NoteTree.path or pathFromInclusion). */
  readonly path: InclusionPath;
  /** The root the path must lead to: one the venue currently accepts (GET /tree/root). */
  readonly merkleRoot: bigint;
  readonly treeId: number;
  /** The trading key (hex) that will sign the order: the proof is bound to it. */
  readonly tradingKey: string;
}

/** The proof and the place-order fields it was made for, in wire form (spec 2.1). */
export interface ProvedInput {
  readonly orderFields: {
    readonly note_commitment: string;
    readonly owner_commitment: string;
    readonly note_inner_hash: string;
    readonly merkle_root: string;
    readonly tree_id: number;
    readonly valid_input_proof: string;
  };
  /** Public inputs in VALID_INPUT_PUBLIC_INPUTS order. */
  readonly publicInputs: readonly bigint[];
}

export interface ValidInputProver {
  prove(request: ProveRequest): Promise<ProvedInput>;
  /** Stops the curve helper threads snarkjs started, if this prover used them. */
  close(): Promise<void>;
}

export interface ProverOptions {
  /**
   * true: snarkjs proves on a private single-threaded curve per proof. false (default): on
   * snarkjs's shared multi-threaded curve, faster on several cores; close() stops its threads.
   */
  readonly singleThread?: boolean;
}

/** Loads the pinned artifacts once and returns a prover that reuses them. */
export async function createValidInputProver(options: ProverOptions = {}): Promise<ValidInputProver> {
  const [hasher, circuit] = await Promise.all([
    loadNoteHasher(),
    warmCircuit({ wasm: 'wasm', zkey: 'zkey' }),
  ]);
  const singleThread = options.singleThread ?? false;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    prove(request) {
      // The witness instance holds one computation at a time: proofs are serialised.
      const next = queue.then(() => proveOne(hasher, circuit, request, singleThread));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      if (!singleThread) await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
    },
  };
}

async function proveOne(
  hasher: NoteHasher,
  circuit: WarmCircuit,
  request: ProveRequest,
  singleThread: boolean,
): Promise<ProvedInput> {
  const assetId = checkedField(request.note.assetId, 'note.assetId');
  const note = deriveNote(hasher, {
    ownerCommitment: hasher.ownerCommitment(checkedField(request.spendingKey, 'spendingKey')),
    assetId,
    blinding: checkedField(request.note.blinding, 'note.blinding'),
    value: request.note.value,
  });
  checkPath(hasher, note.commitment, request);
  const binding = bindingOfTradingKey(request.tradingKey);
  const publicInputs = [
    note.commitment,
    request.merkleRoot,
    BigInt(request.treeId),
    note.noteUseTag,
    assetId,
    binding,
  ];
  const witness = await circuit.witness({
    note_commitment: note.commitment,
    merkle_root: request.merkleRoot,
    tree_id: BigInt(request.treeId),
    note_use_tag: note.noteUseTag,
    asset_id: assetId,
    binding,
    spending_key: request.spendingKey,
    blinding: note.blinding,
    value: note.value,
    path_siblings: [...request.path.siblings],
    path_bits: request.path.pathBits.map((bit) => (bit ? 1n : 0n)),
  });
  const { proof, publicSignals } = await snarkjs.groth16.prove(
    { type: 'mem', data: circuit.zkey },
    { type: 'mem', data: witness },
    undefined,
    { singleThread },
  );
  assert(
    publicSignals.length === publicInputs.length &&
      publicSignals.every((s, i) => BigInt(s) === publicInputs[i]),
    'the prover must output the public inputs it was given',
  );
  return {
    orderFields: {
      note_commitment: note.hex.commitment,
      owner_commitment: note.hex.ownerCommitment,
      note_inner_hash: note.hex.innerHash,
      merkle_root: fieldToHex(request.merkleRoot),
      tree_id: request.treeId,
      valid_input_proof: encodeProof(coordinatesOfSnarkjs(proof)),
    },
    publicInputs,
  };
}

function checkedField(value: bigint, name: string): bigint {
  if (!isFieldElement(value)) throw new VenueError('OUT_OF_RANGE', `${name}: expected a BN254 field element`);
  return value;
}

/** A wrong path would only fail deep inside the witness; say what is wrong before that. */
function checkPath(hasher: NoteHasher, commitment: bigint, request: ProveRequest): void {
  const { path } = request;
  if (path.siblings.length !== NOTE_TREE_DEPTH || path.pathBits.length !== NOTE_TREE_DEPTH) {
    throw new VenueError('INVALID_FORMAT', `inclusion path: expected ${NOTE_TREE_DEPTH} siblings and bits`);
  }
  if (!Number.isInteger(request.treeId) || request.treeId < 0 || request.treeId > 255) {
    throw new VenueError('OUT_OF_RANGE', `treeId must be 0 to 255, received ${request.treeId}`);
  }
  if (rootFromPath(hasher, commitment, path) !== request.merkleRoot) {
    throw new VenueError(
      'UNKNOWN_MERKLE_ROOT',
      'the note and its inclusion path do not lead to merkleRoot: fetch a fresh path for that root',
    );
  }
}
