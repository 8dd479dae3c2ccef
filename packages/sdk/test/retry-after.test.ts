// Retry hints a program can read (issue 24 item 4): the venue's 429 and retryable 503 answers carry
// Retry-After, and the SDK's VenueApiError.retryAfterMs comes from that header, not from the words of
// the message (which stay the fallback for stream error frames, which have no headers).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestVenue } from '@venue/testing';
import { retryAfterMsOf } from '../src/http.ts';
import { connectVenue, retryDelayMsOf, VenueApiError } from '../src/index.ts';
import { credentials, trustOf, venueClock } from './helpers.ts';

test('Retry-After reads as delay-seconds or an HTTP date; anything else is no hint', () => {
  assert.equal(retryAfterMsOf('3'), 3000);
  assert.equal(retryAfterMsOf(' 0 '), 0);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMsOf('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  assert.equal(retryAfterMsOf('Wed, 31 Dec 2025 23:59:00 GMT', now), 0, 'a date in the past: no wait');
  assert.equal(retryAfterMsOf(undefined), undefined);
  assert.equal(retryAfterMsOf('soon'), undefined);
  assert.equal(retryAfterMsOf('-1'), undefined);
});

test("a trading 429 reaches the caller with the header's wait, whole seconds covering the message's", async () => {
  const venue = await TestVenue.start({ enclave: true });
  const client = await connectVenue({
    url: `https://127.0.0.1:${venue.port}`,
    trust: trustOf(venue),
    clock: venueClock(venue),
    rateLimitRetriesMax: 0, // hand every 429 to the caller
  });
  try {
    await client.login(await credentials(venue));
    let refusal: VenueApiError | undefined;
    for (let read = 0; read < 1000 && refusal === undefined; read += 1) {
      await client.account().catch((error: unknown) => {
        if (!(error instanceof VenueApiError)) throw error;
        refusal = error;
      });
    }
    assert.ok(refusal !== undefined, 'the read allowance ran out');
    assert.equal(refusal.status, 429);
    assert.equal(refusal.code, 1401);
    const fromMessage = retryDelayMsOf(refusal.message);
    assert.ok(fromMessage !== undefined && fromMessage < 1000, refusal.message);
    // The message says a few hundred ms; the header says whole seconds: the SDK took the header.
    assert.equal(refusal.retryAfterMs, 1000);
  } finally {
    await client.close();
    await venue.stop();
  }
});
