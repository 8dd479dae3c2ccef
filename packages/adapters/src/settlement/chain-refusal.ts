/**
 * Which errors of a chain call settlement handles. The chain refusing a request is an operating
 * error: the pipeline leaves the batch unknown and retries it, and the chain's own records decide
 * the outcome (a refusal that holds ends in `confirmation_timeout` at the batch's deadline).
 * Anything else escaping a chain call (an AssertionError, a TypeError, an error the chain client
 * does not document) is a programmer error here or in the client, and crashes the venue instead of
 * passing for a slow chain (protocol/src/assert.ts).
 *
 * The refusal is chain-sim's ChainError, recognised by its name and reason because the adapters may
 * not import the simulator (scripts/test/architecture.test.ts).
 */
export function isChainRefusal(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ChainError' &&
    'reason' in error &&
    typeof error.reason === 'string'
  );
}
