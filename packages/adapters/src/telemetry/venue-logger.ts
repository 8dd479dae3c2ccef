import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';

/**
 * The one log format of the venue (docs/operations.md "Logs"): every line the server, the stream,
 * the settlement side and `venue serve` write is a pino JSON line of the same shape:
 *
 *   {"level":"warn","time":"2026-11-26T09:00:00.000Z","pid":1,"hostname":"h","component":"http",
 *    "request_id":"...","msg":"..."}
 *
 * `level` is the name (not pino's number) and `time` ISO 8601, so a human and `jq` read it alike.
 * `component` names the part that wrote the line; `request_id` is there when the line belongs to a
 * request (REST: the x-request-id the response carries; stream: the frame's request_id).
 *
 * Callers log outcomes and codes, never a request's body: secrets and order details do not reach a
 * log. The redaction list below is only a second guard for a key that slipped into an object.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type VenueLogger = Logger;

/** Where lines go: anything with write(line), process.stderr by default. */
export interface LogDestination {
  write(line: string): void;
}

export interface VenueLoggerOptions {
  readonly level: LogLevel;
  readonly stream?: LogDestination;
}

/** Keys whose values never appear in a line, at the top level or one object down. */
const SECRET_KEYS = [
  'authorization',
  'api_secret',
  'passphrase',
  'token',
  'access_token',
  'secret',
  'password',
  'sealing_key',
  'spending_key',
  'private_key',
];
const REDACT_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`]).concat([
  'req.headers.authorization',
  'headers.authorization',
]);

export function createVenueLogger(options: VenueLoggerOptions): VenueLogger {
  return pino(
    {
      level: options.level,
      // `component` is bound by children (logger.child({ component: 'stream' })), once per line.
      base: { pid: process.pid, hostname: hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    options.stream ?? process.stderr,
  );
}

/**
 * A `(line) => void` for the parts that report operating lines as text (the chain link, the oracle
 * feeds, the state check): each becomes a line of the one format, at `level`.
 */
export function lineLogger(
  logger: VenueLogger,
  level: 'info' | 'warn' | 'error' = 'warn',
): (line: string) => void {
  return (line) => logger[level](line);
}
