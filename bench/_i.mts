import { createHash } from 'node:crypto';
import { decode, PlaceOrderSchema, checkPlaceOrderFields, encodePlaceOrder, parseJsonText, sha256, signPlaceOrder, stringifyJson, tradingKeyFromSeed, placeSignatureCheck } from '@venue/protocol';
const keys = Array.from({ length: 64 }, (_, i) => tradingKeyFromSeed(createHash('sha256').update(`k${i}`).digest()));
const N = 5000;
const texts = Array.from({ length: N }, (_, i) => stringifyJson(signPlaceOrder({
  symbol: 'SOL-USDC', side: i % 2 ? 'bid' : 'ask', order_type: 'limit', amount: BigInt(1000 + i), price_limit: BigInt(150000 + i % 100 * 10), expiry_slot: 1000000n,
  order_id: createHash('sha256').update(`o${i}`).digest('hex').slice(0, 32), note_commitment: createHash('sha256').update(`n${i}`).digest('hex'), arrival_nonce: BigInt(i + 1),
  trading_key: keys[i % 64]!.publicKey, owner_commitment: createHash('sha256').update(`w${i}`).digest('hex'), note_inner_hash: createHash('sha256').update(`i${i}`).digest('hex'),
  merkle_root: createHash('sha256').update('r').digest('hex'), valid_input_proof: createHash('sha512').update(`p${i}`).digest('hex').repeat(4),
  viewing_pubkey: createHash('sha256').update(`v${i}`).digest('hex'), session_id: createHash('sha256').update('s').digest('hex') }, keys[i % 64]!)));
const parsed = texts.map((t) => parseJsonText(t));
const decoded = parsed.map((p) => decode(PlaceOrderSchema, p));
function time(name: string, f: (i: number) => unknown) {
  for (let r = 0; r < 3; r++) { for (let i = 0; i < N; i++) f(i); }
  const t = performance.now();
  for (let r = 0; r < 4; r++) for (let i = 0; i < N; i++) f(i);
  console.log(name.padEnd(20), ((performance.now() - t) * 1000 / (4 * N)).toFixed(2), 'us');
}
time('parse', (i) => parseJsonText(texts[i]!));
time('decode', (i) => decode(PlaceOrderSchema, parsed[i]));
time('fieldchecks', (i) => checkPlaceOrderFields(decoded[i]!));
time('encode', (i) => encodePlaceOrder(decoded[i]!));
time('encode+sha', (i) => sha256(encodePlaceOrder(decoded[i]!)));
time('sigcheck', (i) => placeSignatureCheck(decoded[i]!));
time('JSON.parse', (i) => JSON.parse(texts[i]!));
time('all', (i) => { const o = decode(PlaceOrderSchema, parseJsonText(texts[i]!)); checkPlaceOrderFields(o); return placeSignatureCheck(o); });
