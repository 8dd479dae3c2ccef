import { parentPort } from 'node:worker_threads';
import { assert } from '@venue/protocol';
import { buildBn128 } from 'ffjavascript';
import * as snarkjs from 'snarkjs';
import { loadNoteHasher } from './hash.ts';
import {
  MATCH_CIRCUIT_ARTIFACTS,
  MATCH_WIDTHS,
  type MatchBatchHeader,
  type MatchStatement,
  type MatchWidth,
  matchPublicInputs,
  matchWidthOfStatement,
} from './match-public-inputs.ts';
import { type MatchLeg, settleLeg } from './match-rules.ts';
import { matchCircuitInput } from './match-witness.ts';
import { coordinatesOfSnarkjs, encodeProof } from './proof-bytes.ts';
import { thisThreadId } from './thread-priority.ts';
import { type WarmCircuit, warmCircuit } from './warm-circuit.ts';

export interface MatchProveRequest {
  readonly id: number;
  readonly header: MatchBatchHeader;
  readonly leg: MatchLeg;
}

export type MatchProveReply =
  /** `tid`: the worker's thread id (Linux), so the pool can lower its priority (thread-priority.ts). */
  | { readonly type: 'ready'; readonly tid: number | null }
  | { readonly type: 'fatal'; readonly message: string }
  | {
      readonly type: 'proved';
      readonly id: number;
      readonly statement: MatchStatement;
      readonly proof: string;
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

const port = parentPort;
if (port === null) throw new Error('match-prove-worker.ts runs only as a worker thread');

function send(reply: MatchProveReply): void {
  port?.postMessage(reply);
}

try {
  const hasher = await loadNoteHasher();
  const circuits = new Map<MatchWidth, WarmCircuit>();
  for (const width of MATCH_WIDTHS) circuits.set(width, await warmCircuit(MATCH_CIRCUIT_ARTIFACTS[width]));
  // snarkjs builds a new curve for every singleThread proof (a WebAssembly instantiation each time)
  // and otherwise reuses the global one; making that global a single-threaded curve keeps one warm
  // curve per worker and starts no helper threads inside it.
  (globalThis as { curve_bn128?: unknown }).curve_bn128 = await buildBn128(true);
  const prove = async (request: MatchProveRequest): Promise<MatchProveReply> => {
    const { statement } = settleLeg(hasher, request.header, request.leg);
    const circuit = circuits.get(matchWidthOfStatement(statement));
    assert(circuit !== undefined, 'both widths are loaded');
    const input = matchCircuitInput(request.header, request.leg, statement);
    const witness = await circuit.witness(input);
    const { proof, publicSignals } = await snarkjs.groth16.prove(
      { type: 'mem', data: circuit.zkey },
      { type: 'mem', data: witness },
    );
    const expected = matchPublicInputs(statement);
    assert(
      publicSignals.length === expected.length && publicSignals.every((s, i) => BigInt(s) === expected[i]),
      'the prover must output the public inputs of the statement',
    );
    return { type: 'proved', id: request.id, statement, proof: encodeProof(coordinatesOfSnarkjs(proof)) };
  };
  // One request at a time: the witness instance holds one computation.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (request: MatchProveRequest | 'close') => {
    // Leaving on our own, once the last proof is out, so no proof is cut short. (The heap
    // corruption once blamed on terminate() was blake-hash's addon: hash.ts says why.)
    if (request === 'close') {
      queue = queue.then(() => port.close());
      return;
    }
    queue = queue.then(() =>
      prove(request).then(send, (error: unknown) =>
        send({
          type: 'failed',
          id: request.id,
          message: error instanceof Error ? error.message : String(error),
        }),
      ),
    );
  });
  send({ type: 'ready', tid: thisThreadId() });
} catch (error) {
  send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
}
