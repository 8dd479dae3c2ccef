import { ERRORS, type ErrorName } from './catalogue.ts';

/** The error envelope of spec section 7: every non-2xx body and every stream `error` frame. */
export interface ErrorEnvelope {
  code: number;
  message: string;
}

/** The state of a spent allowance: its size, what is left, and when the refused request would pass. */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
}

/** What a refusal can tell a program about retrying, beside its code and message. */
export interface RetryHints {
  readonly retryAfterMs?: number;
  readonly rateLimit?: RateLimitState;
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
  /** When the same request may succeed, for the `Retry-After` header (never in the envelope). */
  readonly retryAfterMs: number | undefined;
  /** The allowance a 429 ran out of, for the `x-ratelimit-*` headers. */
  readonly rateLimit: RateLimitState | undefined;

  constructor(name: ErrorName, message: string, hints: RetryHints = {}) {
    super(message);
    this.name = 'VenueError';
    this.errorName = name;
    this.code = ERRORS[name].code;
    this.http = ERRORS[name].http;
    this.retryAfterMs = hints.retryAfterMs;
    this.rateLimit = hints.rateLimit;
  }

  toEnvelope(): ErrorEnvelope {
    return { code: this.code, message: this.message };
  }
}

export function isVenueError(value: unknown): value is VenueError {
  return value instanceof VenueError;
}
