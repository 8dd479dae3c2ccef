/**
 * Signed-order intake, the protocol part: lossless JSON parse, strict decode with the stateless
 * rules, canonical encoding, sha256 and Ed25519 verification of a place-order body. Baseline:
 * node:crypto Ed25519 verification alone over the same digests with cached keys, which is the
 * ceiling of intake (benchmarks.md). The ratio shows what our parsing and encoding cost on top.
 */
import { createHash } from 'node:crypto';
import {
  decodePlaceOrder,
  encodePlaceOrder,
  parseJsonText,
  sha256,
  signPlaceOrder,
  stringifyJson,
  tradingKeyFromSeed,
  verifyDigest,
  verifyPlaceOrder,
} from '@venue/protocol';
import { type Figure, figure, latencyPercentilesUs, opsPerSecond } from './harness.ts';

const KEYS = 64;

function bodies(count: number): string[] {
  const keys = Array.from({ length: KEYS }, (_, i) =>
    tradingKeyFromSeed(createHash('sha256').update(`bench-key-${i}`).digest()),
  );
  return Array.from({ length: count }, (_, i) => {
    const key = keys[i % KEYS];
    if (key === undefined) throw new Error('unreachable');
    const order = signPlaceOrder(
      {
        symbol: 'SOL-USDC',
        side: i % 2 === 0 ? 'bid' : 'ask',
        order_type: 'limit',
        amount: BigInt(1000 + i),
        price_limit: BigInt(150_000 + (i % 100) * 10),
        expiry_slot: 1_000_000n,
        order_id: createHash('sha256').update(`order-${i}`).digest('hex').slice(0, 32),
        note_commitment: createHash('sha256').update(`note-${i}`).digest('hex'),
        arrival_nonce: BigInt(i + 1),
        trading_key: key.publicKey,
        owner_commitment: createHash('sha256').update(`owner-${i}`).digest('hex'),
        note_inner_hash: createHash('sha256').update(`inner-${i}`).digest('hex'),
        merkle_root: createHash('sha256').update('root').digest('hex'),
        valid_input_proof: createHash('sha512').update(`proof-${i}`).digest('hex').repeat(4),
        viewing_pubkey: createHash('sha256').update(`view-${i}`).digest('hex'),
        session_id: createHash('sha256').update('session').digest('hex'),
      },
      key,
    );
    return stringifyJson(order);
  });
}

export function run(quick: boolean): Figure[] {
  const count = quick ? 2_000 : 10_000;
  const runs = quick ? 3 : 7;
  const texts = bodies(count);
  const decoded = texts.map((t) => decodePlaceOrder(parseJsonText(t)));
  const digests = decoded.map((o) => sha256(encodePlaceOrder(o)));

  process.stderr.write(`intake: ${count} signed place-order bodies, ${runs} runs each\n`);
  const baseline = opsPerSecond(
    (i) => {
      const o = decoded[i % count];
      const d = digests[i % count];
      if (o === undefined || d === undefined || !verifyDigest(o.trading_key, d, o.trading_key_signature))
        throw new Error('baseline verify failed');
    },
    count,
    runs,
  );
  const full = opsPerSecond(
    (i) => {
      const order = decodePlaceOrder(parseJsonText(texts[i % count] ?? ''));
      verifyPlaceOrder(order);
    },
    count,
    runs,
  );
  const decodeOnly = opsPerSecond(
    (i) => decodePlaceOrder(parseJsonText(texts[i % count] ?? '')),
    count,
    runs,
  );
  const latency = latencyPercentilesUs(
    (i) => verifyPlaceOrder(decodePlaceOrder(parseJsonText(texts[i % count] ?? ''))),
    count,
  );
  const verifyBaseline = { name: 'node:crypto ed25519 verify alone', value: Math.round(baseline.median) };
  return [
    figure('intake', 'parse_decode_verify', 'ops/s', 'higher', full, verifyBaseline),
    figure('intake', 'parse_decode_only', 'ops/s', 'higher', decodeOnly, verifyBaseline),
    figure(
      'intake',
      'parse_decode_verify_p50_us',
      'us',
      'lower',
      { median: latency.p50, spread: 0, runs: 1 },
      null,
    ),
    figure(
      'intake',
      'parse_decode_verify_p99_us',
      'us',
      'lower',
      { median: latency.p99, spread: 0, runs: 1 },
      null,
    ),
  ];
}
