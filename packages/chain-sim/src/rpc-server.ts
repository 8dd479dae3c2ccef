import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CHAIN_RPC_ERRORS, chainFailureText, serveChainCall } from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { RPC_BODY_BYTES_MAX, RPC_KEEP_ALIVE_MS } from './limits.ts';
import { RPC_METHODS } from './rpc-methods.ts';

/**
 * JSON-RPC 2.0 over HTTP (docs/chain-sim.md section 11): POST one request object to `/`, receive
 * one response object. The envelope, the methods and their messages are the chain contract's
 * (packages/protocol/src/chain): this file is the HTTP around `serveChainCall`. Bodies are
 * bounded; every failure is a JSON-RPC error with a code and, for chain rejections,
 * `data.reason`; protocol errors carry `data.venue_code` and `data.name`.
 */

export const RPC_ERRORS = CHAIN_RPC_ERRORS;

export interface RpcServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startRpcServer(
  chain: ChainSimulator,
  options: { port?: number; host?: string } = {},
): Promise<RpcServer> {
  const server: Server = createServer((request, response) => {
    handle(chain, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  // Idle connections are closed by the client, never first by the server: a client whose event
  // loop was busy (a proof on its main thread) may send its next POST on a socket the server had
  // just closed, and a POST is not retried for it ("other side closed").
  server.keepAliveTimeout = RPC_KEEP_ALIVE_MS;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  chain: ChainSimulator,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'POST') {
    response.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
    response.end(
      chainFailureText(null, {
        code: RPC_ERRORS.invalidRequest,
        message: 'send JSON-RPC requests with POST',
      }),
    );
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    response.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    response.end(
      chainFailureText(null, {
        code: RPC_ERRORS.invalidRequest,
        message: `the body exceeds ${RPC_BODY_BYTES_MAX} bytes`,
      }),
    );
    request.destroy();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(dispatch(chain, body));
}

/** The body as text, or undefined when it is larger than the limit (reading stops there). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > RPC_BODY_BYTES_MAX) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > RPC_BODY_BYTES_MAX) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One request text in, one response text out. Exported for tests without a socket. */
export function dispatch(chain: ChainSimulator, text: string): string {
  return serveChainCall(RPC_METHODS, chain, text);
}
