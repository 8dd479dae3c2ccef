import { VenueError } from '@venue/protocol';

/**
 * Runs `operation` and returns the catalogue code of the VenueError it throws, or 'accepted' when
 * it returns. Anything else thrown is a programmer error and propagates, failing the test.
 */
export function codeOf(operation: () => unknown): number | 'accepted' {
  try {
    operation();
  } catch (error) {
    if (error instanceof VenueError) return error.code;
    throw error;
  }
  return 'accepted';
}
