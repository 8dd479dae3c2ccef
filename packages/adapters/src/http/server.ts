import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { assert, parseJsonText, stringifyJson, VenueError } from '@venue/protocol';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { VenueClock } from '../chain/clock.ts';
import {
  BODY_BYTES_MAX,
  CONNECTIONS_MAX,
  CONNECTIONS_PER_ADDRESS_MAX,
  checkLimitRelations,
  HEADER_BYTES_MAX,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  REQUEST_TIMEOUT_CHECK_INTERVAL_MS,
  REQUEST_TIMEOUT_MS,
  TLS_HANDSHAKE_TIMEOUT_MS,
} from '../config/limits.ts';
import type { BootIdentity } from '../enclave/boot-identity.ts';
import { createVenueLogger, type LogLevel, type VenueLogger } from '../telemetry/venue-logger.ts';
import { ConnectionsPerAddress } from './connections-per-address.ts';
import { type HttpCounters, routeMissError, sendError, writeRawEnvelope, writeRawError } from './errors.ts';
import { registerPublicRoutes, type VenueGates, type VenueParameters } from './public-routes.ts';
import { newRequestId, REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import type { RoutePlugin, VenueFastify } from './types.ts';

export { LOG_LEVELS, type LogLevel } from '../telemetry/venue-logger.ts';

export interface HttpServerOptions {
  /** This boot's session id and TLS certificate; the server speaks HTTPS with it and nothing else. */
  readonly identity: BootIdentity;
  readonly clock: VenueClock;
  readonly parameters: VenueParameters;
  /** Current trading gates; until markets and attestation exist, all gates are open. */
  readonly gates?: () => VenueGates;
  readonly routes?: readonly RoutePlugin[];
  /**
   * Server-side log in the venue's one format (telemetry/venue-logger.ts): a level and destination
   * (warnings and worse on stderr by default), or the logger of a process that writes more lines
   * than the server's (`venue serve`).
   */
  readonly log?:
    | { readonly level: LogLevel; readonly stream?: { write(line: string): void } }
    | { readonly logger: VenueLogger };
  /** Connection bounds apart from limits.ts's (tests shorten timeouts, count loopback). */
  readonly transport?: Partial<HttpTransport>;
}

/**
 * The bounds on one connection's life and on connections per address (docs/security.md
 * "Connection timeouts"). Production runs HTTP_TRANSPORT; `venue serve` may set the cap.
 */
export interface HttpTransport {
  /** A TCP connection must finish its TLS handshake within this. */
  readonly tlsHandshakeTimeoutMs: number;
  /** A request head must arrive within this; at most requestTimeoutMs (Node swaps them otherwise). */
  readonly headersTimeoutMs: number;
  /** A whole request, head and body, must arrive within this. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  readonly connectionsPerAddressMax: number;
  /**
   * Whether loopback peers count against the cap. Off in production: a loopback peer is the host's
   * own software (the operator's tools, benchmarks, a local proxy that must cap addresses itself).
   * Tests, which all run on loopback, turn it on to exercise the cap.
   */
  readonly loopbackCounted: boolean;
}

export const HTTP_TRANSPORT: HttpTransport = {
  tlsHandshakeTimeoutMs: TLS_HANDSHAKE_TIMEOUT_MS,
  headersTimeoutMs: HEADERS_TIMEOUT_MS,
  requestTimeoutMs: REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
  connectionsPerAddressMax: CONNECTIONS_PER_ADDRESS_MAX,
  loopbackCounted: false,
};

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
  /** Connections refused by the per-address cap since start (an operator metric). */
  readonly connectionsRefusedPerAddress: number;
  /** Requests whose client went away before sending the whole body, since start. */
  readonly clientAborts: number;
  /** Connections closed because a head or body did not arrive in time, since start. */
  readonly requestTimeouts: number;
}

const ALL_GATES_OPEN: VenueGates = { pauseReasons: [], marketsPaused: 0 };

export function createHttpServer(options: HttpServerOptions): VenueHttpServer {
  checkLimitRelations();
  const transport = transportOf(options.transport);
  const counters: HttpCounters = { clientAborts: 0, requestTimeouts: 0 };
  const app: VenueFastify = Fastify({
    https: {
      ...options.identity.tlsCredentials(),
      // Clients are our SDK, curl and bots on current runtimes: no reason to offer older TLS.
      minVersion: 'TLSv1.3',
      handshakeTimeout: transport.tlsHandshakeTimeoutMs,
      maxHeaderSize: HEADER_BYTES_MAX,
      connectionsCheckingInterval: REQUEST_TIMEOUT_CHECK_INTERVAL_MS,
      // Both given at construction: Fastify sets requestTimeout only afterwards, which left Node's
      // headersTimeout at its 60 s default; Node then bounds a body by the larger of the two.
      headersTimeout: transport.headersTimeoutMs,
      requestTimeout: transport.requestTimeoutMs,
      // Node would answer a missing Host itself, without our envelope; guardRequest refuses it.
      requireHostHeader: false,
    },
    bodyLimit: BODY_BYTES_MAX,
    requestTimeout: transport.requestTimeoutMs,
    keepAliveTimeout: transport.keepAliveTimeoutMs,
    // Requests during shutdown get our own 503 envelope from the onRequest hook below.
    return503OnClosing: false,
    genReqId: requestIdOf,
    // One log line per request would be noise at this rate; faults are logged where they happen.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    // The venue's own pino logger, typed as Fastify's base logger (the subset Fastify calls).
    loggerInstance: loggerOf(options.log) as FastifyBaseLogger,
    frameworkErrors: (error, request, reply) => sendError(error, request, reply, counters),
    clientErrorHandler: (error, socket) => writeRawError(error, socket, counters),
  });
  const server = app.server;
  assert(
    server.headersTimeout === transport.headersTimeoutMs &&
      server.requestTimeout === transport.requestTimeoutMs,
    `the server runs headersTimeout ${server.headersTimeout} and requestTimeout ${server.requestTimeout}`,
  );
  server.maxConnections = CONNECTIONS_MAX;
  // Node only reports a handshake that failed or timed out (tlsClientError) and leaves the socket
  // open: a TCP connection that never sent a ClientHello lived for good. Close it.
  server.on('tlsClientError', (_error, socket) => socket.destroy());
  const perAddress = new ConnectionsPerAddress({
    max: transport.connectionsPerAddressMax,
    loopbackCounted: transport.loopbackCounted,
  });
  perAddress.attach(server);
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
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply, counters));
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
    get connectionsRefusedPerAddress() {
      return perAddress.refused;
    },
    get clientAborts() {
      return counters.clientAborts;
    },
    get requestTimeouts() {
      return counters.requestTimeouts;
    },
  };
}

function loggerOf(log: HttpServerOptions['log']): VenueLogger {
  if (log !== undefined && 'logger' in log) return log.logger;
  return createVenueLogger({
    level: log?.level ?? 'warn',
    ...(log?.stream === undefined ? {} : { stream: log.stream }),
  });
}

/** The transport with overrides applied, its relations checked as limits.ts checks the defaults. */
function transportOf(overrides: Partial<HttpTransport> = {}): HttpTransport {
  const transport = { ...HTTP_TRANSPORT, ...overrides };
  const timeouts = [
    transport.tlsHandshakeTimeoutMs,
    transport.headersTimeoutMs,
    transport.requestTimeoutMs,
    transport.keepAliveTimeoutMs,
  ];
  assert(
    timeouts.every((ms) => Number.isInteger(ms) && ms > 0),
    `transport timeouts must be positive integers: ${timeouts.join(', ')}`,
  );
  assert(
    transport.headersTimeoutMs <= transport.requestTimeoutMs,
    `headersTimeoutMs ${transport.headersTimeoutMs} must not exceed requestTimeoutMs ${transport.requestTimeoutMs}`,
  );
  assert(
    transport.connectionsPerAddressMax >= 1 && transport.connectionsPerAddressMax <= CONNECTIONS_MAX,
    `connectionsPerAddressMax ${transport.connectionsPerAddressMax} must be within 1 to ${CONNECTIONS_MAX}`,
  );
  return transport;
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
