// The console's files (http/console-routes.ts): served from the build read at boot, with a CSP that
// allows only this origin's scripts; a name outside the build, a body, or a host without a build gets
// the error envelope and touches no other file.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { envelopeOf, httpsCall } from '@venue/testing';
import {
  type BootIdentity,
  consoleRoutes,
  createBootIdentity,
  createHttpServer,
  createWallSlotClock,
} from '../src/index.ts';

const PARAMETERS = {
  settlementEnabled: false,
  proofMode: 'stub',
  settlementBufferSlots: 150n,
  treeCount: 1,
} as const;

let identity: BootIdentity;
let built: string;
const servers: { close(): Promise<void> }[] = [];

async function serve(directory: string): Promise<number> {
  const server = createHttpServer({
    identity,
    clock: createWallSlotClock(),
    parameters: PARAMETERS,
    log: { level: 'silent' },
    routes: [consoleRoutes(directory)],
  });
  servers.push(server);
  return (await server.listen({ host: '127.0.0.1', port: 0 })).port;
}

before(async () => {
  identity = await createBootIdentity();
  built = mkdtempSync(join(tmpdir(), 'console-'));
  mkdirSync(join(built, 'assets'));
  writeFileSync(join(built, 'index.html'), '<!doctype html><script src="/console/assets/app.js"></script>');
  writeFileSync(join(built, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(built, '.source-hash'), 'abc');
  writeFileSync(join(built, 'notes.txt'), 'not a page file');
});
after(async () => {
  for (const server of servers) await server.close();
  rmSync(built, { recursive: true, force: true });
});

test('the page and its assets are served with their types and a same-origin CSP; /console redirects', async () => {
  const port = await serve(built);
  const page = await httpsCall(port, identity.certPem, '/console/');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  assert.ok(page.headers['x-request-id'], 'like every venue response');
  const script = await httpsCall(port, identity.certPem, '/console/assets/app.js');
  assert.equal(script.status, 200);
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
  assert.equal(script.text, 'console.log(1)');
  const bare = await httpsCall(port, identity.certPem, '/console');
  assert.equal(bare.status, 308);
  assert.equal(bare.headers.location, '/console/');
});

test('a name outside the build is 404 1302 and reads nothing; a body is refused', async () => {
  const port = await serve(built);
  for (const path of [
    '/console/.source-hash',
    '/console/notes.txt',
    '/console/../package.json',
    '/console/assets/x.js',
  ]) {
    const refused = await httpsCall(port, identity.certPem, path);
    assert.equal(refused.status, 404, path);
    assert.equal(envelopeOf(refused).code, 1302, path);
  }
  const withBody = await httpsCall(port, identity.certPem, '/console/', {
    method: 'GET',
    headers: { 'content-type': 'application/json', 'content-length': '2' },
    body: '{}',
  });
  assert.equal(withBody.status, 400);
});

test('without a build, /console/ says how to build it', async () => {
  const port = await serve(join(built, 'missing'));
  const refused = await httpsCall(port, identity.certPem, '/console/');
  assert.equal(refused.status, 404);
  assert.match(envelopeOf(refused).message, /npm run build/);
});
