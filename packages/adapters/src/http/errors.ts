import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorName, isVenueError, printable, stringifyJson, VenueError } from '@venue/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BODY_BYTES_MAX, HEADER_BYTES_MAX } from '../config/limits.ts';
import { newRequestId, REQUEST_ID_HEADER } from './request-id.ts';

/**
 * The one place where an HTTP failure becomes the error envelope of spec section 7. Every non-2xx
 * response leaves through `sendError` (or `writeRawError` when there is no request object yet), so
 * none can escape with Fastify's own error shape, an error text or a stack.
 */

/** Fastify's own errors that a client can cause, mapped to the catalogue. */
const FRAMEWORK_ERRORS: Readonly<Record<string, readonly [ErrorName, string]>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [
    'BODY_TOO_LARGE',
    `the body is larger than the limit of ${BODY_BYTES_MAX} bytes`,
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'MALFORMED_REQUEST',
    'the body length does not match its Content-Length',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['MALFORMED_JSON', 'the body is empty; send a JSON object'],
  FST_ERR_BAD_URL: ['INVALID_QUERY', 'the URL is not validly percent-encoded'],
  FST_ERR_MAX_PARAM_LENGTH: ['INVALID_QUERY', 'a path parameter is longer than any valid one'],
};

/** Shown for every unexpected fault. It says nothing about the fault on purpose. */
const INTERNAL_MESSAGE = 'internal error; the request may be retried, quoting the x-request-id header';

/** Logged instead of the error itself: no request payload, no field values beyond the error's own. */
export interface FaultSummary {
  type: string;
  message: string;
  stack?: string;
}

/**
 * Classifies any thrown value. A VenueError or a known framework error is the client's doing and
 * goes back as-is; anything else is a fault of ours, returned as INTERNAL together with a summary
 * for the log.
 */
export function toVenueError(error: unknown): { venueError: VenueError; fault?: FaultSummary } {
  if (isVenueError(error)) return { venueError: error };
  const code = (error as { code?: unknown } | null)?.code;
  const mapped = typeof code === 'string' ? FRAMEWORK_ERRORS[code] : undefined;
  if (mapped !== undefined) return { venueError: new VenueError(mapped[0], mapped[1]) };
  const fault: FaultSummary =
    error instanceof Error
      ? {
          type: error.name,
          message: error.message,
          ...(error.stack === undefined ? {} : { stack: error.stack }),
        }
      : { type: typeof error, message: 'a non-Error value was thrown' };
  return { venueError: new VenueError('INTERNAL', INTERNAL_MESSAGE), fault };
}

/** Outcomes the HTTP server counts for its operator (VenueHttpServer). */
export interface HttpCounters {
  /** Request bodies cut short by the client going away. */
  clientAborts: number;
  /** Connections closed for a head or body that did not arrive in time (slow-loris, stalls). */
  requestTimeouts: number;
}

/** Sockets the server closed for a request timeout: the body reader then sees an 'abort' too. */
const timedOutSockets = new WeakSet<object>();

/** Sends the envelope of `error`, logging faults. Never throws: it is the last line. */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  counters?: HttpCounters,
): void {
  const aborted = isBodyCutShort(error, request);
  const { venueError, fault } = aborted
    ? { venueError: ABORTED_BODY }
    : toVenueError(withRouteBodyLimit(error, request));
  if (aborted) {
    // The client's own doing and routine on the internet: no error line, no stack (issue 20).
    // A body the server cut for its timeout was counted in writeRawError already.
    const timedOut = timedOutSockets.has(request.raw.socket);
    if (counters !== undefined && !timedOut) counters.clientAborts += 1;
    request.log.debug(
      {
        outcome: timedOut ? 'request_timeout' : 'client_aborted',
        method: request.method,
        route: request.routeOptions.url,
      },
      timedOut ? 'the request body did not arrive in time' : 'the client aborted the request body',
    );
  } else if (fault !== undefined) {
    request.log.error({ fault, method: request.method, route: request.routeOptions.url }, 'request failed');
  }
  // Refused before its body was read (auth, route, size): the connection cannot be reused, since
  // the unread body would be parsed as the next request. Close it after this answer.
  if (!request.raw.complete) reply.header('connection', 'close');
  for (const [name, value] of Object.entries(retryHeadersOf(venueError))) reply.header(name, value);
  reply
    .header(REQUEST_ID_HEADER, request.id)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .code(venueError.http)
    .send(stringifyJson(venueError.toEnvelope()));
}

/**
 * 503s that a retry a moment later may pass, with the wait to suggest when the refusal did not give
 * one: the venue busy with proofs or signatures, the journal or the chain briefly unavailable. Pauses
 * (5001, 5002) and a venue stopping (5005) are not on the list: they last until an operator, the
 * circuit breaker or a new boot says so, and a client should watch /info instead of retrying.
 */
const RETRYABLE_503_WAIT_MS: Partial<Record<ErrorName, number>> = {
  AUTH_AT_CAPACITY: 1_000,
  JOURNAL_UNAVAILABLE: 1_000,
  JOURNAL_STALLED: 1_000,
  CHAIN_UNAVAILABLE: 2_000,
  VENUE_BUSY: 1_000,
};

/**
 * The retry headers of an answer: `Retry-After` (whole seconds, at least 1, RFC 9110) on every 429
 * and retryable 503, and the `x-ratelimit-*` trio (limit, remaining, seconds until reset) when the
 * refusal came from a metered allowance. Programs read these instead of the message's words.
 */
export function retryHeadersOf(error: VenueError): Record<string, string> {
  const waitMs = error.retryAfterMs ?? RETRYABLE_503_WAIT_MS[error.errorName];
  if (waitMs === undefined) return {};
  const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));
  const headers: Record<string, string> = { 'retry-after': seconds(waitMs) };
  if (error.rateLimit !== undefined) {
    headers['x-ratelimit-limit'] = String(error.rateLimit.limit);
    headers['x-ratelimit-remaining'] = String(error.rateLimit.remaining);
    headers['x-ratelimit-reset'] = seconds(error.rateLimit.resetMs);
  }
  return headers;
}

/** Answered (to a peer that is usually gone) when the body ends before its Content-Length. */
const ABORTED_BODY = new VenueError('MALFORMED_REQUEST', 'the body ended before its Content-Length');

/**
 * A body cut short: the client closed its connection while sending it, or the server closed the
 * connection for its request timeout. Node then ends the request stream with an ECONNRESET
 * 'aborted' error, which Fastify's body reader hands to the error handler. Only the request's own
 * stream having aborted counts, so an ECONNRESET from a dependency (the chain's RPC) stays a fault.
 */
function isBodyCutShort(error: unknown, request: FastifyRequest): boolean {
  return (error as { code?: unknown } | null)?.code === 'ECONNRESET' && request.raw.readableAborted;
}

/**
 * A route may take a smaller body than BODY_BYTES_MAX (POST /orders: 4096): the message must name
 * the limit that applied, or the client is told to fit under a size that still fails.
 */
function withRouteBodyLimit(error: unknown, request: FastifyRequest): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return error;
  const limit = request.routeOptions.bodyLimit ?? BODY_BYTES_MAX;
  return new VenueError('BODY_TOO_LARGE', `the body is larger than the limit of ${limit} bytes`);
}

/** HTTP methods the 405 check probes; HEAD is served wherever GET is. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

type RouteLookup = (route: { method: string; url: string }) => unknown;

/**
 * The error for a request that matched no route: 405 with an Allow header when the path exists
 * under other methods, else 404. Fastify only knows 404, so 405 is derived from the router.
 */
export function routeMissError(
  findRoute: RouteLookup,
  request: FastifyRequest,
  reply: FastifyReply,
): VenueError {
  const path = request.url.split('?', 1)[0] ?? '';
  const allowed = METHODS.filter((method) => findRoute({ method, url: path }) !== null);
  if (allowed.length === 0) {
    return new VenueError('ROUTE_NOT_FOUND', `no route has the path "${printable(path)}"`);
  }
  reply.header('allow', allowed.join(', '));
  return new VenueError(
    'METHOD_NOT_ALLOWED',
    `${printable(request.method, 10)} is not allowed on "${printable(path)}"; use ${allowed.join(', ')}`,
  );
}

/**
 * For failures Node reports before there is a request object (a malformed request line, headers
 * over HEADER_BYTES_MAX): writes the envelope straight to the socket and closes it.
 */
export function writeRawError(error: NodeJS.ErrnoException, socket: Socket, counters?: HttpCounters): void {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    timedOutSockets.add(socket);
    if (counters !== undefined) counters.requestTimeouts += 1;
  }
  // A reset or timed-out connection has nobody left to read an answer.
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A request whose answer has already started (say, a chunked body that turns malformed after the
  // venue answered its head) gets no second answer: the connection is simply closed.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (current?.headersSent === true) {
    socket.destroy();
    return;
  }
  const venueError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new VenueError(
          'HEADERS_TOO_LARGE',
          `the request head is larger than the limit of ${HEADER_BYTES_MAX} bytes`,
        )
      : new VenueError('MALFORMED_REQUEST', 'the HTTP request is malformed; send a valid HTTP/1.1 request');
  writeRawEnvelope(socket, venueError);
}

/** Writes one envelope as a complete HTTP/1.1 response and closes the connection. */
export function writeRawEnvelope(
  socket: Duplex,
  venueError: VenueError,
  headers: Record<string, string> = {},
): void {
  const body = stringifyJson(venueError.toEnvelope());
  const extra = Object.entries({ ...retryHeadersOf(venueError), ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${venueError.http} ${STATUS_CODES[venueError.http] ?? 'Error'}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${newRequestId()}\r\n` +
      extra +
      'connection: close\r\n\r\n' +
      body,
  );
}
