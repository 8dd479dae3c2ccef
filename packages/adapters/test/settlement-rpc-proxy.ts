/**
 * A fault-injecting HTTP proxy between the venue's remote settlement port and the chain simulator's
 * real JSON-RPC server: it forwards each request as is, or fails it in one of the two ways a network
 * fails a caller. `down`: the request never reaches the chain (connection reset). `replies-lost`:
 * the chain receives and applies the request, then the answer is lost (connection reset after the
 * upstream answered), the case where the caller cannot know what happened.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = 'pass' | 'down' | 'replies-lost';

export interface RpcProxy {
  readonly url: string;
  mode: ProxyMode;
  /** When set, the mode applies to these methods only; the rest pass. */
  only: readonly string[] | null;
  /** Methods the chain received (forwarded) while the mode lost their replies. */
  readonly lostReplies: string[];
  /** Every request body and answer that passed, in order (the leak test reads the wire). */
  readonly traffic: string[];
  close(): Promise<void>;
}

export async function startRpcProxy(upstream: string): Promise<RpcProxy> {
  const state = {
    mode: 'pass' as ProxyMode,
    only: null as readonly string[] | null,
    lostReplies: [] as string[],
    traffic: [] as string[],
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const method = String((JSON.parse(body) as { method?: unknown }).method);
      const mode = state.only === null || state.only.includes(method) ? state.mode : 'pass';
      if (mode === 'down') {
        response.socket?.destroy();
        return;
      }
      const answer = await fetch(upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await answer.text();
      state.traffic.push(body, text);
      if (mode === 'replies-lost') {
        state.lostReplies.push(method);
        response.socket?.destroy();
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(text);
    })().catch(() => response.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    traffic: state.traffic,
    get mode() {
      return state.mode;
    },
    set mode(mode: ProxyMode) {
      state.mode = mode;
    },
    get only() {
      return state.only;
    },
    set only(methods: readonly string[] | null) {
      state.only = methods;
    },
    lostReplies: state.lostReplies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
