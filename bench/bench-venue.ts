/**
 * What the wire benchmarks (rest, stream) share: a venue on loopback with the test core and one
 * market, trader accounts logged in ahead of time, and small output helpers. The load generators
 * themselves differ (autocannon against HTTP, `ws` clients against the stream) and stay in their
 * own files.
 */
import { assembleVenue, type BootIdentity, type VenueClock, type VenueServer } from '@venue/adapters';
import { chainlessPorts, TEST_CORE_CONFIG, testListing, testMarket } from '@venue/testing';

/** A non-settling venue (stub proofs) whose recent roots hold the root the test orders name. */
export async function startBenchVenue(
  identity: BootIdentity,
  clock: VenueClock,
): Promise<{ server: VenueServer; port: number }> {
  const { server } = await assembleVenue(chainlessPorts(identity, clock), {
    core: TEST_CORE_CONFIG,
    markets: [testListing(testMarket('SOL-USDC'))],
    settles: false,
    proofMode: 'stub',
  });
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  return { server, port };
}

/**
 * `count` trader accounts, logged in. Two logins at a time: the venue runs at most two credential
 * checks at once and refuses a third (1402), which a benchmark must not trip over.
 */
export async function traderTokens(server: VenueServer, count: number, label: string): Promise<string[]> {
  const created = await Promise.all(
    Array.from({ length: count }, (_, i) => server.provision('trader', `${label}-${i}`)),
  );
  const tokens: string[] = [];
  for (let i = 0; i < created.length; i += 2) {
    const batch = created.slice(i, i + 2).map(async (account) => {
      const token = await server.auth.login(
        { api_key: account.api_key, api_secret: account.api_secret, passphrase: account.passphrase },
        Date.now(),
        'bench',
      );
      return token.access_token;
    });
    tokens.push(...(await Promise.all(batch)));
  }
  return tokens;
}

export function positiveFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${text}"`);
  return value;
}

export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function log(text: string): void {
  process.stderr.write(text);
}

export function fmt(value: number | undefined): string {
  return value === undefined ? '-' : String(Math.round(value));
}
