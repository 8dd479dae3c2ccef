import { isMeasuredPath, printable, VenueError } from '@venue/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CodeSnapshot } from '../enclave/code-measurement.ts';
import type { RoutePlugin } from './types.ts';

/**
 * The gateway-served evidence files of spec 4.4 (`/evidences/*`, public, no token): what a verifier
 * needs to recompute the code measurement the attestation report binds (docs/enclave.md).
 *   GET /evidences/manifest.json      the measured paths with size and sha256, and the recipe
 *   GET /evidences/files/{path}       the exact bytes that were hashed at boot
 * These are files, not JSON bodies of the venue, so they sit outside the route catalogue and the
 * OpenAPI document. Every answer is served from the boot snapshot in memory: a path that is not in
 * the manifest is a 404 before any disk is touched, so no request can reach another file.
 */
export const EVIDENCE_PREFIX = '/evidences/';
export const EVIDENCE_MANIFEST_PATH = '/evidences/manifest.json';
export const EVIDENCE_FILES_PREFIX = '/evidences/files/';

/** `null`: a venue without attestation, whose evidence reads answer 503 like /attestation does. */
export function evidenceRoutes(snapshot: CodeSnapshot | null): RoutePlugin {
  return (app) => {
    app.get(EVIDENCE_MANIFEST_PATH, async (request) => {
      refuseQueryAndBody(request);
      return snapshotOf(snapshot).manifest;
    });
    app.get(`${EVIDENCE_FILES_PREFIX}*`, async (request, reply) => {
      refuseQueryAndBody(request);
      const path = (request.params as { '*': string })['*'];
      const bytes = isMeasuredPath(path) ? snapshotOf(snapshot).files.get(path) : undefined;
      if (bytes === undefined) {
        throw new VenueError(
          'ROUTE_NOT_FOUND',
          `no evidence file "${printable(path)}"; GET ${EVIDENCE_MANIFEST_PATH} lists the files`,
        );
      }
      return sendFile(reply, bytes);
    });
  };
}

function snapshotOf(snapshot: CodeSnapshot | null): CodeSnapshot {
  if (snapshot === null) {
    throw new VenueError(
      'ATTESTATION_UNAVAILABLE',
      'this venue has no attested code measurement, so it has no evidence to serve; do not trust it',
    );
  }
  return snapshot;
}

/** Raw bytes, never sniffed or rendered as a page by a browser that opens the link. */
function sendFile(reply: FastifyReply, bytes: Uint8Array): FastifyReply {
  return reply
    .type('application/octet-stream')
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', 'attachment')
    .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** The same strictness as catalogue routes: a GET takes no body and these take no query. */
function refuseQueryAndBody(request: FastifyRequest): void {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    throw new VenueError('MALFORMED_REQUEST', 'GET /evidences takes no body; send none');
  }
  const [name] = Object.keys((request.query ?? {}) as Record<string, unknown>);
  if (name !== undefined) {
    throw new VenueError('UNKNOWN_FIELD', `query parameter \`${printable(name)}\`: /evidences takes none`);
  }
}
