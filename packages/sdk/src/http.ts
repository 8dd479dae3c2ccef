import https from 'node:https';
import { decode, JsonNumberToken, parseJsonText } from '@venue/protocol';
import { VenueApiError } from './errors.ts';
import { RESPONSE_BYTES_MAX } from './limits.ts';
import { presentedSpkiSha256, type SpkiAgent } from './pinning.ts';

/**
 * One HTTPS exchange with the venue over an SpkiAgent. It returns the raw text and the SPKI hash of
 * the socket that carried it; the callers decode bodies with the protocol's schemas.
 */

export interface HttpExchange {
  readonly status: number;
  readonly text: string;
  readonly requestId: string | undefined;
  /** The answer's `Retry-After` header in milliseconds (429 and retryable 503 answers carry one). */
  readonly retryAfterMs?: number | undefined;
  /** The SPKI hash of the certificate of the socket the response came on. */
  readonly spkiSha256: string | null;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: string;
  readonly token?: string;
  readonly timeoutMs: number;
}

/**
 * One exchange; if it failed because the venue had just closed an idle keep-alive socket (the
 * request went out on a reused socket and met ECONNRESET), it is sent once more on a new connection,
 * as Node's documentation advises. The venue did not read the first copy. The agent's other idle
 * sockets are closed first: when one pooled socket is dead (the venue restarted, a middlebox timed
 * out), the others usually are too, and the second copy must not meet the next of them.
 */
export async function httpExchange(
  agent: SpkiAgent,
  origin: URL,
  request: HttpRequest,
): Promise<HttpExchange> {
  try {
    return await exchangeOnce(agent, origin, request);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    agent.dropIdleSockets();
    return exchangeOnce(agent, origin, request);
  }
}

class StaleSocketError extends Error {}

function exchangeOnce(agent: SpkiAgent, origin: URL, request: HttpRequest): Promise<HttpExchange> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.token !== undefined) headers['authorization'] = `Bearer ${request.token}`;
  if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(request.body));
  }
  return new Promise((resolve, reject) => {
    const outgoing = https.request(
      {
        host: origin.hostname.replace(/^\[|\]$/g, ''),
        port: origin.port === '' ? 443 : Number(origin.port),
        path: request.path,
        method: request.method,
        headers,
        agent,
        timeout: request.timeoutMs,
      },
      (response) => {
        // Read now: once the body has ended, a keep-alive socket returns to the agent.
        const spkiSha256 = presentedSpkiSha256(response.socket);
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > RESPONSE_BYTES_MAX) {
            outgoing.destroy(new Error(`response to ${request.path} exceeds ${RESPONSE_BYTES_MAX} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const requestId = response.headers['x-request-id'];
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            requestId: typeof requestId === 'string' ? requestId : undefined,
            retryAfterMs: retryAfterMsOf(response.headers['retry-after']),
            spkiSha256,
          });
        });
      },
    );
    outgoing.on('timeout', () =>
      outgoing.destroy(
        new Error(`${request.method} ${request.path}: no answer within ${request.timeoutMs} ms`),
      ),
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        outgoing.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocketError(error.message) : error,
      ),
    );
    outgoing.end(request.body);
  });
}

/**
 * The error envelope of a non-2xx answer (spec 7) as a VenueApiError. A body that is not the
 * envelope (a proxy's HTML page, say) still becomes one, with code 0 and the status in the message.
 */
export function apiErrorOf(exchange: HttpExchange): VenueApiError {
  let code = 0;
  let message = `HTTP ${exchange.status} without the venue's error envelope`;
  try {
    const body = parseJsonText(exchange.text, RESPONSE_BYTES_MAX);
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const fields = body as Record<string, unknown>;
      const rawCode = fields['code'];
      const rawMessage = fields['message'];
      // The lossless parser gives numbers as tokens; codes are small integers.
      const parsedCode = rawCode instanceof JsonNumberToken ? Number(rawCode.text) : Number.NaN;
      if (Number.isSafeInteger(parsedCode) && typeof rawMessage === 'string') {
        code = parsedCode;
        message = rawMessage;
      }
    }
  } catch {
    // Keep the generic message: the body was not JSON.
  }
  return new VenueApiError({
    status: exchange.status,
    code,
    message,
    requestId: exchange.requestId,
    retryAfterMs: exchange.retryAfterMs,
  });
}

/**
 * `Retry-After` as milliseconds: delay-seconds (what the venue sends) or an HTTP date (what a proxy
 * in between might send). Anything else is ignored.
 */
export function retryAfterMsOf(header: string | undefined, nowMs = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  if (/^\d{1,9}$/.test(header.trim())) return Number(header.trim()) * 1000;
  if (!/ GMT$/.test(header.trim())) return undefined; // an IMF-fixdate, the only date form HTTP allows
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

type Schema = Parameters<typeof decode>[0];

/**
 * Decodes a success body strictly with the protocol's schema, as the venue encoded it. Fields that a
 * later minor version adds are ignored (they cannot be refused without breaking old clients); every
 * known field must still have its exact shape. Bodies may be larger than a request's limit (an
 * account with many open orders), so the size bound here is RESPONSE_BYTES_MAX.
 */
export function decodeResponse<S extends Schema>(schema: S, text: string): ReturnType<typeof decode<S>> {
  return decode(schema, parseJsonText(text, RESPONSE_BYTES_MAX), { unknownFields: 'ignore' });
}
