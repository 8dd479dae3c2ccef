/**
 * Captures every line a running TestVenue writes to its server log, at the most verbose level.
 *
 * TestVenue starts its server with logging silenced and takes no log option, so this re-points the
 * server's pino logger (Fastify's, which the error path uses) at a buffer and raises its level to
 * `trace`. Its children inherit both, whether made before (the stream's and the journal's, which
 * only bind a `component`) or after (one per request). Test-only: once TestVenue takes a log destination, use that instead.
 */
import assert from 'node:assert/strict';
import type { TestVenue } from '@venue/testing';
import pino from 'pino';

export interface CapturedLog {
  /** Every JSON line written since capture began. */
  readonly lines: string[];
}

export function captureLogs(venue: TestVenue): CapturedLog {
  const lines: string[] = [];
  const logger = venue.server.http.app.log as unknown as Record<symbol, unknown> & { level: string };
  assert.ok(pino.symbols.streamSym in logger, 'the server log is a pino logger');
  logger[pino.symbols.streamSym] = { write: (line: string) => lines.push(line) };
  logger.level = 'trace';
  return { lines };
}
