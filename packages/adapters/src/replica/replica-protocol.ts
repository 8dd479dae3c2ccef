/**
 * Messages between the sequencer's thread and the snapshot replica's worker (snapshot-replica.ts,
 * replica-worker.ts). Byte buffers travel by transfer, not by copy.
 */
import type { CoreSettings } from './replica-state.ts';

/** What the worker starts from (its workerData). */
export interface ReplicaStart {
  readonly settings: CoreSettings;
  readonly companions: readonly string[];
  /** The enclave's sealing key: the replica seals the snapshot files it produces. */
  readonly sealingKey: Uint8Array;
  /** Snapshot text to restore, or null for an empty venue. */
  readonly seedText: string | null;
  /** The record the seed is the state after (0 and zeros for an empty venue). */
  readonly seedSeq: bigint;
  readonly seedHash: Uint8Array;
}

export type ToReplica =
  /** One durable commit batch (or a chunk of records replayed at boot): sealed frames back to back. */
  | { readonly type: 'records'; readonly frames: Uint8Array; readonly key: Uint8Array }
  /** Produce the snapshot file of the state after record `seq`, whose hash is `hash`. */
  | { readonly type: 'snapshot'; readonly seq: bigint; readonly hash: Uint8Array };

export type FromReplica =
  | { readonly type: 'ready' }
  /** Progress after each records message: the last record applied and the bytes just consumed. */
  | { readonly type: 'applied'; readonly seq: bigint; readonly bytes: number }
  | { readonly type: 'snapshot'; readonly seq: bigint; readonly file: Uint8Array }
  | { readonly type: 'failed'; readonly message: string };
