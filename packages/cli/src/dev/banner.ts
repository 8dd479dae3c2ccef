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
  chain_rpc_url: string;
  session_id: string;
  cert_sha256: string;
  cert_file: string;
  accounts_file: string;
  platform_file: string;
  measurement: string;
}

export function readyRecord(venue: DevVenue): ReadyRecord {
  return {
    rest_url: venue.restUrl,
    stream_url: venue.streamUrl,
    chain_rpc_url: venue.chainRpcUrl,
    session_id: venue.sessionId,
    cert_sha256: venue.certSha256,
    cert_file: venue.certFile,
    accounts_file: venue.accountsFile,
    platform_file: venue.platformFile,
    measurement: venue.measurement,
  };
}

export function formatBanner(venue: DevVenue, cwd: string = process.cwd()): string {
  const certPath = displayPath(venue.certFile, cwd);
  return [
    'venue dev: development venue, interface 4.1.0',
    '',
    `  REST API      ${venue.restUrl}`,
    `  stream        ${venue.streamUrl}`,
    `  console       ${venue.restUrl}/console/  (operator console: sign in as the demo admin)`,
    `  chain RPC     ${venue.chainRpcUrl}  (chain simulator JSON-RPC, loopback only: deposits, withdrawals)`,
    `  session id    ${venue.sessionId}`,
    `  certificate   sha256 ${venue.certSha256}`,
    `  public key    spki sha256 ${venue.spkiSha256}`,
    `  cert file     ${certPath}  (this boot only; a restart makes a new one)`,
    '',
    `  attestation   GET /attestation; root and measurement in ${displayPath(venue.platformFile, cwd)}`,
    `  measurement   ${venue.measurement}`,
    '',
    "Talk to it trusting only this boot's certificate:",
    `  curl --cacert ${certPath} ${venue.restUrl}/info`,
    '',
    `Demo accounts (admin, alice, bob): credentials in ${displayPath(venue.accountsFile, cwd)}`,
    '  (readable by you only; deleted when the venue stops). Log in as alice:',
    `  curl --cacert ${certPath} -H 'content-type: application/json' \\`,
    `    -d "$(node -p "JSON.stringify((({api_key,api_secret,passphrase})=>({api_key,api_secret,passphrase}))(require('${venue.accountsFile}').alice))")" \\`,
    `    ${venue.restUrl}/auth/token`,
    '',
    `Markets: GET ${venue.restUrl}/instruments. API: GET ${venue.restUrl}/openapi.json, docs/api.md.`,
    'This venue settles: orders spend notes deposited on the in-process chain simulator, each with a',
    `real Groth16 proof, and a match becomes a fill once its batch is final (${venue.finalityDepthSlots} slots).`,
    'Watch two traders deposit, trade and settle, in another terminal:',
    `  npx venue demo --venue ${venue.restUrl} --chain-rpc ${venue.chainRpcUrl} --credentials ${displayPath(venue.accountsFile, cwd)}`,
    'Ctrl-C stops the venue.',
    `${READY_PREFIX}${JSON.stringify(readyRecord(venue))}`,
    '',
  ].join('\n');
}

/** Relative to the working directory when inside it (shorter to copy), else absolute. */
function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || rel.startsWith(sep) ? file : rel;
}
