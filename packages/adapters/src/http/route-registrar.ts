import { assert, decode, type HttpMethod, ROUTES, type RouteDef, Strict, VenueError } from '@venue/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthService, Principal } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import type { VenueFastify } from './types.ts';

/**
 * Registers routes from the protocol's route catalogue (ROUTES), so that what the server accepts
 * is exactly what the OpenAPI document says. For each route, in this order:
 *   1. authentication from the Authorization header, before the body is even read (401/403);
 *   2. path parameters and query decoded strictly (a repeated query parameter is INVALID_QUERY);
 *   3. the body decoded strictly against the route's schema, or refused if the route takes none;
 *   4. the handler, whose return value is the 200 body, never wrapped (spec 4).
 */
export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Present on every route whose auth is not `none`. */
  readonly principal: Principal | undefined;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

export interface RouteHandler {
  readonly method: HttpMethod;
  readonly path: string;
  /**
   * Order routes decode their body themselves (decodePlaceOrder adds the stateless spec 2.1
   * rules); everyone else gets the body decoded by the route's schema.
   */
  readonly rawBody?: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: each handler types its own context.
  readonly handle: (context: RouteContext<any, any, any>) => unknown;
}

/** The caller of a route whose auth is not `none`; the registrar guarantees there is one. */
export function principalOf(context: RouteContext): Principal {
  assert(context.principal !== undefined, 'an authenticated route ran without a principal');
  return context.principal;
}

/** An empty strict object: a body sent to a route that takes none is refused field by field. */
const NO_BODY = Strict({}, { title: 'NoBody' });

export function registerRoutes(
  app: VenueFastify,
  handlers: readonly RouteHandler[],
  deps: { readonly auth?: AuthService; readonly clock: VenueClock },
): void {
  for (const handler of handlers) {
    const route = ROUTES.find((r) => r.method === handler.method && r.path === handler.path);
    assert(route !== undefined, `no catalogue route ${handler.method} ${handler.path}`);
    const principals = new WeakMap<FastifyRequest, Principal>();
    app.route({
      method: route.method,
      url: route.path,
      ...(route.bodyBytesMax === undefined ? {} : { bodyLimit: route.bodyBytesMax }),
      onRequest: async (request) => {
        // Fastify does not read GET bodies at all, so "takes no body" is judged on the headers.
        if (route.body === undefined && declaresBody(request)) {
          throw new VenueError('MALFORMED_REQUEST', `${route.method} ${route.path} takes no body; send none`);
        }
        if (route.auth === 'none') return;
        assert(deps.auth !== undefined, `${route.method} ${route.path} needs the account layer`);
        const principal = await deps.auth.authenticateHeader(
          request.headers.authorization,
          route.auth,
          deps.clock.nowMs(),
        );
        principals.set(request, principal);
      },
      handler: async (request, reply) => {
        const context: RouteContext = {
          params: route.params === undefined ? {} : decode(route.params, request.params),
          query: decodeQuery(route, request.query),
          body: bodyOf(route, handler, request.body),
          principal: principals.get(request),
          request,
          reply,
        };
        return handler.handle(context);
      },
    });
  }
}

function declaresBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function decodeQuery(route: RouteDef, query: unknown): unknown {
  const entries = Object.entries((query ?? {}) as Record<string, unknown>);
  const repeated = entries.find(([, value]) => Array.isArray(value));
  if (repeated !== undefined) {
    throw new VenueError('INVALID_QUERY', `query parameter \`${repeated[0]}\` is given more than once`);
  }
  if (route.query === undefined) {
    if (entries.length > 0) {
      throw new VenueError('UNKNOWN_FIELD', `query parameter \`${entries[0]?.[0]}\`: this route takes none`);
    }
    return {};
  }
  return decode(route.query, query ?? {});
}

function bodyOf(route: RouteDef, handler: RouteHandler, body: unknown): unknown {
  if (route.body === undefined) {
    if (body !== undefined) decode(NO_BODY, body);
    return undefined;
  }
  if (body === undefined)
    throw new VenueError('MALFORMED_JSON', 'this route needs a JSON body; none was sent');
  return handler.rawBody === true ? body : decode(route.body, body);
}
