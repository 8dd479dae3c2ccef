import type { KeyObject } from 'node:crypto';
import type { MatchBatchHeader, MatchLeg, MatchProof, MemoContext } from '@venue/notes';
import type {
  ChainMethod,
  ChainParams,
  ChainReply,
  ChainRpcId,
  FillMemo,
  FillMemoPlaintext,
  UnsignedSettlementBatch,
} from '@venue/protocol';
import type { LegHashes, LegHashInput } from '../settlement/settling-match.ts';

/** One fill memo to seal for its owner's viewing key. */
export interface SealJob {
  readonly viewingPubkey: string;
  readonly context: MemoContext;
  readonly plaintext: FillMemoPlaintext;
}

/** One leg to prove with the stand-in prover (a benchmark's or a test's chain in stand-in mode). */
export interface ProveJob {
  readonly header: MatchBatchHeader;
  readonly leg: MatchLeg;
}

/** A settlement batch to sign with the settlement signer's key (a KeyObject crosses threads as is). */
export interface SignJob {
  readonly batch: UnsignedSettlementBatch;
  readonly privateKey: KeyObject;
}

/** A batch's signature and transaction id: the legs stay where they are, not cloned back. */
export interface BatchSignature {
  readonly signature: string;
  readonly tx_id: string;
}

/**
 * A JSON-RPC request to the chain, written by the chain contract's schema (protocol chainRequestText)
 * and handed back as its UTF-8 bytes: the sequencer's thread writes them to the socket as they are,
 * so the request never becomes a string on its heap.
 */
export interface EncodeJob {
  readonly id: ChainRpcId;
  readonly method: ChainMethod;
  readonly params: ChainParams<ChainMethod>;
}

/**
 * A chain reply to read strictly against its method's schema (protocol readChainReply), as the
 * bytes that came off the socket: they move to the worker (transferred, not copied) when they own
 * their ArrayBuffer, and become text there.
 */
export interface DecodeJob {
  readonly id: ChainRpcId;
  readonly method: ChainMethod;
  readonly bytes: Uint8Array;
  readonly bytesMax: number;
}

/** Each kind of job the settlement worker does, with its input and its result. */
export interface WorkKinds {
  readonly hash: { readonly input: LegHashInput; readonly result: LegHashes };
  readonly seal: { readonly input: SealJob; readonly result: FillMemo };
  readonly prove: { readonly input: ProveJob; readonly result: MatchProof };
  readonly sign: { readonly input: SignJob; readonly result: BatchSignature };
  readonly encode: { readonly input: EncodeJob; readonly result: Uint8Array };
  readonly decode: { readonly input: DecodeJob; readonly result: ChainReply<ChainMethod> };
}

export type WorkKind = keyof WorkKinds;

/** A message to the settlement worker: jobs of one kind, answered in one reply, in order. */
export interface SettlementWorkRequest {
  readonly id: number;
  readonly kind: WorkKind;
  readonly jobs: readonly unknown[];
}

/** A job's outcome: its result, or why it threw (a message: errors do not cross threads whole). */
export type JobOutcome = { readonly ok: unknown } | { readonly error: string };

export type SettlementWorkReply =
  | { readonly id: 0; readonly kind: 'ready' }
  | { readonly id: number; readonly kind: 'done'; readonly outcomes: readonly JobOutcome[] };

/**
 * The settlement pipeline's per-leg CPU work as it sees it (settlement-pool.ts runs it on a worker
 * thread). Results come back in the order asked, one promise per job.
 */
export interface SettlementWork {
  /** Jobs handed over and not yet answered. */
  readonly depth: number;
  /** Whether `jobs` more jobs may be handed over now (the pool's bound). */
  accepts(jobs: number): boolean;
  /** Plans' Poseidon hashes (settling-match.ts hashLeg), one per input, same order. */
  hashLegs(inputs: readonly LegHashInput[]): Promise<LegHashes[]>;
  /** One sealed fill memo (notes sealFillMemo). */
  sealMemo(job: SealJob): Promise<FillMemo>;
}

/** Batch signing and the chain's JSON-RPC encoding off the thread (RemoteSettlementChain, ChainRpcClient). */
export interface ChainWork {
  signBatch(job: SignJob): Promise<BatchSignature>;
  encode(job: EncodeJob): Promise<Uint8Array>;
  decode(job: DecodeJob): Promise<ChainReply<ChainMethod>>;
}
