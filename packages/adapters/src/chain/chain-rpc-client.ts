import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  ChainError,
  type ChainMethod,
  type ChainParams,
  type ChainReply,
  type ChainResult,
  chainRequestText,
  RPC_BODY_BYTES_MAX,
  readChainReplyBytes,
  type SettlementLookup,
  type TreeUpdatesReply,
  type TreeUpdatesRequest,
  VenueError,
} from '@venue/protocol';
import type { ChainReads } from '../venue/ports.ts';
import type { ChainWork } from '../workers/settlement-work.ts';

/** Params may be left out for a method that takes none. */
type ParamsOf<M extends ChainMethod> =
  Record<string, never> extends ChainParams<M> ? [params?: ChainParams<M>] : [params: ChainParams<M>];

/** Largest reply read: a full page of tree updates or a settlement view of 4096 entries fits. */
const REPLY_BYTES_MAX = RPC_BODY_BYTES_MAX * 4;

/**
 * The venue's JSON-RPC client of the settlement chain (`venue serve`, the CLI, the tests). Every
 * call goes through the chain contract (packages/protocol/src/chain): params are written by their
 * schema and the result is decoded strictly against the method's result schema, so what comes back
 * is typed and exact (u64 values as bigint). A chain rejection comes back as the ChainError it
 * was, a protocol error as the VenueError it was; a reply that is not one to this call is an Error.
 * This client is the venue's `ChainReads` for its REST routes, and `treeUpdates` is the
 * settlement's `TreeUpdateSource` (the stream's tree channel of a venue whose chain runs elsewhere).
 */
export class ChainRpcClient implements ChainReads {
  #nextId = 1n;

  /**
   * `codec`: where requests are written and replies read. A settlement batch of a thousand legs is
   * a megabyte of JSON and its record thousands of leaves; a venue that serves users writes and
   * reads them on the settlement worker (workers/settlement-pool.ts), off the sequencer's thread.
   */
  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
    private readonly codec?: Pick<ChainWork, 'encode' | 'decode'>,
  ) {}

  async request<M extends ChainMethod>(method: M, ...[params]: ParamsOf<M>): Promise<ChainResult<M>> {
    const id = this.#nextId++;
    const input = params ?? ({} as ChainParams<M>);
    const body =
      this.codec === undefined
        ? chainRequestText(id, method, input)
        : await this.codec.encode({ id, method, params: input });
    const bytes = await postBytes(this.url, body, this.timeoutMs);
    // With a codec the reply's bytes move to the worker and never become a string here.
    const reply =
      this.codec === undefined
        ? readChainReplyBytes(method, id, bytes, REPLY_BYTES_MAX)
        : ((await this.codec.decode({ id, method, bytes, bytesMax: REPLY_BYTES_MAX })) as ChainReply<M>);
    if (reply.kind === 'result') return reply.result;
    if (reply.kind === 'malformed') throw new Error(`chain RPC ${method}: ${reply.problem}`);
    if (reply.reason !== undefined) throw new ChainError(reply.reason, reply.message);
    if (reply.venueError !== undefined) throw new VenueError(reply.venueError, reply.message);
    throw new Error(`chain RPC error ${reply.code}: ${reply.message}`);
  }

  roots() {
    return this.request('getRoots');
  }

  inclusion(treeId: number, commitment: string) {
    return this.request('getInclusion', { tree_id: treeId, commitment });
  }

  leaves(treeId: number, from: bigint, limit: number) {
    return this.request('getLeaves', { tree_id: treeId, from, limit });
  }

  /** One `getTreeUpdates` call; the tree feed checks what it publishes. */
  treeUpdates(request: TreeUpdatesRequest): Promise<TreeUpdatesReply> {
    return this.request('getTreeUpdates', request);
  }

  settlementStatus(lookup: SettlementLookup) {
    const params =
      lookup.by === 'tx'
        ? { tx_id: lookup.tx_id }
        : { market_id: lookup.market_id, batch_seq: lookup.batch_seq };
    return this.request('getSettlementStatus', params);
  }
}

/**
 * POSTs a JSON body and reads the reply's bytes, whatever its status (the reply says what went wrong),
 * into one array that owns its buffer, so a codec on a worker can take it without a copy.
 * node:http rather than fetch: a settling backlog sends a request per locked group, and each fetch
 * left a Request, its streams and a timeout signal whose clean-up (a FinalizationRegistry callback
 * per request) ran all at once after a major GC, 20 ms of the sequencer's thread for a few thousand
 * requests (docs/settlement.md section 12). Keep-alive is the global agent's, as with fetch.
 */
function postBytes(url: string, body: string | Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no reply from ${target.origin} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const settle = (error: Error | null, bytes?: Uint8Array) => {
      clearTimeout(timer);
      if (error === null) resolve(bytes as Uint8Array);
      else reject(error);
    };
    request.on('error', (error) => settle(error));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        length += chunk.length;
      });
      response.on('error', (error) => settle(error));
      response.on('end', () => {
        // Not Buffer.concat: under 4 KiB it returns a slice of Node's shared pool.
        const bytes = new Uint8Array(length);
        let at = 0;
        for (const chunk of chunks) {
          bytes.set(chunk, at);
          at += chunk.length;
        }
        settle(null, bytes);
      });
      response.on('close', () => {
        if (!response.complete) settle(new Error(`the reply from ${target.origin} was cut short`));
      });
    });
    request.end(body);
  });
}
