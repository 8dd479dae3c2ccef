// The CLI's token cache: a script of many `venue` commands logs in once per account and boot (the
// venue meters logins), a revoked token costs exactly one fresh login, `venue logout` revokes and
// deletes the cached token, and the cache file is owner-only and sealed (no token in clear), opens
// only for its own account, venue and boot, and is dropped when any of them changes.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CreateAccountResponse } from '@venue/protocol';
import { httpsCall, TestVenue } from '@venue/testing';
import fc from 'fast-check';
import {
  bootBinding,
  type CachedToken,
  TOKEN_CACHE_DIR_NAME,
  TokenCache,
} from '../src/commands/token-cache.ts';
import { type CliHome, type CliRun, cliHome } from './cli-home.ts';

let venue: TestVenue;
let home: CliHome;
let dir: string;
let accounts: Record<string, CreateAccountResponse>;
/** Logins the venue served, per api key. */
const logins = new Map<string, number>();

before(async () => {
  venue = await TestVenue.start({ enclave: true });
  accounts = {
    admin: await venue.server.provision('admin', 'cache admin'),
    alice: await venue.server.provision('trader', 'cache alice'),
  };
  home = cliHome(venue, accounts, 'venue-token-cache-');
  dir = home.dir;
  // Counts what reaches the venue's account layer: the real login still runs.
  const auth = venue.server.auth;
  const login = auth.login.bind(auth);
  auth.login = (request, nowMs, clientAddress) => {
    logins.set(request.api_key, (logins.get(request.api_key) ?? 0) + 1);
    return login(request, nowMs, clientAddress);
  };
});
after(async () => {
  await venue.stop();
  home.remove();
});

function venueCli(...args: string[]): Promise<CliRun> {
  return home.run(args);
}

function loginsOf(name: string): number {
  return logins.get(accounts[name]?.api_key ?? '') ?? 0;
}

function aliceCache(): TokenCache {
  const alice = accounts['alice'];
  assert.ok(alice !== undefined);
  return new TokenCache(join(dir, 'keys'), {
    origin: `https://127.0.0.1:${venue.port}`,
    apiKey: alice.api_key,
    apiSecret: alice.api_secret,
    passphrase: alice.passphrase,
  });
}

describe('token cache over a real venue', () => {
  test('30 consecutive commands log in once; the cache file is 0600 in a 0700 folder, sealed', async () => {
    const before = loginsOf('alice');
    for (let i = 0; i < 30; i += 1) {
      const run = await venueCli('orders');
      assert.equal(run.status, 0, run.stderr);
    }
    assert.equal(loginsOf('alice') - before, 1);
    const file = aliceCache().file;
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'keys', TOKEN_CACHE_DIR_NAME)).mode & 0o777, 0o700);
    const text = readFileSync(file, 'utf8');
    const held = aliceCache().read(bootBinding(bootFacts()), Date.now());
    assert.ok(held !== null);
    for (const part of held.token.split('.')) assert.ok(!text.includes(part), 'no token part in clear');
    assert.ok(!text.includes(held.accountId));
  });

  test('a revoked token costs exactly one fresh login, and the new token is cached', async () => {
    assert.equal((await venueCli('orders')).status, 0);
    const alice = accounts['alice'];
    assert.ok(alice !== undefined);
    const revoked = await venueCli('--account', 'admin', 'admin', 'accounts', 'revoke-tokens', alice.api_key);
    assert.equal(revoked.status, 0, revoked.stderr);
    // Tokens issued in the same second as a bulk invalidation may be refused too (spec 5 item 6).
    venue.clock.advanceMs(1_000);
    const before = loginsOf('alice');
    for (let i = 0; i < 3; i += 1) assert.equal((await venueCli('orders')).status, 0);
    assert.equal(loginsOf('alice') - before, 1);
  });

  test('logout revokes the cached token and deletes it; the next command logs in again', async () => {
    assert.equal((await venueCli('orders')).status, 0);
    const held = aliceCache().read(bootBinding(bootFacts()), Date.now());
    assert.ok(held !== null);
    const out = await venueCli('--json', 'logout');
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(JSON.parse(out.stdout), { account: 'alice', revoked: true, cache_cleared: true });
    assert.throws(() => statSync(aliceCache().file), /ENOENT/);
    const revoked = await fetchAccount(held.token);
    assert.equal(revoked, 401, 'the logged-out token is refused by the venue');
    const before = loginsOf('alice');
    assert.equal((await venueCli('orders')).status, 0);
    assert.equal(loginsOf('alice') - before, 1);
  });
});

describe('token cache file', () => {
  const owner = {
    origin: 'https://venue.example:8443',
    apiKey: 'k'.repeat(32),
    apiSecret: 's1',
    passphrase: 'p1',
  };
  const token = (binding: string, renewAtMs = 2_000): CachedToken => ({
    token: 'header.payload.signature',
    accountId: 'acct-1',
    expiresAtMs: renewAtMs + 120_000,
    renewAtMs,
    binding,
  });

  test('round trip for the same owner and boot; nothing after the renewal time', () => {
    const folder = mkdtempSync(join(tmpdir(), 'venue-token-file-'));
    try {
      const cache = new TokenCache(folder, owner);
      assert.equal(cache.read('b1', 0), null, 'empty cache');
      cache.write(token('b1'));
      assert.deepEqual(cache.read('b1', 1_999), token('b1'));
      assert.equal(cache.read('b1', 2_000), null, 'due for renewal: log in instead');
      assert.deepEqual(cache.read('b1', 0), token('b1'), 'kept: a later login replaces it');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test('another boot, other credentials, another venue or a file open to others: dropped', () => {
    const folder = mkdtempSync(join(tmpdir(), 'venue-token-file-'));
    try {
      const cache = new TokenCache(folder, owner);
      cache.write(token('b1'));
      assert.equal(cache.read('b2', 0), null, 'a restarted venue (new session id)');
      assert.throws(() => statSync(cache.file), /ENOENT/, 'and the file is removed');

      cache.write(token('b1'));
      assert.equal(new TokenCache(folder, { ...owner, apiSecret: 's2' }).read('b1', 0), null);
      assert.throws(() => statSync(cache.file), /ENOENT/, 'sealed under other credentials: removed');

      cache.write(token('b1'));
      const other = new TokenCache(folder, { ...owner, origin: 'https://other.example:8443' });
      assert.notEqual(other.file, cache.file, 'one file per venue and account');
      writeFileSync(other.file, readFileSync(cache.file), { mode: 0o600 });
      assert.equal(other.read('b1', 0), null, 'a file moved to another venue slot does not open');

      cache.write(token('b1'));
      chmodSync(cache.file, 0o640);
      assert.equal(cache.read('b1', 0), null, 'group-readable: not trusted');
      assert.throws(() => statSync(cache.file), /ENOENT/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  test('any token round-trips, and the file never holds it or the account id in clear', () => {
    const folder = mkdtempSync(join(tmpdir(), 'venue-token-file-'));
    try {
      const cache = new TokenCache(folder, owner);
      fc.assert(
        fc.property(
          fc.string({ minLength: 12, maxLength: 600 }),
          fc.string({ minLength: 4, maxLength: 40 }),
          fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }),
          (text, accountId, binding) => {
            const written = { ...token(binding), token: text, accountId };
            cache.write(written);
            const file = readFileSync(cache.file, 'utf8');
            assert.ok(!file.includes(text));
            assert.deepEqual(cache.read(binding, 0), written);
          },
        ),
        { numRuns: 50 },
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

function bootFacts() {
  assert.ok(venue.platform !== undefined && venue.enclave !== undefined);
  return {
    sessionId: venue.identity.sessionId,
    spkiSha256: venue.identity.spkiSha256,
    measurement: venue.enclave.measurement,
    platformKeyId: venue.platform.rootKeyId,
  };
}

/** GET /account with `token`: the status the venue answers. */
async function fetchAccount(token: string): Promise<number> {
  const response = await httpsCall(venue.port, venue.identity.certPem, '/account', { token });
  return response.status;
}
