import { assert } from '@venue/protocol';
import * as snarkjs from 'snarkjs';
import { loadNoteHasher, type NoteHasher } from './hash.ts';
import type { DerivedNote } from './note.ts';
import { coordinatesOfSnarkjs, encodeProof } from './proof-bytes.ts';
import { type SpendStatement, spendPublicInputs } from './spend-public-inputs.ts';
import { planSpend, type SpendRequest, spendCircuitInput } from './spend-rules.ts';
import { standInSpendProof } from './spend-stand-in.ts';
import { warmCircuit } from './warm-circuit.ts';

/**
 * The owner's side of VALID_SPEND (docs/notes.md section 11): proves a withdraw or a merge from the
 * spending key and the notes' openings, in the caller's thread. A wallet proves one spend now and
 * then, so there is no pool: the witness WebAssembly is instantiated once per prover and kept warm,
 * the proving key read once (its pin checked), and proofs are serialised.
 */
export interface SpendProof {
  readonly statement: SpendStatement;
  /** 256 bytes, hex, in the layout of docs/notes.md section 5. */
  readonly proof: string;
}

/** A proved spend: the proof, and the notes it spends and creates (with their openings). */
export interface SpendProved extends SpendProof {
  readonly inputs: readonly DerivedNote[];
  /** The change or merged note; null when the spend leaves nothing behind. */
  readonly output: DerivedNote | null;
}

export interface SpendProver {
  /** 'groth16': real VALID_SPEND proofs; 'stand-in': spend-stand-in.ts, for tests and the simulator. */
  readonly kind: 'groth16' | 'stand-in';
  /** Checks the spend against the rules (SpendRuleError) and proves it. */
  prove(request: SpendRequest): Promise<SpendProved>;
  /** Stops the curve helper threads snarkjs started, if this prover used them. */
  close(): Promise<void>;
}

export interface SpendProverOptions {
  /**
   * true (default): each proof runs on a private single-threaded curve, so the prover leaves no
   * thread behind. false: snarkjs's shared multi-threaded curve, faster on several cores; close()
   * then stops its threads.
   */
  readonly singleThread?: boolean;
}

/** Loads the pinned VALID_SPEND artifacts once and returns a prover that reuses them. */
export async function createSpendProver(options: SpendProverOptions = {}): Promise<SpendProver> {
  const [hasher, circuit] = await Promise.all([
    loadNoteHasher(),
    warmCircuit({ wasm: 'spendWasm', zkey: 'spendZkey' }),
  ]);
  const singleThread = options.singleThread ?? true;
  let queue: Promise<unknown> = Promise.resolve();
  const proveOne = async (request: SpendRequest): Promise<SpendProved> => {
    const plan = planSpend(hasher, request);
    const witness = await circuit.witness(spendCircuitInput(plan.statement, plan.witness));
    const { proof, publicSignals } = await snarkjs.groth16.prove(
      { type: 'mem', data: circuit.zkey },
      { type: 'mem', data: witness },
      undefined,
      { singleThread },
    );
    const expected = spendPublicInputs(plan.statement);
    assert(
      publicSignals.length === expected.length && publicSignals.every((s, i) => BigInt(s) === expected[i]),
      'the prover must output the public inputs of the statement',
    );
    return {
      statement: plan.statement,
      proof: encodeProof(coordinatesOfSnarkjs(proof)),
      inputs: plan.inputs,
      output: plan.output,
    };
  };
  return {
    kind: 'groth16',
    prove(request) {
      // The witness instance holds one computation at a time.
      const next = queue.then(() => proveOne(request));
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      if (!singleThread) await (await snarkjs.curves.getCurveFromName('bn128')).terminate();
    },
  };
}

/** A prover answering with stand-in proofs (spend-stand-in.ts); the same rule errors as the real one. */
export function createStandInSpendProver(hasher: NoteHasher): SpendProver {
  return {
    kind: 'stand-in',
    async prove(request) {
      const plan = planSpend(hasher, request);
      return {
        statement: plan.statement,
        proof: standInSpendProof(plan.statement),
        inputs: plan.inputs,
        output: plan.output,
      };
    },
    close: async () => undefined,
  };
}
