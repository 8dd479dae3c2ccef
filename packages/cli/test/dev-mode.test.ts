import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import {
  AttestationResponseSchema,
  decodeJsonText,
  HealthResponseSchema,
  InfoResponseSchema,
  verifyAttestation,
} from '@venue/protocol';

const ROOT = resolve(import.meta.dirname, '../../..');
/** Generous for a loaded 2-core CI machine; a healthy boot takes about one second. */
// A guard against a venue that never starts, not a speed check: a dev boot (proving keys, worker
// pools, notes) takes about 20 s on a busy 2-core machine.
const READY_TIMEOUT_MS = 120_000;
const EXIT_TIMEOUT_MS = 10_000;

/**
 * The command `npm start` runs, taken from the root package.json so the test follows it if it
 * changes. Its first word is resolved in node_modules/.bin as npm would; no shell in between, so
 * the signal the test sends reaches the command itself.
 */
function startCommand(): { command: string; args: string[] } {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const script = manifest.scripts['start'] ?? '';
  assert.match(
    script,
    /^[\w./@:= -]+$/,
    'the start script must be a plain command for this test to mirror it',
  );
  const [word = '', ...args] = script.trim().split(/\s+/);
  const local = join(ROOT, 'node_modules', '.bin', word);
  return { command: existsSync(local) ? local : word, args };
}

interface Ready {
  rest_url: string;
  stream_url: string;
  session_id: string;
  cert_sha256: string;
  chain_rpc_url: string;
  cert_file: string;
  accounts_file: string;
  platform_file: string;
  measurement: string;
}

interface Running {
  child: ChildProcess;
  ready: Ready;
  stdout: () => string;
  stderr: () => string;
}

const children: ChildProcess[] = [];
const stateDirs: string[] = [];
after(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

function startDev(extraArgs: string[]): Promise<Running> {
  const stateDir = mkdtempSync(join(tmpdir(), 'venue-dev-test-'));
  stateDirs.push(stateDir);
  const { command, args } = startCommand();
  const child = spawn(
    command,
    [...args, '--port', '0', '--chain-port', '0', '--state-dir', stateDir, ...extraArgs],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`no VENUE_READY line within ${READY_TIMEOUT_MS} ms; stdout:\n${out}\nstderr:\n${err}`),
      );
    }, READY_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('VENUE_READY '));
      if (line === undefined) return;
      clearTimeout(timer);
      resolvePromise({
        child,
        ready: JSON.parse(line.slice('VENUE_READY '.length)) as Ready,
        stdout: () => out,
        stderr: () => err,
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`venue dev exited with ${code} before it was ready; stderr:\n${err}`));
    });
  });
}

function get(url: string, ca: string): Promise<{ status: number; text: string; peerSha256: string }> {
  return new Promise((resolvePromise, reject) => {
    https
      .get(url, { ca, agent: false }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () => {
          const peer = (response.socket as TLSSocket).getPeerCertificate();
          resolvePromise({
            status: response.statusCode ?? 0,
            text,
            peerSha256: peer.fingerprint256.replaceAll(':', '').toLowerCase(),
          });
        });
      })
      .on('error', reject);
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolvePromise({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const timer = setTimeout(
      () => reject(new Error(`no exit within ${EXIT_TIMEOUT_MS} ms`)),
      EXIT_TIMEOUT_MS,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal });
    });
  });
}

test('npm start boots a venue that serves HTTPS with the printed certificate, and SIGTERM stops it cleanly', async () => {
  const { child, ready, stdout } = await startDev([]);
  assert.match(ready.rest_url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(ready.stream_url, `${ready.rest_url.replace('https:', 'wss:')}/v1/stream`);
  assert.match(ready.session_id, /^[0-9a-f]{64}$/);
  assert.match(ready.cert_sha256, /^[0-9a-f]{64}$/);

  // The banner tells a person how to call the venue without switching certificate checks off.
  const banner = stdout();
  assert.match(
    banner,
    /^venue dev: starting /,
    'the first line, printed before the boot, says it is starting',
  );
  assert.ok(banner.includes(`curl --cacert ${ready.cert_file} ${ready.rest_url}/info`), banner);
  assert.doesNotMatch(banner, /--insecure|-k /);
  assert.ok(banner.includes(ready.accounts_file), 'the banner says where the demo credentials are');
  assert.doesNotMatch(banner, /api_secret"|passphrase"/, 'the banner never prints a secret');

  // Only the public certificate is written; the private key stays in the venue's memory.
  const certPem = readFileSync(ready.cert_file, 'utf8');
  assert.match(certPem, /^-----BEGIN CERTIFICATE-----/);
  for (const name of readdirSync(resolve(ready.cert_file, '..'))) {
    assert.doesNotMatch(readFileSync(resolve(ready.cert_file, '..', name), 'utf8'), /PRIVATE KEY/);
  }

  const health = await get(`${ready.rest_url}/health`, certPem);
  assert.equal(health.status, 200);
  assert.deepEqual(decodeJsonText(HealthResponseSchema, health.text), { status: 'ok' });
  assert.equal(health.peerSha256, ready.cert_sha256);
  const info = decodeJsonText(InfoResponseSchema, (await get(`${ready.rest_url}/info`, certPem)).text);
  assert.equal(info.session_id, ready.session_id);
  // The dev venue settles on its chain simulator, so it takes real proofs only.
  assert.equal(info.proof_mode, 'groth16');
  assert.equal(info.settlement_enabled, true);

  // Before any credential: the attestation verifies against the published root and measurement
  // and binds the certificate this boot serves.
  const root = JSON.parse(readFileSync(ready.platform_file, 'utf8')) as Record<string, string>;
  assert.equal(root['measurement'], ready.measurement);
  const attestation = decodeJsonText(
    AttestationResponseSchema,
    (await get(`${ready.rest_url}/attestation`, certPem)).text,
  );
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  verifyAttestation(
    attestation,
    {
      trustedRoots: new Map([[root['root_key_id'] ?? '', root['root_public_key'] ?? '']]),
      allowedMeasurements: new Set([ready.measurement]),
    },
    { sessionId: ready.session_id, tlsSpkiSha256: createHash('sha256').update(spki).digest('hex') },
  );

  // The demo accounts log in with the credentials from their owner-only file.
  assert.equal(statSync(ready.accounts_file).mode & 0o777, 0o600);
  const accounts = JSON.parse(readFileSync(ready.accounts_file, 'utf8')) as Record<
    string,
    { api_key: string; api_secret: string; passphrase: string; role: string }
  >;
  assert.equal(accounts['admin']?.role, 'admin');
  const alice = accounts['alice'];
  assert.ok(alice !== undefined);
  const login = await post(`${ready.rest_url}/auth/token`, certPem, {
    api_key: alice.api_key,
    api_secret: alice.api_secret,
    passphrase: alice.passphrase,
  });
  assert.equal(login.status, 200, login.text);
  assert.equal(JSON.parse(login.text).token_type, 'Bearer');
  const instruments = JSON.parse((await get(`${ready.rest_url}/instruments`, certPem)).text);
  assert.deepEqual(
    instruments.instruments.map((i: { symbol: string }) => i.symbol),
    ['ETH-USDC', 'SOL-USDC'],
  );
  // The evidence files reproduce the attested measurement (spec 4.4).
  const manifest = JSON.parse((await get(`${ready.rest_url}/evidences/manifest.json`, certPem)).text);
  assert.equal(manifest.measurement, ready.measurement);
  // The in-process chain simulator serves the note trees, one root per shard.
  const trees = JSON.parse((await get(`${ready.rest_url}/tree/root`, certPem)).text);
  assert.equal(trees.trees.length, info.tree_count);
  // The markets the venue lists exist on its chain, so their matches can settle.
  const chainMarkets = await fetch(ready.chain_rpc_url, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'listMarkets' }),
  }).then((r) => r.json() as Promise<{ result: { markets: { market_id: string }[] } }>);
  assert.deepEqual(
    chainMarkets.result.markets.map((m) => m.market_id).sort(),
    instruments.instruments.map((i: { market_id: string }) => i.market_id).sort(),
  );
  // The dev oracle simulator's signed updates keep both markets open.
  assert.ok(instruments.instruments.every((i: { trading_enabled: boolean }) => i.trading_enabled));

  child.kill('SIGTERM');
  assert.deepEqual(await exitOf(child), { code: 0, signal: null });
  assert.equal(existsSync(ready.accounts_file), false, 'the demo secrets go with the boot');
});

function post(url: string, ca: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolvePromise, reject) => {
    const request = https.request(
      url,
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () => resolvePromise({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

test('SIGINT (Ctrl-C) also stops the venue with exit code 0', async () => {
  const { child, ready } = await startDev(['--log-level', 'silent']);
  const certPem = readFileSync(ready.cert_file, 'utf8');
  assert.equal((await get(`${ready.rest_url}/health`, certPem)).status, 200);
  child.kill('SIGINT');
  assert.deepEqual(await exitOf(child), { code: 0, signal: null });
});
