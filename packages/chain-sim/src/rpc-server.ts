import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isVenueError, parseJsonText, stringifyJson } from '@venue/protocol';
import type { ChainSimulator } from './chain.ts';
import { ChainError, REJECTION_CODES } from './errors.ts';
import { RPC_BODY_BYTES_MAX } from './limits.ts';
import { RPC_METHODS } from './rpc-methods.ts';
import { fromJson } from './rpc-values.ts';

/**
 * JSON-RPC 2.0 over HTTP (docs/chain-sim.md section 8): POST one request object to `/`, receive
 * one response object. No batches of calls, no notifications. Bodies are bounded, numbers are
 * exact (bigint-safe both ways), every failure is a JSON-RPC error with a code and, for chain
 * rejections, `data.reason`; protocol errors carry `data.venue_code` and `data.name`.
 */

export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  internal: -32603,
  venue: -32020,
} as const;

interface RpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

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
      reply(null, {
        error: { code: RPC_ERRORS.invalidRequest, message: 'send JSON-RPC requests with POST' },
      }),
    );
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    response.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    response.end(
      reply(null, {
        error: { code: RPC_ERRORS.invalidRequest, message: `the body exceeds ${RPC_BODY_BYTES_MAX} bytes` },
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
  let parsed: unknown;
  try {
    parsed = parseJsonText(text, RPC_BODY_BYTES_MAX);
  } catch (error) {
    return reply(null, {
      error: { code: RPC_ERRORS.parse, message: error instanceof Error ? error.message : 'unreadable JSON' },
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return reply(null, {
      error: { code: RPC_ERRORS.invalidRequest, message: 'expected one JSON-RPC request object' },
    });
  }
  const call = parsed as Record<string, unknown>;
  const id = idOf(call['id']);
  if (call['jsonrpc'] !== '2.0' || typeof call['method'] !== 'string' || id === undefined) {
    return reply(null, {
      error: { code: RPC_ERRORS.invalidRequest, message: 'expected jsonrpc "2.0", a method name and an id' },
    });
  }
  const method = Object.hasOwn(RPC_METHODS, call['method']) ? RPC_METHODS[call['method']] : undefined;
  if (method === undefined) {
    return reply(id, {
      error: {
        code: RPC_ERRORS.methodNotFound,
        message: `no method ${JSON.stringify(call['method'].slice(0, 60))}`,
      },
    });
  }
  try {
    const params = fromJson(call['params'] ?? {});
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return reply(id, {
        error: {
          code: REJECTION_CODES.bad_request,
          message: 'params: expected an object',
          data: { reason: 'bad_request' },
        },
      });
    }
    return reply(id, { result: method(chain, params as Record<string, unknown>) ?? null });
  } catch (error) {
    return reply(id, { error: errorOf(error) });
  }
}

function idOf(value: unknown): string | bigint | null | undefined {
  if (value === null || typeof value === 'string') return value;
  const converted = fromJsonSafe(value);
  return typeof converted === 'bigint' ? converted : undefined;
}

function fromJsonSafe(value: unknown): unknown {
  try {
    return fromJson(value, 'id');
  } catch {
    return undefined;
  }
}

function errorOf(error: unknown): RpcError {
  if (error instanceof ChainError) {
    return { code: REJECTION_CODES[error.reason], message: error.message, data: { reason: error.reason } };
  }
  if (isVenueError(error)) {
    return {
      code: RPC_ERRORS.venue,
      message: error.message,
      data: { venue_code: error.code, name: error.errorName },
    };
  }
  // A programmer error inside the simulator: say so, without a stack.
  return {
    code: RPC_ERRORS.internal,
    message: error instanceof Error ? `internal error: ${error.message}` : 'internal error',
  };
}

function reply(id: string | bigint | null, outcome: { result: unknown } | { error: RpcError }): string {
  return stringifyJson({ jsonrpc: '2.0', id, ...outcome });
}
