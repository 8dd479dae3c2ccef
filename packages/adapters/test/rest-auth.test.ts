// The account layer of spec 4.2, 4.6, 3.3 and 5 over HTTPS: logins, the bounded verification pool
// (503/1402), the issuance allowance (429), exact token expiry, revocation of one token and of all
// of an account's tokens, suspension on every route, roles, and the last-enabled-admin rule.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ACCESS_TOKEN_IAT_SKEW_MS,
  ACCESS_TOKEN_LIFETIME_SECONDS,
  AUTH_VERIFICATIONS_MAX,
  LOGIN_FAILURES_PER_ADDRESS_BUCKET,
  TOKEN_ISSUANCE_BUCKET,
  TokenService,
} from '@venue/adapters';
import { VenueError } from '@venue/protocol';
import { bodyOf, type Exchange, envelopeOf, TestVenue } from '@venue/testing';

function expectError(exchange: Exchange, status: number, code: number): string {
  assert.equal(exchange.status, status, exchange.text);
  const envelope = envelopeOf(exchange);
  assert.equal(envelope.code, code, envelope.message);
  return envelope.message;
}

describe('POST /auth/token', () => {
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start();
  });
  after(() => venue.stop());

  const tokenRequest = (api_key: string, api_secret: string, passphrase: string) => ({
    method: 'POST',
    body: JSON.stringify({ api_key, api_secret, passphrase }),
  });

  test('issues a Bearer JWT of at most one hour for the account', async () => {
    const trader = await venue.trader();
    const issued = await venue.call(
      '/auth/token',
      tokenRequest(trader.apiKey, trader.apiSecret, trader.passphrase),
    );
    const body = bodyOf(issued);
    assert.equal(body['token_type'], 'Bearer');
    assert.equal(body['account_id'], trader.accountId);
    assert.ok(Number(body['expires_in']) <= ACCESS_TOKEN_LIFETIME_SECONDS);
    assert.match(String(body['access_token']), /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const account = await venue.call('/account', { token: String(body['access_token']) });
    assert.equal(account.status, 200);
  });

  test('a wrong secret or passphrase is 401 1105; a malformed request is 400 and never reaches hashing', async () => {
    const trader = await venue.trader();
    expectError(
      await venue.call('/auth/token', tokenRequest(trader.apiKey, 'x'.repeat(43), trader.passphrase)),
      401,
      1105,
    );
    expectError(
      await venue.call('/auth/token', tokenRequest(trader.apiKey, trader.apiSecret, 'wrong-passphrase')),
      401,
      1105,
    );
    expectError(
      await venue.call('/auth/token', {
        method: 'POST',
        body: JSON.stringify({ api_key: trader.apiKey, api_secret: trader.apiSecret }),
      }),
      400,
      1002,
    );
  });

  test('at capacity a login is refused at once with 503 1402; an unknown api_key or a secret proven this boot needs no slot', async () => {
    const fresh = await venue.server.provision('trader', 'not yet logged in');
    const trader = await venue.trader(); // logged in: its secret is proven for this boot
    const gate = venue.server.auth.verificationGate;
    const releases: (() => void)[] = [];
    const held = [0, 1].map(() =>
      gate.run(() => new Promise<void>((resolve) => releases.push(resolve))).catch(() => undefined),
    );
    try {
      const refused = await venue.call(
        '/auth/token',
        tokenRequest(fresh.api_key, fresh.api_secret, fresh.passphrase),
      );
      const message = expectError(refused, 503, 1402);
      assert.match(message, /not queued/);
      assert.equal(refused.headers['retry-after'], '1', 'a retryable 503 says when to come back');
      // Refused before any verification work: the full pool does not matter to it (spec 4.2).
      expectError(
        await venue.call(
          '/auth/token',
          tokenRequest('vk_unknownunknownunknown', trader.apiSecret, trader.passphrase),
        ),
        401,
        1105,
      );
      // A bot refreshing its token is not hashed again, so a full pool does not stop it.
      assert.equal(
        (await venue.call('/auth/token', tokenRequest(trader.apiKey, trader.apiSecret, trader.passphrase)))
          .status,
        200,
      );
    } finally {
      for (const release of releases) release();
      await Promise.all(held);
    }
    assert.equal(
      (await venue.call('/auth/token', tokenRequest(fresh.api_key, fresh.api_secret, fresh.passphrase)))
        .status,
      200,
    );
  });

  test('the issuance allowance is charged only for proven logins: 429 1400 with a retry delay', async () => {
    const trader = await venue.trader(); // trader() itself used one login
    const correct = () =>
      venue.call('/auth/token', tokenRequest(trader.apiKey, trader.apiSecret, trader.passphrase));
    for (let login = 1; login < TOKEN_ISSUANCE_BUCKET.capacity; login += 1) {
      assert.equal((await correct()).status, 200);
    }
    const refused = await correct();
    const message = expectError(refused, 429, 1400);
    assert.match(message, /retry in about \d+ s/);
    const seconds = Number(/retry in about (\d+) s/.exec(message)?.[1]);
    assert.ok(
      Math.abs(Number(refused.headers['retry-after']) - seconds) <= 1,
      'Retry-After is the same wait',
    );
    assert.equal(refused.headers['x-ratelimit-limit'], String(TOKEN_ISSUANCE_BUCKET.capacity));
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    // A wrong secret is still told it is wrong, not that the allowance is spent.
    expectError(
      await venue.call('/auth/token', tokenRequest(trader.apiKey, 'y'.repeat(43), trader.passphrase)),
      401,
      1105,
    );
    // Unknown keys never touch anyone's allowance: other accounts still log in.
    for (let i = 0; i < 20; i += 1) {
      await venue.call('/auth/token', tokenRequest(`vk_nobody${i}nobodynobody`, 'z'.repeat(43), 'whatever1'));
    }
    const other = await venue.trader();
    assert.ok(other.token.length > 0);
    // One refill interval later the account may log in again.
    venue.clock.advanceMs(Math.ceil(1000 / TOKEN_ISSUANCE_BUCKET.refillPerSecond));
    assert.equal((await correct()).status, 200);
  });
});

describe('login allowances under guessing and floods (issue 20 item 4)', () => {
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start();
  });
  after(() => venue.stop());

  const GUESSES = 160;
  const login = (
    account: { api_key: string; api_secret: string; passphrase: string },
    localAddress?: string,
  ) =>
    venue.call('/auth/token', {
      method: 'POST',
      body: JSON.stringify({
        api_key: account.api_key,
        api_secret: account.api_secret,
        passphrase: account.passphrase,
      }),
      ...(localAddress === undefined ? {} : { localAddress }),
    });
  const wrong = (api_key: string, i: number) => ({
    api_key,
    api_secret: `guess-${i}-${'g'.repeat(36)}`,
    passphrase: 'guessing!!',
  });

  test('160 wrong guesses at an account whose owner logged in: all 401, no scrypt run, the owner still gets in', async () => {
    const owner = await venue.server.provision('trader', 'guessed-after-login');
    assert.equal((await login(owner)).status, 200);
    const runs = venue.server.auth.verificationsRun;
    for (let i = 0; i < GUESSES; i += 1) expectError(await login(wrong(owner.api_key, i)), 401, 1105);
    assert.equal(venue.server.auth.verificationsRun, runs, 'wrong guesses cost no scrypt run');
    const answer = await login(owner);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(venue.server.auth.verificationsRun, runs, 'a proven secret is not hashed again');
  });

  test("160 wrong guesses at an account not yet logged in: the guesser's address is cut off after its allowance, the owner elsewhere gets in", async () => {
    const owner = await venue.server.provision('trader', 'guessed-before-login');
    const runs = venue.server.auth.verificationsRun;
    const codes: number[] = [];
    for (let i = 0; i < GUESSES; i += 1) {
      codes.push(envelopeOf(await login(wrong(owner.api_key, i), '127.0.0.3')).code);
    }
    const verified = LOGIN_FAILURES_PER_ADDRESS_BUCKET.capacity;
    assert.deepEqual(
      codes,
      [...Array(verified).fill(1105), ...Array(GUESSES - verified).fill(1405)],
      'the allowance of wrong guesses is verified, then 429 1405 before any hashing',
    );
    assert.equal(venue.server.auth.verificationsRun - runs, verified, 'scrypt ran once per allowed failure');
    const refused = await login(wrong(owner.api_key, 0), '127.0.0.3');
    assert.match(expectError(refused, 429, 1405), /retry in about \d+ s/);
    // The owner, from another address, is not charged for the guesses and logs in at once.
    const answer = await login(owner, '127.0.0.4');
    assert.equal(answer.status, 200, answer.text);
    // Its full issuance allowance is there: the guesses spent none of it.
    for (let i = 1; i < TOKEN_ISSUANCE_BUCKET.capacity; i += 1) {
      assert.equal((await login(owner, '127.0.0.4')).status, 200);
    }
  });

  test('a flood of logins refused at capacity costs nothing: the owner then gets its whole allowance', async () => {
    const owner = await venue.server.provision('trader', 'flooded-at-capacity');
    const gate = venue.server.auth.verificationGate;
    const releases: (() => void)[] = [];
    const held = Array.from({ length: AUTH_VERIFICATIONS_MAX }, () =>
      gate.run(() => new Promise<void>((resolve) => releases.push(resolve))).catch(() => undefined),
    );
    try {
      // A restart's worth of bots (and the owner itself) retrying at once, right and wrong.
      for (let i = 0; i < 40; i += 1) {
        expectError(await login(i % 2 === 0 ? owner : wrong(owner.api_key, i)), 503, 1402);
      }
    } finally {
      for (const release of releases) release();
      await Promise.all(held);
    }
    for (let i = 0; i < TOKEN_ISSUANCE_BUCKET.capacity; i += 1) {
      const answer = await login(owner);
      assert.equal(answer.status, 200, `login ${i + 1}: ${answer.text}`);
    }
    expectError(await login(owner), 429, 1400);
    // The wrong half of the flood did not spend this address's failures either: all are verified.
    const runs = venue.server.auth.verificationsRun;
    const fresh = await venue.server.provision('trader', 'after-the-flood');
    for (let i = 0; i < LOGIN_FAILURES_PER_ADDRESS_BUCKET.capacity; i += 1) {
      expectError(await login(wrong(fresh.api_key, i)), 401, 1105);
    }
    assert.equal(venue.server.auth.verificationsRun - runs, LOGIN_FAILURES_PER_ADDRESS_BUCKET.capacity);
  });
});

describe('bearer tokens on every route', () => {
  let venue: TestVenue;
  before(async () => {
    venue = await TestVenue.start();
  });
  after(() => venue.stop());

  test("missing is 401 1100; not a Bearer JWT is 401 1101; another boot's token is 401 1101", async () => {
    expectError(await venue.call('/account'), 401, 1100);
    expectError(await venue.call('/account', { headers: { authorization: 'Basic abc' } }), 401, 1101);
    expectError(await venue.call('/account', { token: 'a.b.c' }), 401, 1101);
    const foreign = await new TokenService().issue(
      { accountId: 'acct_00000000000000000000000000000000', role: 'trader', generation: 0 },
      venue.clock.nowMs(),
    );
    expectError(await venue.call('/account', { token: foreign.accessToken }), 401, 1101);
  });

  test('roles are separate: a trading token on an admin route is 403 1108, an admin token on a trading route 403 1111', async () => {
    const trader = await venue.trader();
    expectError(await venue.call('/admin/drain', { token: trader.token }), 403, 1108);
    expectError(await venue.call('/account', { token: venue.adminToken }), 403, 1111);
    expectError(
      await venue.place(
        { ...trader, token: venue.adminToken },
        venue.order({ id: 1, nonce: 1n }, trader.key),
      ),
      403,
      1111,
    );
  });

  test('DELETE /auth/token revokes only the token it carries, until that token would have expired', async () => {
    const trader = await venue.trader();
    const second = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
    const revoked = bodyOf(await venue.call('/auth/token', { method: 'DELETE', token: trader.token }));
    assert.equal(revoked['revoked'], true);
    const expected = (Math.floor(venue.clock.nowMs() / 1000) + ACCESS_TOKEN_LIFETIME_SECONDS) * 1000;
    assert.equal(revoked['denylisted_until_ms'], expected);
    expectError(await venue.call('/account', { token: trader.token }), 401, 1104);
    assert.equal((await venue.call('/account', { token: second.access_token })).status, 200);
  });

  test('revoke-tokens invalidates every held token; a login in the same millisecond works at once', async () => {
    const trader = await venue.trader();
    const second = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
    const status = bodyOf(
      await venue.call(`/admin/accounts/${trader.apiKey}/revoke-tokens`, {
        method: 'POST',
        token: venue.adminToken,
      }),
    );
    assert.equal(status['status'], 'active');
    assert.equal(status['tokens_invalid_before_ms'], venue.clock.nowMs());
    expectError(await venue.call('/account', { token: trader.token }), 401, 1104);
    expectError(await venue.call('/account', { token: second.access_token }), 401, 1104);
    // The manual clock has not moved: same millisecond, and still no retry is needed.
    const fresh = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
    assert.equal((await venue.call('/account', { token: fresh.access_token })).status, 200);
  });

  test('disable suspends at once on every route and on login (403 "account disabled"); enable resumes', async () => {
    const trader = await venue.trader();
    const disabled = bodyOf(
      await venue.call(`/admin/accounts/${trader.apiKey}/disable`, {
        method: 'POST',
        token: venue.adminToken,
      }),
    );
    assert.equal(disabled['status'], 'suspended');
    for (const [path, method] of [
      ['/account', 'GET'],
      ['/account/settings', 'GET'],
      [`/orders/${'12'.repeat(16)}`, 'GET'],
      ['/auth/token', 'DELETE'],
    ] as const) {
      expectError(await venue.call(path, { method, token: trader.token }), 403, 1106);
    }
    expectError(await venue.place(trader, venue.order({ id: 2, nonce: 1n }, trader.key)), 403, 1106);
    const login = await venue.call('/auth/token', {
      method: 'POST',
      body: JSON.stringify({
        api_key: trader.apiKey,
        api_secret: trader.apiSecret,
        passphrase: trader.passphrase,
      }),
    });
    assert.equal(expectError(login, 403, 1106), 'account disabled');

    await venue.call(`/admin/accounts/${trader.apiKey}/enable`, { method: 'POST', token: venue.adminToken });
    assert.equal((await venue.call('/account', { token: trader.token })).status, 200);
  });

  test("GET /admin/accounts lists every account's role, status and label, and no secret; traders get 403 1108", async () => {
    const trader = await venue.trader('listed desk');
    const revoked = await venue.call(`/admin/accounts/${trader.apiKey}/revoke-tokens`, {
      method: 'POST',
      token: venue.adminToken,
    });
    assert.equal(revoked.status, 200, revoked.text);
    const listed = await venue.call('/admin/accounts', { token: venue.adminToken });
    assert.equal(listed.status, 200, listed.text);
    const accounts = bodyOf(listed)['accounts'] as Record<string, unknown>[];
    const entry = accounts.find((account) => account['api_key'] === trader.apiKey);
    assert.deepEqual(Object.keys(entry ?? {}).sort(), [
      'account_id',
      'api_key',
      'label',
      'role',
      'status',
      'tokens_invalid_before_ms',
    ]);
    assert.equal(entry?.['label'], 'listed desk');
    assert.equal(entry?.['status'], 'active');
    assert.ok(
      accounts.some((account) => account['api_key'] === venue.adminApiKey && account['role'] === 'admin'),
    );
    for (const secret of [trader.apiSecret, trader.passphrase, trader.token]) {
      assert.ok(!listed.text.includes(secret), 'the list carries no credential');
    }
    const fresh = await venue.login(trader.apiKey, trader.apiSecret, trader.passphrase);
    expectError(await venue.call('/admin/accounts', { token: fresh.access_token }), 403, 1108);
  });

  test('the last enabled admin cannot be disabled (409 1206); an unknown api_key is 404 1304', async () => {
    const disableFixtureAdmin = () =>
      venue.call(`/admin/accounts/${venue.adminApiKey}/disable`, { method: 'POST', token: venue.adminToken });
    expectError(await disableFixtureAdmin(), 409, 1206);
    const second = bodyOf(
      await venue.call('/admin/accounts', {
        method: 'POST',
        token: venue.adminToken,
        body: JSON.stringify({ role: 'admin', label: 'second admin' }),
      }),
    );
    assert.equal(second['role'], 'admin');
    const secondKey = String(second['api_key']);
    // With two enabled admins either may be disabled; then the other is the last one again.
    assert.equal(
      (await venue.call(`/admin/accounts/${secondKey}/disable`, { method: 'POST', token: venue.adminToken }))
        .status,
      200,
    );
    expectError(await disableFixtureAdmin(), 409, 1206);
    expectError(
      await venue.call('/admin/accounts/vk_doesnotexistdoesnotexist/disable', {
        method: 'POST',
        token: venue.adminToken,
      }),
      404,
      1304,
    );
  });
});

describe('exact expiry (spec 5 item 5)', () => {
  test('a token is accepted until the millisecond before its expiry and refused with 401 1103 from then on', async () => {
    const venue = await TestVenue.start();
    try {
      const trader = await venue.trader();
      const expiresAtMs = (Math.floor(venue.clock.nowMs() / 1000) + ACCESS_TOKEN_LIFETIME_SECONDS) * 1000;
      venue.clock.setNowMs(expiresAtMs - 1);
      assert.equal((await venue.call('/account', { token: trader.token })).status, 200);
      venue.clock.setNowMs(expiresAtMs);
      expectError(await venue.call('/account', { token: trader.token }), 401, 1103);
    } finally {
      await venue.stop();
    }
  });

  test('a token issued in the future (iat beyond the allowed skew) is invalid, 1101 (issue 20 finding 6c)', async () => {
    // Only the venue's own key signs tokens, so the token service is driven directly: a token issued
    // ahead of the verifying clock is what a clock stepped back, or a leaked key, would present.
    const tokens = new TokenService();
    const subject = {
      accountId: 'acct_00000000000000000000000000000000',
      role: 'trader',
      generation: 0,
    } as const;
    const nowMs = 1_800_000_000_000;
    const withinSkew = await tokens.issue(subject, nowMs + ACCESS_TOKEN_IAT_SKEW_MS);
    assert.equal((await tokens.verify(withinSkew.accessToken, nowMs)).accountId, subject.accountId);
    const ahead = await tokens.issue(subject, nowMs + ACCESS_TOKEN_IAT_SKEW_MS + 1000);
    await assert.rejects(
      tokens.verify(ahead.accessToken, nowMs),
      (error) => error instanceof VenueError && error.code === 1101 && /future/.test(error.message),
    );
    // Once the clock has caught up the same token is accepted: the refusal was about its time alone.
    assert.equal((await tokens.verify(ahead.accessToken, nowMs + 1000)).accountId, subject.accountId);
  });
});
