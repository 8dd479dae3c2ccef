import { relative, sep } from 'node:path';
import type { DevVenue } from './dev-venue.ts';

/**
 * What `venue dev` prints once it serves: where to connect, what to pin, and one command that
 * trusts exactly this boot's certificate. The last line is for machines: `VENUE_READY` and one
 * JSON object, stable keys, so tests and tools need not scrape the human text.
 */

export const READY_PREFIX = 'VENUE_READY ';

export interface ReadyRecord {
  rest_url: string;
  stream_url: string;
  session_id: string;
  cert_sha256: string;
  cert_file: string;
}

export function readyRecord(venue: DevVenue): ReadyRecord {
  return {
    rest_url: venue.restUrl,
    stream_url: venue.streamUrl,
    session_id: venue.sessionId,
    cert_sha256: venue.certSha256,
    cert_file: venue.certFile,
  };
}

export function formatBanner(venue: DevVenue, cwd: string = process.cwd()): string {
  const certPath = displayPath(venue.certFile, cwd);
  const stream = venue.streamServed
    ? venue.streamUrl
    : `${venue.streamUrl}  (not served yet: the session stream arrives in a later version)`;
  return [
    'venue dev: development venue, interface 4.1.0',
    '',
    `  REST API      ${venue.restUrl}`,
    `  stream        ${stream}`,
    `  session id    ${venue.sessionId}`,
    `  certificate   sha256 ${venue.certSha256}`,
    `  public key    spki sha256 ${venue.spkiSha256}`,
    `  cert file     ${certPath}  (this boot only; a restart makes a new one)`,
    '',
    "Talk to it trusting only this boot's certificate:",
    `  curl --cacert ${certPath} ${venue.restUrl}/info`,
    '',
    'Serving GET /health, /time, /info and /system/status. Markets, trading, the stream and the',
    'chain and oracle simulators arrive in later versions. Ctrl-C stops the venue.',
    `${READY_PREFIX}${JSON.stringify(readyRecord(venue))}`,
    '',
  ].join('\n');
}

/** Relative to the working directory when inside it (shorter to copy), else absolute. */
function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || rel.startsWith(sep) ? file : rel;
}
