import { ERRORS, type ErrorName } from './catalogue.ts';

/** The error envelope of spec section 7: every non-2xx body and every stream `error` frame. */
export interface ErrorEnvelope {
  code: number;
  message: string;
}

/**
 * An operating error the venue reports to a client: a catalogue entry plus a message that says
 * what to fix. Messages name the field and what was expected, never a secret or another account's
 * data. Programmer errors are not VenueErrors: they are assertion failures and crash loudly.
 */
export class VenueError extends Error {
  readonly code: number;
  readonly http: number;
  readonly errorName: ErrorName;

  constructor(name: ErrorName, message: string) {
    super(message);
    this.name = 'VenueError';
    this.errorName = name;
    this.code = ERRORS[name].code;
    this.http = ERRORS[name].http;
  }

  toEnvelope(): ErrorEnvelope {
    return { code: this.code, message: this.message };
  }
}

export function isVenueError(value: unknown): value is VenueError {
  return value instanceof VenueError;
}
