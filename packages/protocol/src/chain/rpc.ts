import Type, { type TSchema } from 'typebox';
import { ERRORS, type ErrorName } from '../errors/catalogue.ts';
import { isVenueError, VenueError } from '../errors/venue-error.ts';
import { JsonNumberToken, parseJsonText, stringifyJson } from '../json/json-text.ts';
import { decode } from '../schema/decode.ts';
import { toWire } from '../schema/encode.ts';
import { OneOf, Strict } from '../schema/primitives.ts';
import {
  CHAIN_REJECTION_CODES,
  CHAIN_REJECTIONS,
  CHAIN_RPC_ERRORS,
  ChainError,
  type ChainRejection,
} from './errors.ts';
import type { ChainStatic } from './frozen.ts';
import { RPC_BODY_BYTES_MAX } from './limits.ts';
import {
  CHAIN_METHODS,
  type ChainAnswer,
  type ChainHandlers,
  type ChainMethod,
  type ChainParams,
  type ChainResult,
  isChainMethod,
} from './methods.ts';

/**
 * JSON-RPC 2.0 as the chain speaks it (docs/chain-sim.md section 11): one request object, one
 * response object, no batches, no notifications. Both ends go through this file, the server with
 * `serveChainCall`, the clients with `chainRequestText` and `readChainReply`, so a request a client
 * builds is one the server decodes and a reply the server writes is one the clients decode, by
 * construction. Integers are bare JSON integers of any size, read exactly (json-text.ts).
 */

/** A request id: the venue's client counts, the SDK sends a UUID. */
export type ChainRpcId = string | bigint;

/** The error object of a failed call: a chain rejection carries `data.reason`, a protocol error its name. */
export const ChainRpcErrorSchema = Strict(
  {
    code: Type.Integer({ minimum: -32768, maximum: -32000, 'x-expected': 'a JSON-RPC error code' }),
    message: Type.String(),
    data: Type.Optional(
      Strict({
        reason: Type.Optional(OneOf(CHAIN_REJECTIONS)),
        venue_code: Type.Optional(Type.Integer({ minimum: 1000, maximum: 9999 })),
        name: Type.Optional(Type.String({ maxLength: 64 })),
      }),
    ),
  },
  { title: 'ChainRpcError' },
);
export interface ChainRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?:
    | { readonly reason: ChainRejection }
    | { readonly venue_code: number; readonly name: ErrorName };
}

// ---- clients ----

/** The text of one call, its params written through the method's schema. */
export function chainRequestText<M extends ChainMethod>(
  id: ChainRpcId,
  method: M,
  params: ChainParams<M>,
): string {
  return stringifyJson({ jsonrpc: '2.0', id, method, params: toWire(CHAIN_METHODS[method].params, params) });
}

/** What a reply said: the decoded result, the chain's error, or why the text is no reply to this call. */
export type ChainReply<M extends ChainMethod> =
  | { readonly kind: 'result'; readonly result: ChainResult<M> }
  | {
      readonly kind: 'error';
      readonly code: number;
      readonly message: string;
      /** The chain's rejection, when it refused the action. */
      readonly reason: ChainRejection | undefined;
      /** The protocol error, when a read in the protocol's shapes failed. */
      readonly venueError: ErrorName | undefined;
    }
  | { readonly kind: 'malformed'; readonly problem: string };

/**
 * Reply bytes as text, read as Buffer#toString reads them: invalid UTF-8 as U+FFFD, and a leading
 * byte-order mark kept (TextDecoder's default drops it, which would let a reply with one parse).
 */
const REPLY_UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** readChainReply of a reply's bytes as they came off the socket. */
export function readChainReplyBytes<M extends ChainMethod>(
  method: M,
  id: ChainRpcId,
  bytes: Uint8Array,
  bytesMax: number = RPC_BODY_BYTES_MAX,
): ChainReply<M> {
  return readChainReply(method, id, REPLY_UTF8.decode(bytes), bytesMax);
}

/** Reads a reply to `id`: strict JSON-RPC 2.0, the result decoded against the method's schema. */
export function readChainReply<M extends ChainMethod>(
  method: M,
  id: ChainRpcId,
  text: string,
  bytesMax: number = RPC_BODY_BYTES_MAX,
): ChainReply<M> {
  let reply: unknown;
  try {
    reply = parseJsonText(text, bytesMax);
  } catch (error) {
    return { kind: 'malformed', problem: `the reply is not JSON: ${(error as Error).message}` };
  }
  if (!isObject(reply)) return { kind: 'malformed', problem: 'the reply is not a JSON-RPC response object' };
  const hasResult = Object.hasOwn(reply, 'result');
  const hasError = Object.hasOwn(reply, 'error');
  if (reply['jsonrpc'] !== '2.0' || hasResult === hasError)
    return {
      kind: 'malformed',
      problem: 'the reply is not a JSON-RPC 2.0 response (jsonrpc "2.0" and one of result or error)',
    };
  // An error about the request itself (unparsable, too large) carries id null.
  if (!sameId(reply['id'], id) && !(hasError && reply['id'] === null))
    return { kind: 'malformed', problem: 'the reply answers another request id' };
  try {
    // The method's own result schema: its static type is ChainResult<M>, which TypeScript cannot see.
    if (hasResult)
      return {
        kind: 'result',
        result: decode(CHAIN_METHODS[method].result, reply['result']) as ChainResult<M>,
      };
    const error = decode(ChainRpcErrorSchema, reply['error']);
    const name = error.data?.name;
    return {
      kind: 'error',
      code: error.code,
      message: error.message,
      reason: error.data?.reason,
      venueError: name !== undefined && Object.hasOwn(ERRORS, name) ? (name as ErrorName) : undefined,
    };
  } catch (error) {
    if (!isVenueError(error)) throw error;
    return {
      kind: 'malformed',
      problem: `the ${hasResult ? 'result' : 'error'} does not decode: ${error.message}`,
    };
  }
}

function sameId(value: unknown, id: ChainRpcId): boolean {
  if (typeof id === 'string') return value === id;
  return value instanceof JsonNumberToken && value.text === id.toString();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumberToken)
  );
}

// ---- the server ----

/**
 * One request text in, one response text out: the envelope checked, the params decoded against
 * the method's schema (a malformed one is the chain's `bad_request`, naming the field), the
 * handler run, its result written through the method's schema.
 */
export function serveChainCall<Context>(
  handlers: ChainHandlers<Context>,
  context: Context,
  text: string,
): string {
  let parsed: unknown;
  try {
    parsed = parseJsonText(text, RPC_BODY_BYTES_MAX);
  } catch (error) {
    return chainFailureText(null, {
      code: CHAIN_RPC_ERRORS.parse,
      message: error instanceof Error ? error.message : 'unreadable JSON',
    });
  }
  if (!isObject(parsed))
    return chainFailureText(null, {
      code: CHAIN_RPC_ERRORS.invalidRequest,
      message: 'expected one JSON-RPC request object',
    });
  const id = idOf(parsed['id']);
  const name = parsed['method'];
  if (parsed['jsonrpc'] !== '2.0' || typeof name !== 'string' || id === undefined)
    return chainFailureText(null, {
      code: CHAIN_RPC_ERRORS.invalidRequest,
      message: 'expected jsonrpc "2.0", a method name and an id',
    });
  if (!isChainMethod(name))
    return chainFailureText(id, {
      code: CHAIN_RPC_ERRORS.methodNotFound,
      message: `no method ${JSON.stringify(name.slice(0, 60))}`,
    });
  try {
    return answer(handlers, context, id, name, parsed['params'] ?? {});
  } catch (error) {
    return chainFailureText(id, chainErrorOf(error));
  }
}

/**
 * Decodes, runs and writes one call. The cast is where TypeScript cannot follow a method name to
 * its own params and result types at once; the table's mapped type ties them together.
 */
function answer<Context, M extends ChainMethod>(
  handlers: ChainHandlers<Context>,
  context: Context,
  id: ChainRpcId | null,
  method: M,
  rawParams: unknown,
): string {
  const schemas = CHAIN_METHODS[method];
  let params: ChainParams<M>;
  try {
    params = decode(schemas.params, rawParams) as ChainParams<M>;
  } catch (error) {
    if (!isVenueError(error)) throw error;
    throw new ChainError('bad_request', `params: ${error.message}`);
  }
  const handler = handlers[method] as (context: Context, params: ChainParams<M>) => ChainAnswer<M>;
  const result = handler(context, params);
  return stringifyJson({ jsonrpc: '2.0', id, result: toWire(schemas.result, result as never) });
}

/**
 * An in-process message checked exactly as the server checks it on the wire: written, read back
 * and decoded against its schema. So a chain called in-process refuses what it would refuse over
 * JSON-RPC, with the same `bad_request` and the same words.
 */
export function checkChainMessage<T extends TSchema>(
  schema: T,
  value: ChainStatic<T>,
  name: string,
): ChainStatic<T> {
  try {
    return decode(
      schema,
      parseJsonText(stringifyJson(toWire(schema, value as never)), RPC_BODY_BYTES_MAX),
    ) as ChainStatic<T>;
  } catch (error) {
    if (!isVenueError(error)) throw error;
    throw new ChainError('bad_request', `${name}: ${error.message}`);
  }
}

const CANONICAL_INTEGER = /^(?:0|-?[1-9][0-9]*)$/;

function idOf(value: unknown): ChainRpcId | null | undefined {
  if (value === null || typeof value === 'string') return value;
  if (value instanceof JsonNumberToken && CANONICAL_INTEGER.test(value.text)) return BigInt(value.text);
  return undefined;
}

/** A failure reply, for a call (its id) or for a text that is no call (id null). */
export function chainFailureText(id: ChainRpcId | null, error: ChainRpcErrorObject): string {
  return stringifyJson({ jsonrpc: '2.0', id, error });
}

/** The error object of what a handler threw: a chain rejection, a protocol error, or a bug. */
export function chainErrorOf(error: unknown): ChainRpcErrorObject {
  if (error instanceof ChainError) {
    return {
      code: CHAIN_REJECTION_CODES[error.reason],
      message: error.message,
      data: { reason: error.reason },
    };
  }
  if (error instanceof VenueError) {
    return {
      code: CHAIN_RPC_ERRORS.venue,
      message: error.message,
      data: { venue_code: error.code, name: error.errorName },
    };
  }
  // A programmer error inside the chain: say so, without a stack.
  return {
    code: CHAIN_RPC_ERRORS.internal,
    message: error instanceof Error ? `internal error: ${error.message}` : 'internal error',
  };
}
