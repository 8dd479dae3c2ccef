import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { parseJsonText } from '@venue/protocol';

/** What a client sees of one HTTPS exchange. */
export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A bearer token to send as `Authorization: Bearer <token>`. */
  token?: string;
  agent?: https.Agent;
  /** Send exactly the given headers: no default content type (for tests of what a client omits). */
  exactHeaders?: boolean;
  /** The source address to connect from (127.x.y.z on loopback: tests of per-address limits). */
  localAddress?: string;
}

/**
 * One request over real TLS to the venue, trusting only `ca` (the boot's certificate), the way a
 * careful client must (spec 1 item 9). A JSON body gets its content type unless one is given.
 */
export function httpsCall(
  port: number,
  ca: string,
  path: string,
  options: CallOptions = {},
): Promise<Exchange> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (
    options.exactHeaders !== true &&
    options.body !== undefined &&
    !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
  ) {
    headers['content-type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers,
        ca,
        agent: options.agent ?? false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) {
      request.setHeader('content-length', Buffer.byteLength(options.body));
      request.write(options.body);
    }
    request.end();
  });
}

/** The error envelope of spec 7, asserting its exact shape: `code` and `message`, nothing else. */
export function envelopeOf(exchange: Exchange): { code: number; message: string } {
  assert.match(String(exchange.headers['content-type']), /^application\/json/);
  const body: unknown = JSON.parse(exchange.text);
  assert.ok(typeof body === 'object' && body !== null, `not an object: ${exchange.text}`);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], `not an envelope: ${exchange.text}`);
  const { code, message } = body as { code: unknown; message: unknown };
  assert.ok(typeof code === 'number' && typeof message === 'string');
  return { code, message };
}

/** A success body, parsed losslessly (u64 values stay exact). */
export function bodyOf(exchange: Exchange): Record<string, unknown> {
  assert.ok(
    exchange.status >= 200 && exchange.status < 300,
    `expected success, got ${exchange.status}: ${exchange.text}`,
  );
  return JSON.parse(exchange.text, (_key, value) => value) as Record<string, unknown>;
}

/** Parses with the protocol's lossless parser, for bodies carrying u64 values. */
export function losslessBodyOf(exchange: Exchange): unknown {
  return parseJsonText(exchange.text);
}
