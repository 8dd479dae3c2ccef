import { createHash } from 'node:crypto';
import type { CoreConfig, MarketConfig, PlaceCommand } from '@venue/core';
import type { PlaceOrder } from '@venue/protocol';

/**
 * Fixtures for driving the core directly. The core receives verified commands, so orders here
 * carry a placeholder signature; the protocol tests cover signing.
 */

/**
 * Note commitment used by core tests until the notes package supplies Poseidon: sha256 over the
 * owner commitment, the inner hash and the value. Same shape of inputs, test-only hash.
 */
export function sha256NoteCommitment(ownerCommitment: string, innerHash: string, value: bigint): string {
  return createHash('sha256').update(`${ownerCommitment}|${innerHash}|${value}`).digest('hex');
}

export const TEST_CORE_CONFIG: CoreConfig = {
  treeCount: 4,
  settlementBufferSlots: 10n,
  orderLifetimeSlotsMax: 4500n,
  lockDurationSlots: 50n,
  retentionSlots: 100n,
  accountOpenOrdersMax: 1000,
  rootWindowMax: 8,
  noteCommitment: sha256NoteCommitment,
};

/**
 * The crash test's venue (crash-venue-child.ts) and its replays: the test core, but a finished order
 * stays readable for the whole run. With 100 slots (40 s of wall clock) a slow machine forgot
 * orders the test had cancelled early, and GET /orders answered 404 for an acknowledged order.
 */
export const CRASH_CORE_CONFIG: CoreConfig = { ...TEST_CORE_CONFIG, retentionSlots: 1_000_000n };

export const TEST_SESSION = 'ab'.repeat(32);
export const TEST_ROOT = 'cd'.repeat(32);

export function testMarket(symbol = 'SOL-USDC', overrides: Partial<MarketConfig> = {}): MarketConfig {
  const id = createHash('sha256').update(symbol).digest();
  return {
    symbol,
    marketId: base58Like(id),
    baseMint: base58Like(createHash('sha256').update(`${symbol}-base`).digest()),
    quoteMint: base58Like(createHash('sha256').update(`${symbol}-quote`).digest()),
    tickSize: 10n,
    minSize: 1n,
    priceScale: 1000n,
    oracleFeed: base58Like(createHash('sha256').update(`${symbol}-oracle`).digest()),
    bandBps: 1000n,
    batchIntervalSlots: 1n,
    ...overrides,
  };
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Base58 text of 32 bytes (enough for ids in tests; real addresses come from the chain). */
function base58Like(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = (ALPHABET[Number(n % 58n)] ?? '') + out;
    n /= 58n;
  }
  return out.padStart(32, '1');
}

export function hex32(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

export interface OrderSpec {
  id: number;
  symbol?: string;
  side?: 'bid' | 'ask';
  type?: 'limit' | 'ioc' | 'fok';
  amount?: bigint;
  price?: bigint;
  minFill?: bigint;
  expiry?: bigint;
  nonce?: bigint;
  key?: string;
  owner?: string;
  note?: string;
  collateral?: bigint;
  priceScale?: bigint;
}

/** A place-order body whose note commitment re-derives under sha256NoteCommitment. */
export function orderBody(spec: OrderSpec): PlaceOrder {
  const side = spec.side ?? 'bid';
  const amount = spec.amount ?? 100n;
  const price = spec.price ?? 1000n;
  const owner = spec.owner ?? hex32(`owner-${spec.key ?? 'k1'}`);
  const inner = hex32(`inner-${spec.note ?? spec.id}`);
  const nominal = side === 'bid' ? (amount * price) / (spec.priceScale ?? 1000n) : amount;
  const value = spec.collateral ?? nominal;
  const body: PlaceOrder = {
    symbol: spec.symbol ?? 'SOL-USDC',
    side,
    order_type: spec.type ?? 'limit',
    amount,
    price_limit: price,
    expiry_slot: spec.expiry ?? 1000n,
    order_id: createHash('sha256').update(`order-${spec.id}`).digest('hex').slice(0, 32),
    note_commitment: sha256NoteCommitment(owner, inner, value),
    arrival_nonce: spec.nonce ?? BigInt(spec.id),
    trading_key: hex32(`key-${spec.key ?? 'k1'}`),
    trading_key_signature: '00'.repeat(64),
    owner_commitment: owner,
    note_inner_hash: inner,
    merkle_root: TEST_ROOT,
    valid_input_proof: '00'.repeat(256),
    viewing_pubkey: hex32('viewing'),
    session_id: TEST_SESSION,
  };
  if (spec.minFill !== undefined) body.min_fill_size = spec.minFill;
  if (spec.collateral !== undefined) body.collateral_amount = spec.collateral;
  return body;
}

export function placeCommand(
  order: PlaceOrder,
  slot: bigint,
  accountId = 'acct-a',
  connectionId: string | null = null,
): PlaceCommand {
  return {
    type: 'place',
    order,
    bodyDigest: createHash('sha256')
      .update(JSON.stringify(order, (_k, v) => (typeof v === 'bigint' ? `${v}` : v)))
      .digest('hex'),
    accountId,
    connectionId,
    slot,
  };
}
