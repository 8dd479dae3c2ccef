/**
 * One verification worker of the pool (verifier.ts). It loads the pinned verification key, a
 * single-threaded curve and Poseidon once, then answers batches of claims until terminated.
 *
 * Messages in: { id, claims }. Out: { type: 'ready' } once, then { type: 'result', id, results,
 * commitments } or { type: 'failed', id, message } per batch; { type: 'fatal', message } if it cannot
 * start. A claim that names its note's value also gets its note commitment re-derived here
 * (Poseidon(34, owner, inner, value), about 85 µs), so the sequencer can look it up instead.
 */
import { parentPort } from 'node:worker_threads';
import { type AssetClaim, createClaimChecker } from './claims.ts';
import { loadNoteHasher, type NoteHasher } from './hash.ts';

export interface WorkerRequest {
  readonly id: number;
  readonly claims: readonly AssetClaim[];
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'fatal'; readonly message: string }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly results: boolean[];
      /** Per claim: the re-derived commitment, or null (no value named, or inputs out of range). */
      readonly commitments: (string | null)[];
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

const port = parentPort;
if (port === null) throw new Error('verify-worker.ts runs only as a worker thread');

function send(reply: WorkerReply): void {
  port?.postMessage(reply);
}

try {
  const checker = await createClaimChecker();
  const hasher = await loadNoteHasher();
  port.on('message', (request: WorkerRequest) => {
    checker.check(request.claims).then(
      (results) =>
        send({ type: 'result', id: request.id, results, commitments: request.claims.map(derive(hasher)) }),
      (error: unknown) => send({ type: 'failed', id: request.id, message: String(error) }),
    );
  });
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
}

function derive(hasher: NoteHasher): (claim: AssetClaim) => string | null {
  return (claim) => {
    if (claim.noteValue === undefined) return null;
    try {
      return hasher.noteCommitment(claim.owner_commitment, claim.note_inner_hash, claim.noteValue);
    } catch {
      return null; // out of range: the sequencer re-derives and refuses with its own code
    }
  };
}
