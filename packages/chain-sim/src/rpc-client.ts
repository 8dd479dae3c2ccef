import {
  decode,
  ERRORS,
  type ErrorName,
  InclusionProofResponseSchema,
  LeavesResponseSchema,
  parseJsonText,
  type SettlementLookup,
  SettlementStatusResponseSchema,
  stringifyJson,
  TreeRootsResponseSchema,
  VenueError,
} from '@venue/protocol';
import { ChainError, type ChainRejection, REJECTION_CODES } from './errors.ts';
import { RPC_BODY_BYTES_MAX } from './limits.ts';
import type { ChainReadsAsync } from './reads.ts';
import type { TreeUpdatesReply } from './rpc-tree-updates.ts';
import { fromJson } from './rpc-values.ts';

export type {
  TreePageReply,
  TreeUpdateReply,
  TreeUpdatesReply,
} from './rpc-tree-updates.ts';

/** What `getTreeUpdates` is asked: per shard, the roots already announced (oldest first). */
export interface TreeUpdatesRequest {
  readonly trees: readonly {
    readonly tree_id: number;
    readonly anchors: readonly { readonly leaf_count: bigint; readonly root: string }[];
  }[];
  /** Leaves per page, 1 to 1000 (default 1000, the protocol's page). */
  readonly page_leaves?: number;
  readonly pages_max?: number;
}

/**
 * A JSON-RPC client of the simulator (for the venue, the SDK's chain actions and the CLI). `call`
 * returns the result with integers as bigint (small counts as numbers, see rpc-values.ts); a chain
 * rejection comes back as the ChainError it was, a protocol error as the VenueError it was. The
 * four tree and settlement reads are decoded against the protocol's schemas: this client is a
 * `ChainReads` for the venue's REST routes, and `treeUpdates` is the adapters' `TreeUpdateSource`
 * (the stream's tree channel of a venue whose chain runs elsewhere).
 */
export class ChainRpcClient implements ChainReadsAsync {
  private nextId = 1n;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stringifyJson({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const parsed = parseJsonText(await response.text(), RPC_BODY_BYTES_MAX * 4) as Record<string, unknown>;
    const error = parsed['error'] as
      | { code?: unknown; message?: unknown; data?: Record<string, unknown> }
      | undefined;
    if (error !== undefined) throw errorFrom(error);
    return parsed['result'];
  }

  /** A call whose result is converted to bigint and number values. */
  async request<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    return fromJson(await this.call(method, params)) as T;
  }

  async roots() {
    return decode(TreeRootsResponseSchema, await this.call('getRoots'));
  }

  async inclusion(treeId: number, commitment: string) {
    return decode(
      InclusionProofResponseSchema,
      await this.call('getInclusion', { tree_id: treeId, commitment }),
    );
  }

  async leaves(treeId: number, from: bigint, limit: number) {
    return decode(LeavesResponseSchema, await this.call('getLeaves', { tree_id: treeId, from, limit }));
  }

  /** One `getTreeUpdates` call (rpc-tree-updates.ts); the tree feed checks what it publishes. */
  async treeUpdates(request: TreeUpdatesRequest): Promise<TreeUpdatesReply> {
    return this.request<TreeUpdatesReply>('getTreeUpdates', { ...request });
  }

  async settlementStatus(lookup: SettlementLookup) {
    const params =
      lookup.by === 'tx'
        ? { tx_id: lookup.tx_id }
        : { market_id: lookup.market_id, batch_seq: lookup.batch_seq };
    return decode(SettlementStatusResponseSchema, await this.call('getSettlementStatus', params));
  }
}

function errorFrom(error: { code?: unknown; message?: unknown; data?: Record<string, unknown> }): Error {
  const message = typeof error.message === 'string' ? error.message : 'chain error';
  const reason = error.data?.['reason'];
  if (typeof reason === 'string' && Object.hasOwn(REJECTION_CODES, reason)) {
    return new ChainError(reason as ChainRejection, message);
  }
  const name = error.data?.['name'];
  if (typeof name === 'string' && Object.hasOwn(ERRORS, name))
    return new VenueError(name as ErrorName, message);
  return new Error(`chain RPC error ${String(error.code)}: ${message}`);
}
