import { ChainError } from '@venue/protocol';

/**
 * Which errors of a chain call settlement handles. The chain refusing a request is an operating
 * error: the pipeline leaves the batch unknown and retries it, and the chain's own records decide
 * the outcome (a refusal that holds ends in `confirmation_timeout` at the batch's deadline).
 * Anything else escaping a chain call (an AssertionError, a TypeError, an error the chain client
 * does not document) is a programmer error here or in the client, and crashes the venue instead of
 * passing for a slow chain (protocol/src/assert.ts).
 *
 * The refusal is the chain contract's ChainError (protocol/src/chain/errors.ts), which the
 * in-process simulator throws and the RPC client rebuilds from the chain's error reply.
 */
export function isChainRefusal(error: unknown): error is ChainError {
  return error instanceof ChainError;
}
