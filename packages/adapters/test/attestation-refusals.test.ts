// The SDK's attestation refusals not covered by packages/sdk/test/attested-connect.test.ts (spec 1
// item 9): a venue that serves no attestation is refused as unreachable, a report of an unknown
// layout version as malformed, and a restart: a client pinned to the old boot refuses the new
// boot's certificate before any credential leaves, and connecting again attests the new boot.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { AttestationResponseSchema, decodeJsonText } from '@venue/protocol';
import { AttestationError, connectVenue, type TrustAnchors } from '@venue/sdk';
import { TestVenue } from '@venue/testing';
import { checkReport } from '../../sdk/src/attestation.ts';

const url = (port: number) => `https://127.0.0.1:${port}`;

function refusedWith(failure: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AttestationError, `expected an AttestationError, got ${String(error)}`);
    assert.equal(error.failure, failure, error.message);
    assert.match(error.message, /no credential was sent/);
    return true;
  };
}

/** A plain TCP relay whose upstream can be switched: the same address, a different boot behind it. */
async function startRelay(initialPort: number) {
  let upstreamPort = initialPort;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    switchTo(port: number) {
      upstreamPort = port;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let first: TestVenue;
let second: TestVenue;
let trust: TrustAnchors;

before(async () => {
  first = await TestVenue.start({ enclave: true });
  second = await TestVenue.start({ enclave: true });
  const roots = new Map<string, string>();
  const measurements = new Set<string>();
  for (const venue of [first, second]) {
    assert.ok(venue.platform !== undefined && venue.enclave !== undefined);
    roots.set(venue.platform.rootKeyId, venue.platform.rootPublicKey);
    measurements.add(venue.enclave.measurement);
  }
  trust = { roots, measurements };
});
after(async () => {
  await second.stop();
});

test('a venue that serves no attestation is refused as unreachable, naming the 503', async () => {
  const bare = await TestVenue.start();
  try {
    await assert.rejects(connectVenue({ url: url(bare.port), trust }), (error: unknown) => {
      refusedWith('unreachable')(error);
      assert.match((error as Error).message, /GET \/attestation answered HTTP 503/);
      return true;
    });
  } finally {
    await bare.stop();
  }
});

test('a report of an unknown layout version is refused as malformed', async () => {
  const response = decodeJsonText(AttestationResponseSchema, (await second.call('/attestation')).text);
  assert.throws(
    () =>
      checkReport(
        { ...response, report: { ...response.report, version: 2 } },
        trust,
        second.identity.sessionId,
        second.identity.spkiSha256,
      ),
    refusedWith('malformed_report'),
  );
});

test('after a restart the old pin refuses the new boot before a credential leaves; connecting again attests it', async () => {
  const relay = await startRelay(first.port);
  try {
    const client = await connectVenue({ url: url(relay.port), trust });
    assert.equal(client.sessionId, first.identity.sessionId);
    // The venue behind the address restarts: the old boot is gone, a new one answers.
    await first.stop();
    relay.switchTo(second.port);
    const account = await second.server.provision('trader', 'after restart');
    const credentials = {
      apiKey: account.api_key,
      apiSecret: account.api_secret,
      passphrase: account.passphrase,
    };
    await assert.rejects(client.login(credentials), refusedWith('certificate_mismatch'));
    await client.close();

    const again = await connectVenue({ url: url(relay.port), trust });
    try {
      assert.equal(again.sessionId, second.identity.sessionId);
      assert.equal(again.spkiSha256, second.identity.spkiSha256);
      assert.equal((await again.login(credentials)).accountId, account.account_id);
    } finally {
      await again.close();
    }
  } finally {
    await relay.close();
  }
});
