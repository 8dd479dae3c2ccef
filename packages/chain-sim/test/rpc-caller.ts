/**
 * The chain contract's two halves for the simulator's tests: a request written by
 * `chainRequestText`, a reply read by `readChainReply`, and the raw reply for tests about the
 * envelope itself. The venue's full client is @venue/adapters' ChainRpcClient.
 */
import {
  ChainError,
  type ChainMethod,
  type ChainParams,
  type ChainResult,
  chainRequestText,
  readChainReply,
  VenueError,
} from '@venue/protocol';

export interface RawReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: { reason?: string; name?: string } };
}

export class RpcCaller {
  #nextId = 1n;

  constructor(readonly url: string) {}

  async request<M extends ChainMethod>(method: M, params: ChainParams<M>): Promise<ChainResult<M>> {
    const id = this.#nextId++;
    const reply = readChainReply(method, id, await this.text(chainRequestText(id, method, params)));
    if (reply.kind === 'result') return reply.result;
    if (reply.kind === 'malformed') throw new Error(reply.problem);
    if (reply.reason !== undefined) throw new ChainError(reply.reason, reply.message);
    if (reply.venueError !== undefined) throw new VenueError(reply.venueError, reply.message);
    throw new Error(`chain RPC error ${reply.code}: ${reply.message}`);
  }

  /** Posts any text; the reply parsed as plain JSON (tests of the envelope and of malformed params). */
  async post(body: string): Promise<RawReply> {
    return JSON.parse(await this.text(body)) as RawReply;
  }

  async text(body: string): Promise<string> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    return response.text();
  }
}
