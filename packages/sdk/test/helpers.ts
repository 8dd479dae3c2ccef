import assert from 'node:assert/strict';
import { type OrderSpec, orderBody, TestVenue } from '@venue/testing';
import {
  type Clock,
  type Credentials,
  connectVenue,
  type OrderDraft,
  type VenueClient,
} from '../src/index.ts';

/** The trust anchors of a TestVenue started with `enclave: true`. */
export function trustOf(venue: TestVenue) {
  assert.ok(
    venue.platform !== undefined && venue.enclave !== undefined,
    'start the venue with enclave: true',
  );
  return {
    roots: new Map([[venue.platform.rootKeyId, venue.platform.rootPublicKey]]),
    measurements: new Set([venue.enclave.measurement]),
  };
}

/** The venue's own manual clock, so token lifetimes follow `venue.clock.setNowMs`. */
export function venueClock(venue: TestVenue): Clock {
  return { nowMs: () => venue.clock.nowMs() };
}

/** A fresh trader account's credentials, provisioned directly on the server. */
export async function credentials(venue: TestVenue, label = 'sdk'): Promise<Credentials> {
  const account = await venue.server.provision('trader', label);
  return { apiKey: account.api_key, apiSecret: account.api_secret, passphrase: account.passphrase };
}

export async function connectedClient(venue: TestVenue, port = venue.port): Promise<VenueClient> {
  return connectVenue({ url: `https://127.0.0.1:${port}`, trust: trustOf(venue), clock: venueClock(venue) });
}

/** An attested venue with a logged-in trader client, for suites that share one of each. */
export async function startLoggedIn(): Promise<{
  venue: TestVenue;
  client: VenueClient;
  stop(): Promise<void>;
}> {
  const venue = await TestVenue.start({ enclave: true });
  const client = await connectedClient(venue);
  await client.login(await credentials(venue));
  return {
    venue,
    client,
    async stop() {
      await client.close();
      await venue.stop();
    },
  };
}

/**
 * An order draft valid for the test venue's core (sha256 test note commitments, TEST_ROOT), without
 * the fields signing fills in: key, session and nonce.
 */
export function draft(venue: TestVenue, spec: OrderSpec): OrderDraft {
  const { trading_key, session_id, arrival_nonce, trading_key_signature, ...rest } = orderBody({
    expiry: venue.clock.slot() + 500n,
    ...spec,
  });
  void [trading_key, session_id, arrival_nonce, trading_key_signature];
  return rest;
}
