import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printable, VenueError } from '@venue/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlugin } from './types.ts';

/**
 * The operator console (docs/operations.md "Operator console"): the static page built from
 * packages/console, served at /console/. Like the evidence files, these are files rather than JSON
 * bodies of the venue, so they sit outside the route catalogue. The built files are read into memory
 * once at boot: a request can only name one of them, so no path reaches another file, and a rebuild
 * on disk takes effect at the next boot. The page itself holds no data; everything it shows comes
 * from admin routes that check the admin token on every call.
 */
export const CONSOLE_PREFIX = '/console/';

/** Where `npm run build` (scripts/build-console.mjs) puts the console in this repository. */
export const CONSOLE_BUILD_DIRECTORY = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Only this origin's scripts, styles and API: no inline script, no framing, nothing loaded from
 * elsewhere. Inline styles are allowed because the chart library positions its legend with them.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface ConsoleFile {
  readonly bytes: Buffer;
  readonly type: string;
}

/** The built files by URL path (`/console/assets/index-….js`); empty when there is no build. */
export function loadConsole(directory: string): ReadonlyMap<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(join(directory, 'index.html'))) return files;
  const walk = (path: string): void => {
    for (const entry of readdirSync(path)) {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const type = CONTENT_TYPES[extname(entry)];
        // Only what a page needs; the build stamp and anything unexpected stay unserved.
        if (type !== undefined) {
          files.set(`${CONSOLE_PREFIX}${relative(directory, full).split(sep).join('/')}`, {
            bytes: readFileSync(full),
            type,
          });
        }
      }
    }
  };
  walk(directory);
  return files;
}

export function consoleRoutes(directory: string): RoutePlugin {
  const files = loadConsole(directory);
  return (app) => {
    if (files.size === 0) {
      app.log.warn(
        { type: 'console_not_built', directory },
        'the operator console is not built; /console/ answers 404 until `npm run build` builds it',
      );
    }
    app.get('/console', async (request, reply) => {
      refuseBody(request);
      return reply.redirect(CONSOLE_PREFIX, 308);
    });
    app.get(`${CONSOLE_PREFIX}*`, async (request, reply) => {
      refuseBody(request);
      const rest = (request.params as { '*': string })['*'];
      const file = files.get(`${CONSOLE_PREFIX}${rest === '' ? 'index.html' : rest}`);
      if (file === undefined) {
        throw new VenueError(
          'ROUTE_NOT_FOUND',
          files.size === 0
            ? 'the operator console is not built on this venue; its operator runs `npm run build`'
            : `no console file "${printable(rest)}"; open ${CONSOLE_PREFIX}`,
        );
      }
      return sendPage(reply, file);
    });
  };
}

function sendPage(reply: FastifyReply, file: ConsoleFile): FastifyReply {
  return reply
    .type(file.type)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(file.bytes);
}

function refuseBody(request: FastifyRequest): void {
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) {
    throw new VenueError('MALFORMED_REQUEST', 'GET /console takes no body; send none');
  }
}
