import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { REQUEST_ID_LENGTH_MAX } from '../config/limits.ts';

/**
 * spec section 4: `x-request-id` is on every response. A client's own id is echoed when it is a
 * short printable token (the protocol's RequestId pattern), so it can be logged safely on both
 * sides; anything else is replaced by a fresh random id rather than refused, because a correlation
 * header should never be the reason a request fails.
 */
export const REQUEST_ID_HEADER = 'x-request-id';

const CLIENT_REQUEST_ID = new RegExp(`^[A-Za-z0-9._:-]{1,${REQUEST_ID_LENGTH_MAX}}$`);

export function newRequestId(): string {
  return randomUUID();
}

/** Fastify's genReqId: the id the request is logged under and that the response carries. */
export function requestIdOf(request: IncomingMessage): string {
  const offered = request.headers[REQUEST_ID_HEADER];
  return typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : newRequestId();
}
