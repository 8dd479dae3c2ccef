// Worker side of the settlement pool (settlement-pool.ts): the settlement pipeline's per-leg and
// per-batch CPU work, off the sequencer's thread. Every job is a pure function of its input
// (sealing draws a fresh ephemeral key, as on the main thread; Ed25519 signing is deterministic), so
// where it runs changes when, never what.
import { parentPort } from 'node:worker_threads';
import {
  createStandInMatchProver,
  loadNoteHasher,
  lowerThisThreadPriority,
  sealFillMemo,
} from '@venue/notes';
import { chainRequestText, readChainReplyBytes, settlementTxId, signSettlementBatch } from '@venue/protocol';
import { SETTLEMENT_WORKER_NICE } from '../config/limits.ts';
import { hashLeg } from '../settlement/settling-match.ts';
import type {
  JobOutcome,
  SettlementWorkReply,
  SettlementWorkRequest,
  WorkKind,
  WorkKinds,
} from './settlement-work.ts';

const port = parentPort;
if (port === null) throw new Error('settlement-worker.ts runs only as a worker thread');
// Its work can wait; the sequencer's turn cannot (notes thread-priority.ts).
lowerThisThreadPriority(SETTLEMENT_WORKER_NICE);

const hasher = await loadNoteHasher();
const { proveNow } = createStandInMatchProver(hasher);
if (proveNow === undefined) throw new Error('the stand-in prover answers at once');
const proveLeg = proveNow;

const UTF8_ENCODER = new TextEncoder();

type Runners = { readonly [K in WorkKind]: (input: WorkKinds[K]['input']) => WorkKinds[K]['result'] };

const RUNNERS: Runners = {
  hash: (input) => hashLeg(hasher, input),
  seal: (job) => sealFillMemo(job.viewingPubkey, job.context, job.plaintext),
  prove: (job) => proveLeg(job.header, job.leg),
  sign: ({ batch, privateKey }) => {
    // The public half is the batch's own `signer`: only the private KeyObject crossed over.
    const signed = signSettlementBatch(batch, { publicKey: batch.signer, privateKey });
    return { signature: signed.signature, tx_id: settlementTxId(signed) };
  },
  encode: (job) => UTF8_ENCODER.encode(chainRequestText(job.id, job.method, job.params)),
  decode: (job) => readChainReplyBytes(job.method, job.id, job.bytes, job.bytesMax),
};

function outcome(kind: WorkKind, input: unknown): JobOutcome {
  try {
    return { ok: (RUNNERS[kind] as (input: unknown) => unknown)(input) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

port.on('message', (request: SettlementWorkRequest) => {
  const outcomes = request.jobs.map((input) => outcome(request.kind, input));
  // Written requests go back as bytes whose buffers move with the message (TextEncoder gives each
  // its own): the sequencer's thread gets them without a copy or a string.
  const transfer: ArrayBuffer[] = [];
  for (const done of outcomes)
    if ('ok' in done && done.ok instanceof Uint8Array) transfer.push(done.ok.buffer as ArrayBuffer);
  port.postMessage({ id: request.id, kind: 'done', outcomes } satisfies SettlementWorkReply, transfer);
});
port.postMessage({ id: 0, kind: 'ready' } satisfies SettlementWorkReply);
