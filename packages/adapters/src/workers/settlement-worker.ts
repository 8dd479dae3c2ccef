// Worker side of the settlement pool (settlement-pool.ts): the settlement pipeline's per-leg CPU
// work, off the sequencer's thread. Every job is a pure function of its input (sealing draws a
// fresh ephemeral key, as on the main thread), so where it runs changes when, never what.
import { parentPort } from 'node:worker_threads';
import { createStandInMatchProver, loadNoteHasher, sealFillMemo } from '@venue/notes';
import { hashLeg } from '../settlement/settling-match.ts';
import type { SettlementWorkReply, SettlementWorkRequest } from './settlement-work.ts';

const port = parentPort;
if (port === null) throw new Error('settlement-worker.ts runs only as a worker thread');

const hasher = await loadNoteHasher();
const standIn = createStandInMatchProver(hasher);
const { proveNow } = standIn;
if (proveNow === undefined) throw new Error('the stand-in prover answers at once');
const proveLeg = proveNow;

function run(request: SettlementWorkRequest): SettlementWorkReply {
  switch (request.kind) {
    case 'hash':
      return { id: request.id, kind: 'hash', results: request.jobs.map((input) => hashLeg(hasher, input)) };
    case 'seal':
      return {
        id: request.id,
        kind: 'seal',
        results: request.jobs.map((job) => sealFillMemo(job.viewingPubkey, job.context, job.plaintext)),
      };
    case 'prove':
      return {
        id: request.id,
        kind: 'prove',
        results: request.jobs.map((job) => {
          try {
            return proveLeg(job.header, job.leg);
          } catch (error) {
            return { error: (error as Error).message };
          }
        }),
      };
  }
}

port.on('message', (request: SettlementWorkRequest) => {
  let reply: SettlementWorkReply;
  try {
    reply = run(request);
  } catch (error) {
    reply = { id: request.id, kind: 'failed', message: (error as Error).message };
  }
  port.postMessage(reply);
});
port.postMessage({ id: 0, kind: 'ready' } satisfies SettlementWorkReply);
