/**
 * Assertions for programmer errors (TigerBeetle style): kept on in production, they crash loudly
 * instead of letting a broken invariant reach the book or the chain. Operating errors (bad client
 * input) are VenueErrors, never assertions.
 */
export class AssertionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AssertionError';
  }
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
