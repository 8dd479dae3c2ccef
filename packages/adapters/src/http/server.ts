import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { parseJsonText, stringifyJson, VenueError } from '@venue/protocol';
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { VenueClock } from '../chain/clock.ts';
import {
  BODY_BYTES_MAX,
  CONNECTIONS_MAX,
  checkLimitRelations,
  HEADER_BYTES_MAX,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_CHECK_INTERVAL_MS,
  REQUEST_TIMEOUT_MS,
  TLS_HANDSHAKE_TIMEOUT_MS,
} from '../config/limits.ts';
import type { BootIdentity } from '../enclave/boot-identity.ts';
import { routeMissError, sendError, writeRawEnvelope, writeRawError } from './errors.ts';
import { registerPublicRoutes, type VenueGates, type VenueParameters } from './public-routes.ts';
import { newRequestId, REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import type { RoutePlugin, VenueFastify } from './types.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface HttpServerOptions {
  /** This boot's session id and TLS certificate; the server speaks HTTPS with it and nothing else. */
  readonly identity: BootIdentity;
  readonly clock: VenueClock;
  readonly parameters: VenueParameters;
  /** Current trading gates; until markets and attestation exist, all gates are open. */
  readonly gates?: () => VenueGates;
  readonly routes?: readonly RoutePlugin[];
  /** Server-side log (JSON lines). Defaults to warnings and worse on stderr. */
  readonly log?: { readonly level: LogLevel; readonly stream?: { write(line: string): void } };
}

export interface VenueHttpServer {
  readonly app: VenueFastify;
  /** Starts listening; port 0 picks a free port. Resolves with the bound address. */
  listen(address: { host: string; port: number }): Promise<{ host: string; port: number }>;
  /**
   * Graceful stop: refuses new connections, lets in-flight requests finish (closing their
   * connections after the response), answers any further request on an open connection with
   * 503/5005, and resolves once every connection is gone.
   */
  close(): Promise<void>;
}

const ALL_GATES_OPEN: VenueGates = { pauseReasons: [], marketsPaused: 0 };

export function createHttpServer(options: HttpServerOptions): VenueHttpServer {
  checkLimitRelations();
  const app: VenueFastify = Fastify({
    https: {
      ...options.identity.tlsCredentials(),
      // Clients are our SDK, curl and bots on current runtimes: no reason to offer older TLS.
      minVersion: 'TLSv1.3',
      handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
      maxHeaderSize: HEADER_BYTES_MAX,
      connectionsCheckingInterval: REQUEST_TIMEOUT_CHECK_INTERVAL_MS,
      // Node would answer a missing Host itself, without our envelope; guardRequest refuses it.
      requireHostHeader: false,
    },
    bodyLimit: BODY_BYTES_MAX,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // Requests during shutdown get our own 503 envelope from the onRequest hook below.
    return503OnClosing: false,
    genReqId: requestIdOf,
    // One log line per request would be noise at this rate; faults are logged where they happen.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    logger: {
      level: options.log?.level ?? 'warn',
      stream: options.log?.stream ?? process.stderr,
    },
    frameworkErrors: (error, request, reply) => sendError(error, request, reply),
    clientErrorHandler: writeRawError,
  });
  app.server.maxConnections = CONNECTIONS_MAX;
  answerOutsideFastify(app);

  installJsonBodyParser(app);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => guardRequest(app, request, reply, closing));
  // A response finished while stopping closes its connection, or close() would wait for keep-alive.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.setReplySerializer((payload) => stringifyJson(payload));
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  // Fallback only: onRequest already answers every request that matched no route.
  app.setNotFoundHandler(async (request, reply) => {
    throw routeMissError((route) => app.findRoute(route), request, reply);
  });

  registerPublicRoutes(app, {
    session: options.identity,
    clock: options.clock,
    parameters: options.parameters,
    gates: options.gates ?? (() => ALL_GATES_OPEN),
  });
  for (const plugin of options.routes ?? []) plugin(app);

  return {
    app,
    async listen({ host, port }) {
      await app.listen({ host, port });
      const bound = app.server.address() as AddressInfo;
      return { host: bound.address, port: bound.port };
    },
    close: () => {
      // Set at once, not in preClose, so a response already being produced sees it.
      closing = true;
      return app.close();
    },
  };
}

/**
 * The first hook of every request, routed or not. It runs before any body is read, so a request
 * the venue refuses anyway costs no buffering. Order: response headers, shutdown, size, route.
 */
async function guardRequest(
  app: VenueFastify,
  request: FastifyRequest,
  reply: FastifyReply,
  closing: boolean,
): Promise<void> {
  reply.header(REQUEST_ID_HEADER, request.id).header('cache-control', 'no-store');
  if (closing) throw new VenueError('SHUTTING_DOWN', 'the venue is stopping; reconnect to the next boot');
  if (request.headers.host === undefined) {
    throw new VenueError('MALFORMED_REQUEST', 'an HTTP/1.1 request needs a Host header');
  }
  const declaredBytes = Number(request.headers['content-length'] ?? 0);
  // The route's own limit where it has one (POST /orders takes 4096 bytes), so the message names
  // the size that would actually pass.
  const bytesMax = request.routeOptions.bodyLimit ?? BODY_BYTES_MAX;
  if (declaredBytes > bytesMax) {
    // The body stays unread; closing spares the server from draining it to reuse the connection.
    reply.header('connection', 'close');
    throw new VenueError('BODY_TOO_LARGE', `the body is larger than the limit of ${bytesMax} bytes`);
  }
  if (request.is404) throw routeMissError((route) => app.findRoute(route), request, reply);
}

/**
 * Requests Node answers by itself unless told otherwise: an Expect other than 100-continue (a bare
 * 417) and CONNECT (silently dropped). Both get the envelope instead.
 */
function answerOutsideFastify(app: VenueFastify): void {
  app.server.on('checkExpectation', (_request, response) => {
    const error = new VenueError('MALFORMED_REQUEST', 'the venue supports no Expect value but 100-continue');
    response.writeHead(error.http, {
      'content-type': 'application/json; charset=utf-8',
      [REQUEST_ID_HEADER]: newRequestId(),
      connection: 'close',
    });
    response.end(stringifyJson(error.toEnvelope()));
  });
  app.server.on('connect', (_request, socket: Duplex) => {
    writeRawEnvelope(
      socket,
      new VenueError('METHOD_NOT_ALLOWED', 'CONNECT is not served; the venue is not a proxy'),
      { allow: 'GET, HEAD, POST, PUT, DELETE' },
    );
  });
}

/**
 * JSON is the only body type (spec section 2), parsed by the protocol's strict lossless parser so
 * that u64 values keep every digit and repeated keys are refused. Routes then decode the parsed
 * value against their schema. Other media types get 415/1011.
 */
function installJsonBodyParser(app: VenueFastify): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonText(body as string, BODY_BYTES_MAX));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
