/**
 * Signed-order intake, the protocol part: lossless JSON parse, strict decode with the stateless
 * rules, canonical encoding, sha256 and Ed25519 verification of a place-order body. Baseline:
 * node:crypto Ed25519 verification alone over the same digests with cached keys, which is the
 * ceiling of intake (benchmarks.md). The ratio shows what our parsing and encoding cost on top.
 *
 * Then the note-commitment re-derivation as the main thread pays it: with the proof worker's answer
 * remembered and looked up (CommitmentMemo, what the venue does), against Poseidon computed inline on
 * the main thread (what it did before), over the same fresh (owner, inner hash, value) triples.
 */
import { createHash } from 'node:crypto';
import { CommitmentMemo } from '@venue/adapters';
import { loadNoteHasher } from '@venue/notes';
import {
  checkPlaceOrderFields,
  decodeByWalking,
  decodePlaceOrder,
  encodePlaceOrder,
  PlaceOrderSchema,
  parseJsonText,
  parseStrictly,
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

export async function run(quick: boolean): Promise<Figure[]> {
  return [...protocolFigures(quick), ...(await commitmentFigures(quick))];
}

async function commitmentFigures(quick: boolean): Promise<Figure[]> {
  const hasher = await loadNoteHasher();
  const count = quick ? 500 : 2_000;
  const runs = quick ? 3 : 5;
  const field = (label: string) => `0${createHash('sha256').update(label).digest('hex').slice(1)}`;
  const triples = Array.from({ length: count }, (_, i) => ({
    owner: field(`owner-${i}`),
    inner: field(`inner-${i}`),
    value: BigInt(1000 + i),
  }));
  const derived = triples.map((t) => hasher.noteCommitment(t.owner, t.inner, t.value));
  process.stderr.write(`intake: ${count} note commitments, ${runs} runs each\n`);
  const inline = opsPerSecond(
    (i) => {
      const t = triples[i % count];
      if (t === undefined) throw new Error('unreachable');
      hasher.noteCommitment(t.owner, t.inner, t.value);
    },
    count,
    runs,
  );
  const memo = new CommitmentMemo();
  const lookUp = memo.wrap(() => {
    throw new Error('the memo missed: the benchmark must measure lookups only');
  });
  const remembered = opsPerSecond(
    (i) => {
      const t = triples[i % count];
      const commitment = derived[i % count];
      if (t === undefined || commitment === undefined) throw new Error('unreachable');
      memo.remember(t.owner, t.inner, t.value, commitment);
      if (lookUp(t.owner, t.inner, t.value) !== commitment) throw new Error('the memo answered wrongly');
    },
    count,
    runs,
  );
  const poseidonBaseline = { name: 'Poseidon re-derivation inline', value: Math.round(inline.median) };
  return [figure('intake', 'note_commitment_main_thread', 'ops/s', 'higher', remembered, poseidonBaseline)];
}

function protocolFigures(quick: boolean): Figure[] {
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
  const mainThread = mainThreadFigures(texts, count, runs, verifyBaseline);
  return [
    ...mainThread,
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

/**
 * What the venue's main thread pays per signed place request before the signature goes to a worker
 * (issue 21 item 5): parse, schema decode, the stateless field rules, canonical bytes and sha256.
 * Against Ed25519 verification alone (the limit of intake: the ratio says how many requests' main
 * thread work fits in one verification), and against the same steps on the reference paths kept in
 * the protocol (the strict lossless parse, the schema walker, a Hash object per digest): what they
 * cost before, measured in the same run.
 */
function mainThreadFigures(
  texts: readonly string[],
  count: number,
  runs: number,
  verifyBaseline: { name: string; value: number },
): Figure[] {
  const current = opsPerSecond(
    (i) => {
      const order = decodePlaceOrder(parseJsonText(texts[i % count] ?? ''));
      sha256(encodePlaceOrder(order));
    },
    count,
    runs,
  );
  const reference = opsPerSecond(
    (i) => {
      const order = decodeByWalking(PlaceOrderSchema, parseStrictly(texts[i % count] ?? ''));
      checkPlaceOrderFields(order);
      createHash('sha256').update(encodePlaceOrder(order)).digest();
    },
    count,
    runs,
  );
  const usOf = (opsPerSecond: number) => Math.round((1e6 / opsPerSecond) * 100) / 100;
  return [
    figure('intake', 'main_thread_per_place', 'ops/s', 'higher', current, verifyBaseline),
    figure(
      'intake',
      'main_thread_per_place_us',
      'us',
      'lower',
      { ...current, median: usOf(current.median) },
      {
        name: 'reference parse, schema walker and Hash object',
        value: usOf(reference.median),
      },
    ),
  ];
}
