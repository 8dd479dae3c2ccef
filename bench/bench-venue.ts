/**
 * What the wire benchmarks (rest, stream) share: a venue on loopback with the test core and one
 * market, trader accounts logged in ahead of time, and small output helpers. The load generators
 * themselves differ (autocannon against HTTP, `ws` clients against the stream) and stay in their
 * own files.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assembleVenue,
  assetOfOrder,
  type BootIdentity,
  type VenueClock,
  type VenueServer,
} from '@venue/adapters';
import { assetIdOfMint, type ProofVerifier } from '@venue/notes';
import type { PlaceOrder } from '@venue/protocol';
import {
  chainlessPorts,
  fixedRoots,
  orderBody,
  TEST_CORE_CONFIG,
  testListing,
  testMarket,
} from '@venue/testing';
import { groth16Verifier, type NoteSpec, type ProvedNote, proveNotes } from './proved-notes.ts';
import { newThreads } from './thread-cpu.ts';

/** The one market of the wire benchmarks. */
export const BENCH_MARKET = testMarket('SOL-USDC');

/** A non-settling venue (stub proofs) whose recent roots hold the root the test orders name. */
export async function startBenchVenue(
  identity: BootIdentity,
  clock: VenueClock,
): Promise<{ server: VenueServer; port: number }> {
  const { server } = await assembleVenue(chainlessPorts(identity, clock), {
    core: TEST_CORE_CONFIG,
    markets: [testListing(BENCH_MARKET)],
    settles: false,
    proofMode: 'stub',
  });
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  return { server, port };
}

/**
 * The production path's venue for the wire benchmarks: every place carries a real VALID_INPUT
 * proof the venue checks on its Groth16 worker pool (as `venue serve` does), note commitments are
 * Poseidon, and the sealed file journal runs with fdatasync in a temporary state directory. Its
 * only recent root is the root of the notes the benchmark proved. Nothing settles: the benchmarks'
 * orders are all bids and never cross, so settlement would have nothing to do.
 */
export async function startProductionVenue(
  identity: BootIdentity,
  clock: VenueClock,
  root: string,
  proofs: ProductionProofs,
): Promise<{
  server: VenueServer;
  port: number;
  verifier: ProofVerifier;
  /** Thread ids of the proof verifier's workers, and of the other workers the venue started. */
  threads: { proofWorkers: Set<number>; venueWorkers: Set<number> };
  close(): Promise<void>;
}> {
  const verifierThreads = await newThreads(() =>
    groth16Verifier(
      assetOfOrder(() => [BENCH_MARKET]),
      proofs === 'every_place_verified' ? 0 : undefined,
    ),
  );
  const { verifier, hasher } = verifierThreads.value;
  const stateDir = await mkdtemp(join(tmpdir(), 'venue-bench-'));
  const assembled = await newThreads(() =>
    assembleVenue(
      { ...chainlessPorts(identity, clock), proofs: { verifier }, hasher, roots: fixedRoots([root]) },
      {
        core: { ...TEST_CORE_CONFIG, noteCommitment: hasher.noteCommitment },
        markets: [testListing(BENCH_MARKET)],
        settles: false,
        proofMode: 'groth16',
        state: { directory: stateDir, sealingKey: randomBytes(32) },
      },
    ),
  );
  const { server } = assembled.value;
  const { port } = await server.http.listen({ host: '127.0.0.1', port: 0 });
  return {
    server,
    port,
    verifier,
    threads: { proofWorkers: verifierThreads.threads, venueWorkers: assembled.threads },
    async close() {
      await server.close();
      await verifier.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * How a production-path venue treats a proof it has verified before (notes' verified-claims.ts).
 * The benchmarks' connections each place again and again against one proved note, as a market
 * maker requoting does: `every_place_verified` turns reuse off, so each place costs a batch
 * verification as the first use of a note does (issue 21 item 4's measure); `requotes` is the
 * venue's default, where only the first place of each note reaches a worker.
 */
export type ProductionProofs = 'every_place_verified' | 'requotes';

/** Price and amount of every production-path order: a bid far below anything, never crossing. */
export const PROVED_ORDER = { price: 1000n, amount: 100n } as const;

/**
 * `perAccount` notes for each trading key, each worth one PROVED_ORDER bid (quote asset), proved
 * before any timing. Answers the notes by account and the root to hand the venue.
 */
export async function proveBidNotes(
  tradingKeys: readonly string[],
  perAccount: number,
  label: string,
): Promise<{ notes: ProvedNote[][]; root: string }> {
  const assetId = assetIdOfMint(BENCH_MARKET.quoteMint);
  const value = (PROVED_ORDER.amount * PROVED_ORDER.price) / BENCH_MARKET.priceScale;
  const specs: NoteSpec[] = tradingKeys.flatMap((tradingKey, account) =>
    Array.from({ length: perAccount }, () => ({
      spendingKey: BigInt(account + 1) * 7919n,
      tradingKey,
      assetId,
      value,
    })),
  );
  const proved = await proveNotes(specs, undefined, label);
  log(`${label}: ${specs.length} notes proved in ${proved.seconds.toFixed(1)} s\n`);
  return {
    notes: tradingKeys.map((_, account) =>
      proved.notes.slice(account * perAccount, (account + 1) * perAccount),
    ),
    root: proved.root,
  };
}

/** What batchedOneThreadRate checks: the proved notes as claims of their accounts' bids. */
export function claimsOfNotes(notes: readonly ProvedNote[][], tradingKeys: readonly string[]) {
  const assetId = assetIdOfMint(BENCH_MARKET.quoteMint);
  return notes.flatMap((mine, account) =>
    mine.map((note) => ({ ...note.fields, trading_key: tradingKeys[account] ?? '', assetId })),
  );
}

/** The proved notes as bids of their accounts (for the venue's own pool, verifying alone). */
export function ordersOfNotes(notes: readonly ProvedNote[][], tradingKeys: readonly string[]): PlaceOrder[] {
  return notes.flatMap((mine, account) =>
    mine.map((note, i) => ({
      ...orderBody({ id: account * 1000 + i, price: PROVED_ORDER.price, amount: PROVED_ORDER.amount }),
      ...note.fields,
      trading_key: tradingKeys[account] ?? '',
    })),
  );
}

/**
 * The venue's own verifier pool checking `count` of `orders` with nothing else running (batches of
 * its batchMax on every worker): what the pool does alone on this machine now, proofs/s.
 */
export async function poolAloneRate(verifier: ProofVerifier, orders: readonly PlaceOrder[], count: number) {
  const all = Array.from({ length: count }, (_, i) => orders[i % orders.length] as PlaceOrder);
  const started = performance.now();
  const results = await verifier.verifyMany(all);
  if (results.some((valid) => !valid)) throw new Error('a proof the bench made did not verify');
  return count / ((performance.now() - started) / 1000);
}

export type { ProvedNote };

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
