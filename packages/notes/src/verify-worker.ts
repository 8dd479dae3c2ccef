/**
 * One verification worker of the pool (verifier.ts). It loads the pinned verification key, a
 * single-threaded curve and Poseidon once, then answers batches of claims until terminated.
 *
 * Messages in: { id, claims }. Out: { type: 'ready' } once, then { type: 'result', id, results }
 * or { type: 'failed', id, message } per batch; { type: 'fatal', message } if it cannot start.
 */
import { parentPort } from 'node:worker_threads';
import { type AssetClaim, createClaimChecker } from './claims.ts';

export interface WorkerRequest {
  readonly id: number;
  readonly claims: readonly AssetClaim[];
}

export type WorkerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'fatal'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly results: boolean[] }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

const port = parentPort;
if (port === null) throw new Error('verify-worker.ts runs only as a worker thread');

function send(reply: WorkerReply): void {
  port?.postMessage(reply);
}

try {
  const checker = await createClaimChecker();
  port.on('message', (request: WorkerRequest) => {
    checker.check(request.claims).then(
      (results) => send({ type: 'result', id: request.id, results }),
      (error: unknown) => send({ type: 'failed', id: request.id, message: String(error) }),
    );
  });
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
}
