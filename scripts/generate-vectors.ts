/**
 * Writes packages/protocol/vectors/canonical-v5.json: test vectors of the three signed bodies
 * (place venue-order-v5, cancel venue-cancel-v5, modify venue-modify-v5) for other implementations
 * of the interface, and for our own tests (packages/protocol/test/vectors.test.ts checks every valid
 * case against an independent Ed25519 and an independent byte layout).
 *
 * Deterministic: every key, id and hash comes from sha256 of a fixed label; no randomness, no
 * clock. `npm run vectors` rewrites the file; a test fails when the committed file differs from
 * what buildVectors() returns, so the two cannot drift.
 */
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CANCEL_DOMAIN,
  CANCEL_LAYOUT,
  type CancelBody,
  decodeCancelParams,
  decodeModifyRequest,
  decodePlaceOrder,
  ERRORS,
  type ErrorName,
  encodeCancel,
  encodeModifyCancel,
  encodePlaceOrder,
  JsonNumberToken,
  MODIFY_DOMAIN,
  MODIFY_LAYOUT,
  modifyCancelBody,
  PLACE_ORDER_DOMAIN,
  PLACE_ORDER_LAYOUT,
  type PlacedField,
  type PlaceOrder,
  parseJsonText,
  signCancel,
  signDigest,
  signModify,
  signPlaceOrder,
  stringifyJson,
  type TradingKey,
  tradingKeyFromSeed,
  type UnsignedPlaceOrder,
  VenueError,
  verifyCancel,
  verifyModify,
  verifyPlaceOrder,
} from '@venue/protocol';

export const VECTORS_PATH = fileURLToPath(
  new URL('../packages/protocol/vectors/canonical-v5.json', import.meta.url),
);

export type VectorKind = 'place' | 'cancel' | 'modify';

export interface ValidVector {
  name: string;
  kind: VectorKind;
  description: string;
  /** The request text exactly as sent (place body, cancel params, or modify request). */
  json: string;
  /** cancel and modify: the order id from the path (REST) or the frame's order_id (stream). */
  order_id?: string;
  /** Test key only: the 32-byte Ed25519 seed (RFC 8032 private key) that signed this case. */
  secret_seed_hex: string;
  public_key_hex: string;
  /** place: the place bytes; cancel: the cancel bytes; modify: the modify-cancel bytes. */
  canonical_hex: string;
  sha256_hex: string;
  /** place and cancel: trading_key_signature; modify: cancel_signature. */
  signature_hex: string;
  /** modify only: the replacement's canonical place bytes, digest and trading_key_signature. */
  replacement_canonical_hex?: string;
  replacement_sha256_hex?: string;
  replacement_signature_hex?: string;
}

export interface InvalidVector {
  name: string;
  kind: VectorKind;
  description: string;
  json: string;
  order_id?: string;
  expected_code: number;
  expected_error: ErrorName;
  /** The body is well formed and passes every field rule; only a signature fails (code 1102). */
  signature_invalid?: true;
}

export interface VectorFile {
  format_version: 1;
  generator: 'scripts/generate-vectors.ts';
  regenerate: 'npm run vectors';
  interface_version: '4.1.0';
  description: string;
  conventions: Record<string, string>;
  layouts: Record<VectorKind, { domain: string; size: number; fields: LayoutRow[] }>;
  valid: ValidVector[];
  invalid: InvalidVector[];
}

interface LayoutRow {
  name: string;
  offset: number;
  length: number;
  encoding: string;
}

// ---------------------------------------------------------------------------------------------
// Deterministic material

function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** `length` bytes derived from a label: sha256("venue-vector-<label>-<i>") for i = 0, 1, ... */
function bytesOf(label: string, length: number): string {
  const blocks: Buffer[] = [];
  for (let i = 0; blocks.length * 32 < length; i++) blocks.push(sha256(`venue-vector-${label}-${i}`));
  return hex(Buffer.concat(blocks).subarray(0, length));
}

/** Trading key N: the Ed25519 key of seed sha256("venue-vector-key-N"). */
function seedOfKey(n: number): Buffer {
  return sha256(`venue-vector-key-${n}`);
}
function key(n: number): TradingKey {
  return tradingKeyFromSeed(seedOfKey(n));
}

const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** Viewing key N: the X25519 public key of private key sha256("venue-vector-viewing-N"). */
function viewingKey(n: number): string {
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, sha256(`venue-vector-viewing-${n}`)]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return hex(spki.subarray(spki.length - 32));
}

const U64_MAX = 2n ** 64n - 1n;
const SESSION = bytesOf('session', 32);
const OLD_ORDER_ID = bytesOf('old-order-id', 16);
const ORDER_FIELDS = [
  'symbol',
  'side',
  'order_type',
  'amount',
  'price_limit',
  'min_fill_size',
  'expiry_slot',
  'order_id',
  'note_commitment',
  'arrival_nonce',
  'trading_key',
  'trading_key_signature',
  'owner_commitment',
  'note_inner_hash',
  'merkle_root',
  'valid_input_proof',
  'collateral_amount',
  'tree_id',
  'viewing_pubkey',
  'session_id',
] as const;

type Overrides = { [K in keyof UnsignedPlaceOrder]?: UnsignedPlaceOrder[K] | undefined };

/** A valid unsigned order of key `k`; `over` replaces fields, `undefined` removes an optional one. */
function order(k: number, tag: string, over: Overrides = {}): UnsignedPlaceOrder {
  const base: Record<string, unknown> = {
    symbol: 'SOL-USDC',
    side: 'bid',
    order_type: 'limit',
    amount: 2_500_000_000n,
    price_limit: 151_250_000n,
    expiry_slot: 312_004_500n,
    order_id: bytesOf(`order-id-${tag}`, 16),
    note_commitment: bytesOf(`note-commitment-${tag}`, 32),
    arrival_nonce: 17n,
    trading_key: key(k).publicKey,
    owner_commitment: bytesOf(`owner-commitment-${k}`, 32),
    note_inner_hash: bytesOf(`note-inner-hash-${tag}`, 32),
    merkle_root: bytesOf('merkle-root', 32),
    valid_input_proof: bytesOf(`proof-${tag}`, 256),
    viewing_pubkey: viewingKey(k),
    session_id: SESSION,
  };
  for (const [name, value] of Object.entries(over)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base as unknown as UnsignedPlaceOrder;
}

/** The wire object of an order, keys in the order of spec 2.1. */
function wire(o: UnsignedPlaceOrder | PlaceOrder): Record<string, unknown> {
  const source = o as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const name of ORDER_FIELDS) if (source[name] !== undefined) out[name] = source[name];
  return out;
}

function sign(o: UnsignedPlaceOrder, k: number): PlaceOrder {
  return signPlaceOrder(o, key(k));
}

function cancelBody(k: number, nonce: bigint, orderId = OLD_ORDER_ID): CancelBody {
  return { order_id: orderId, trading_key: key(k).publicKey, cancel_nonce: nonce, session_id: SESSION };
}

function cancelWire(body: CancelBody, signature: string): Record<string, unknown> {
  return {
    trading_key: body.trading_key,
    cancel_nonce: body.cancel_nonce.toString(),
    session_id: body.session_id,
    trading_key_signature: signature,
  };
}

function modifyWire(
  cancelSignature: string,
  nonce: string,
  replacement: PlaceOrder,
): Record<string, unknown> {
  return { cancel_signature: cancelSignature, cancel_nonce: nonce, replacement: wire(replacement) };
}

/** Flips the lowest bit of byte `index` of a hex string. */
function flipBit(hexText: string, index: number): string {
  const bytes = Buffer.from(hexText, 'hex');
  bytes[index] = (bytes[index] ?? 0) ^ 1;
  return hex(bytes);
}

/** Ed25519 group order L. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The same signature with S replaced by S + L: verifies under a lax verifier, refused by RFC 8032. */
function malleate(signatureHex: string): string {
  const bytes = Buffer.from(signatureHex, 'hex');
  const s = BigInt(`0x${Buffer.from(bytes.subarray(32)).reverse().toString('hex')}`);
  const sPlusL = Buffer.from((s + L).toString(16).padStart(64, '0'), 'hex').reverse();
  return hex(Buffer.concat([bytes.subarray(0, 32), sPlusL]));
}

const num = (text: string) => new JsonNumberToken(text);

// ---------------------------------------------------------------------------------------------
// Cases

function validPlace(name: string, description: string, k: number, o: UnsignedPlaceOrder, json?: string) {
  const signed = sign(o, k);
  const text = json ?? stringifyJson(wire(signed));
  const decoded = decodePlaceOrder(parseJsonText(text));
  verifyPlaceOrder(decoded);
  const bytes = encodePlaceOrder(decoded);
  return {
    name,
    kind: 'place',
    description,
    json: text,
    secret_seed_hex: hex(seedOfKey(k)),
    public_key_hex: key(k).publicKey,
    canonical_hex: hex(bytes),
    sha256_hex: hex(sha256(bytes)),
    signature_hex: decoded.trading_key_signature,
  } satisfies ValidVector;
}

function validCancel(name: string, description: string, k: number, body: CancelBody): ValidVector {
  const signature = signCancel(body, key(k));
  const text = stringifyJson(cancelWire(body, signature));
  const params = decodeCancelParams(parseJsonText(text));
  const decodedBody = { order_id: body.order_id, ...params };
  verifyCancel(decodedBody, params.trading_key_signature);
  const bytes = encodeCancel(decodedBody);
  return {
    name,
    kind: 'cancel',
    description,
    json: text,
    order_id: body.order_id,
    secret_seed_hex: hex(seedOfKey(k)),
    public_key_hex: key(k).publicKey,
    canonical_hex: hex(bytes),
    sha256_hex: hex(sha256(bytes)),
    signature_hex: signature,
  };
}

function validModify(
  name: string,
  description: string,
  k: number,
  oldOrderId: string,
  nonce: bigint,
  replacement: UnsignedPlaceOrder,
): ValidVector {
  const signedReplacement = sign(replacement, k);
  const request = signModify(oldOrderId, nonce, signedReplacement, key(k));
  const text = stringifyJson(modifyWire(request.cancel_signature, nonce.toString(), signedReplacement));
  const decoded = decodeModifyRequest(parseJsonText(text));
  verifyModify(oldOrderId, decoded);
  const bytes = encodeModifyCancel(modifyCancelBody(oldOrderId, decoded.cancel_nonce, decoded.replacement));
  const replacementBytes = encodePlaceOrder(decoded.replacement);
  return {
    name,
    kind: 'modify',
    description,
    json: text,
    order_id: oldOrderId,
    secret_seed_hex: hex(seedOfKey(k)),
    public_key_hex: key(k).publicKey,
    canonical_hex: hex(bytes),
    sha256_hex: hex(sha256(bytes)),
    signature_hex: decoded.cancel_signature,
    replacement_canonical_hex: hex(replacementBytes),
    replacement_sha256_hex: hex(sha256(replacementBytes)),
    replacement_signature_hex: decoded.replacement.trading_key_signature,
  };
}

function buildValid(): ValidVector[] {
  const base = order(1, 'base');
  const baseJson = stringifyJson(wire(sign(base, 1)));
  const reordered = wire(sign(base, 1));
  const reversed: Record<string, unknown> = {};
  for (const name of Object.keys(reordered).reverse()) reversed[name] = reordered[name];
  const pretty = `{\n  ${baseJson.slice(1, -1).replace(/,"/g, ',\n  "').replace(/":/g, '": ')}\n}`;
  const replacement = (tag: string, over: Overrides = {}) =>
    order(1, tag, { arrival_nonce: 18n, price_limit: 150_000_000n, ...over });

  return [
    validPlace(
      'place-limit-bid',
      'Limit bid with every optional field omitted (min_fill_size = 0, no collateral_amount, tree_id = 0).',
      1,
      base,
    ),
    validPlace(
      'place-keys-reversed',
      'The body of place-limit-bid with its JSON keys in reverse order: key order does not change the canonical bytes.',
      1,
      base,
      stringifyJson(reversed),
    ),
    validPlace(
      'place-whitespace',
      'The body of place-limit-bid pretty-printed: whitespace does not change the canonical bytes.',
      1,
      base,
      pretty,
    ),
    validPlace(
      'place-min-fill-explicit-zero',
      'place-limit-bid with min_fill_size: 0 written out: the same canonical bytes and signature as omitting it.',
      1,
      order(1, 'base', { min_fill_size: 0n }),
    ),
    validPlace(
      'place-tree-id-explicit-zero',
      'place-limit-bid with tree_id: 0 written out: the same canonical bytes and signature as omitting it.',
      1,
      order(1, 'base', { tree_id: 0 }),
    ),
    validPlace(
      'place-collateral-zero',
      'place-limit-bid with collateral_amount: 0 written out: presence byte 0x01, so the bytes DIFFER from omitting it.',
      1,
      order(1, 'base', { collateral_amount: 0n }),
    ),
    validPlace(
      'place-collateral-present',
      'Over-collateralised bid: collateral_amount above the nominal cost.',
      1,
      order(1, 'collateral', { collateral_amount: 400_000_000_000_000n }),
    ),
    validPlace(
      'place-amount-u64-max',
      'amount and collateral_amount = 18446744073709551615 (u64 max, above 2^53): must survive JSON exactly.',
      1,
      order(1, 'u64-max', {
        side: 'ask',
        amount: U64_MAX,
        min_fill_size: U64_MAX,
        collateral_amount: U64_MAX,
      }),
    ),
    validPlace(
      'place-u64-above-2-53',
      'Integers just above 2^53 (9007199254740993) in every u64 field, where a double would round.',
      1,
      order(1, 'above-2-53', {
        amount: 9_007_199_254_740_993n,
        price_limit: 9_007_199_254_740_993n,
        min_fill_size: 9_007_199_254_740_993n,
        expiry_slot: 9_007_199_254_740_993n,
        arrival_nonce: 9_007_199_254_740_993n,
        collateral_amount: 9_007_199_254_740_993n,
      }),
    ),
    validPlace(
      'place-zeros',
      'Ask with price_limit 0 (accepts any clearing price), expiry_slot 0 and arrival_nonce 0: valid at the wire level.',
      2,
      order(2, 'zeros', { side: 'ask', price_limit: 0n, expiry_slot: 0n, arrival_nonce: 0n }),
    ),
    validPlace(
      'place-tree-id-255',
      'tree_id 255, the largest u8.',
      1,
      order(1, 'tree-255', { tree_id: 255 }),
    ),
    validPlace(
      'place-ioc',
      'order_type ioc (byte 0x01), ask side (byte 0x01).',
      2,
      order(2, 'ioc', { side: 'ask', order_type: 'ioc' }),
    ),
    validPlace(
      'place-fok',
      'order_type fok (byte 0x02) with min_fill_size = amount (all-or-none).',
      2,
      order(2, 'fok', { order_type: 'fok', min_fill_size: 2_500_000_000n }),
    ),
    validPlace(
      'place-long-symbol',
      'The longest symbol: 12 + 1 + 12 = 25 characters, digits included.',
      3,
      order(3, 'long-symbol', { symbol: 'ABCDEFGHIJK1-ZYXWVUTSRQP9', tree_id: 7 }),
    ),
    validPlace(
      'place-short-symbol',
      'The shortest symbol: 3 characters.',
      3,
      order(3, 'short-symbol', { symbol: 'A-B' }),
    ),
    validPlace(
      'place-all-optional',
      'Every optional field present and non-default.',
      3,
      order(3, 'all-optional', { min_fill_size: 100_000n, collateral_amount: 999_999_999_999n, tree_id: 3 }),
    ),
    validCancel('cancel', 'Cancel of an order with nonce 42.', 1, cancelBody(1, 42n)),
    validCancel('cancel-nonce-zero', 'Cancel with cancel_nonce "0".', 2, cancelBody(2, 0n)),
    validCancel(
      'cancel-nonce-u64-max',
      'Cancel with cancel_nonce "18446744073709551615" (u64 max).',
      3,
      cancelBody(3, U64_MAX, bytesOf('order-id-base', 16)),
    ),
    validModify(
      'modify-new-id',
      'Modify: the old order is replaced by an order with a new id; the modify-cancel bytes bind the sha256 of the replacement bytes.',
      1,
      OLD_ORDER_ID,
      43n,
      replacement('modify-new-id'),
    ),
    validModify(
      'modify-reprice-in-place',
      'Modify with the replacement order_id equal to the old id (reprice in place).',
      1,
      OLD_ORDER_ID,
      44n,
      replacement('modify-in-place', { order_id: OLD_ORDER_ID }),
    ),
    validModify(
      'modify-nonce-u64-max',
      'Modify with cancel_nonce u64 max and a replacement with every optional field present.',
      2,
      OLD_ORDER_ID,
      U64_MAX,
      order(2, 'modify-u64', {
        amount: U64_MAX,
        min_fill_size: 1n,
        collateral_amount: U64_MAX,
        tree_id: 255,
        side: 'ask',
        price_limit: 0n,
      }),
    ),
    validModify(
      'modify-nonce-zero',
      'Modify with cancel_nonce "0" and an ioc replacement.',
      3,
      bytesOf('order-id-long-symbol', 16),
      0n,
      order(3, 'modify-zero', { order_type: 'ioc' }),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Invalid cases: each differs from a valid request in one respect.

interface InvalidSpec {
  name: string;
  kind: VectorKind;
  description: string;
  json: string;
  order_id?: string;
  error: ErrorName;
  signature_invalid?: true;
}

function buildInvalid(): InvalidVector[] {
  const signed = sign(order(1, 'base'), 1);
  const text = stringifyJson(wire(signed));
  /** The valid base order with one field replaced (not re-signed: the field check fails first). */
  const placeWith = (field: string, value: unknown) => stringifyJson({ ...wire(signed), [field]: value });
  /** An order built by `o`, properly signed: only its field rule is wrong. */
  const signedPlace = (o: UnsignedPlaceOrder) => stringifyJson(wire(sign(o, 1)));
  const without = (field: string) => {
    const w = wire(signed);
    delete w[field];
    return stringifyJson(w);
  };

  const cancel = cancelBody(1, 42n);
  const cancelSignature = signCancel(cancel, key(1));
  const cancelWith = (field: string, value: unknown) =>
    stringifyJson({ ...cancelWire(cancel, cancelSignature), [field]: value });

  const rep = sign(order(1, 'modify-new-id', { arrival_nonce: 18n, price_limit: 150_000_000n }), 1);
  const modify = signModify(OLD_ORDER_ID, 43n, rep, key(1));
  const modifyText = (over: Record<string, unknown>, replacementOver: Record<string, unknown> = {}) =>
    stringifyJson({
      ...modifyWire(modify.cancel_signature, '43', rep),
      ...over,
      replacement: { ...wire(rep), ...replacementOver },
    });
  const properModify = (replacementOrder: PlaceOrder, nonce = 43n, k = 1) =>
    stringifyJson(
      modifyWire(
        signModify(OLD_ORDER_ID, nonce, replacementOrder, key(k)).cancel_signature,
        nonce.toString(),
        replacementOrder,
      ),
    );

  const specs: InvalidSpec[] = [
    // --- numbers
    {
      name: 'place-amount-2-64',
      kind: 'place',
      description: 'amount 18446744073709551616 = 2^64, one above u64 max.',
      json: placeWith('amount', num('18446744073709551616')),
      error: 'OUT_OF_RANGE',
    },
    {
      name: 'place-amount-fraction',
      kind: 'place',
      description: 'amount written 1.0: integers carry no fraction.',
      json: placeWith('amount', num('1.0')),
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'place-amount-exponent',
      kind: 'place',
      description: 'amount written 1e3: integers carry no exponent.',
      json: placeWith('amount', num('1e3')),
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'place-amount-negative',
      kind: 'place',
      description: 'amount -1: below the u64 range.',
      json: placeWith('amount', num('-1')),
      error: 'OUT_OF_RANGE',
    },
    {
      name: 'place-amount-minus-zero',
      kind: 'place',
      description: 'amount -0: not the canonical way to write 0.',
      json: placeWith('amount', num('-0')),
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'place-amount-string',
      kind: 'place',
      description: 'amount as the string "2500000000": u64 fields of the place body are bare JSON integers.',
      json: placeWith('amount', '2500000000'),
      error: 'WRONG_TYPE',
    },
    {
      name: 'place-tree-id-256',
      kind: 'place',
      description: 'tree_id 256: above the u8 range.',
      json: placeWith('tree_id', num('256')),
      error: 'OUT_OF_RANGE',
    },
    // --- enums and formats
    {
      name: 'place-side-buy',
      kind: 'place',
      description: 'side "buy": the values are bid and ask.',
      json: placeWith('side', 'buy'),
      error: 'INVALID_ENUM',
    },
    {
      name: 'place-order-type-market',
      kind: 'place',
      description: 'order_type "market": the values are limit, ioc and fok.',
      json: placeWith('order_type', 'market'),
      error: 'INVALID_ENUM',
    },
    {
      name: 'place-symbol-lowercase',
      kind: 'place',
      description: 'symbol "sol-usdc": symbols are uppercase.',
      json: placeWith('symbol', 'sol-usdc'),
      error: 'INVALID_FORMAT',
    },
    {
      name: 'place-hex-uppercase',
      kind: 'place',
      description: 'order_id in uppercase hex: hex fields are lowercase.',
      json: placeWith('order_id', signed.order_id.toUpperCase()),
      error: 'INVALID_HEX',
    },
    {
      name: 'place-order-id-short',
      kind: 'place',
      description: 'order_id of 15 bytes (30 hex characters).',
      json: placeWith('order_id', signed.order_id.slice(2)),
      error: 'INVALID_HEX',
    },
    {
      name: 'place-order-id-odd-length',
      kind: 'place',
      description: 'order_id of 33 hex characters.',
      json: placeWith('order_id', `${signed.order_id}0`),
      error: 'INVALID_HEX',
    },
    // --- structure
    {
      name: 'place-unknown-field',
      kind: 'place',
      description: 'An extra field client_tag: requests carry no fields the interface does not define.',
      json: placeWith('client_tag', 'x'),
      error: 'UNKNOWN_FIELD',
    },
    {
      name: 'place-missing-field',
      kind: 'place',
      description: 'expiry_slot absent: it is required.',
      json: without('expiry_slot'),
      error: 'MISSING_FIELD',
    },
    {
      name: 'place-duplicate-key',
      kind: 'place',
      description: 'side given twice with different values ("ask" then "bid").',
      json: `{"side":"ask",${text.slice(1)}`,
      error: 'MALFORMED_JSON',
    },
    {
      name: 'place-duplicate-key-same-value',
      kind: 'place',
      description: 'side given twice with the SAME value: still refused, two readers must never disagree.',
      json: `{"side":"bid",${text.slice(1)}`,
      error: 'MALFORMED_JSON',
    },
    // --- field rules (signed correctly, so only the rule fails)
    {
      name: 'place-zero-order-id',
      kind: 'place',
      description: 'order_id all zeros.',
      json: signedPlace(order(1, 'base', { order_id: '0'.repeat(32) })),
      error: 'ZERO_ORDER_ID',
    },
    {
      name: 'place-bid-price-zero',
      kind: 'place',
      description: 'A bid with price_limit 0 (only an ask may use 0).',
      json: signedPlace(order(1, 'base', { price_limit: 0n })),
      error: 'BID_PRICE_ZERO',
    },
    {
      name: 'place-amount-zero',
      kind: 'place',
      description: 'amount 0.',
      json: signedPlace(order(1, 'base', { amount: 0n })),
      error: 'BELOW_MIN_SIZE',
    },
    {
      name: 'place-min-fill-above-amount',
      kind: 'place',
      description: 'min_fill_size one above amount.',
      json: signedPlace(order(1, 'base', { min_fill_size: 2_500_000_001n })),
      error: 'MIN_FILL_ABOVE_AMOUNT',
    },
    {
      name: 'place-low-order-viewing-key',
      kind: 'place',
      description:
        'viewing_pubkey = X25519 u-coordinate 0, a low-order point giving an all-zero shared secret.',
      json: signedPlace(order(1, 'base', { viewing_pubkey: '0'.repeat(64) })),
      error: 'LOW_ORDER_VIEWING_KEY',
    },
    {
      name: 'place-low-order-viewing-key-order-8',
      kind: 'place',
      description: 'viewing_pubkey = a point of order 8 on Curve25519.',
      json: signedPlace(
        order(1, 'base', {
          viewing_pubkey: 'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
        }),
      ),
      error: 'LOW_ORDER_VIEWING_KEY',
    },
    {
      name: 'place-small-order-trading-key',
      kind: 'place',
      description: 'trading_key = the identity point (order 1): one signature would verify for any message.',
      json: placeWith('trading_key', `01${'0'.repeat(62)}`),
      error: 'INVALID_TRADING_KEY',
    },
    {
      name: 'place-small-order-trading-key-order-8',
      kind: 'place',
      description: 'trading_key = a point of order 8.',
      json: placeWith('trading_key', 'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'),
      error: 'INVALID_TRADING_KEY',
    },
    {
      name: 'place-trading-key-non-canonical-identity',
      kind: 'place',
      description:
        'trading_key 01..80: y = 1 with the sign bit set, a non-canonical encoding of the identity (x = 0).',
      json: placeWith('trading_key', `01${'0'.repeat(60)}80`),
      error: 'INVALID_TRADING_KEY',
    },
    {
      name: 'place-trading-key-y-above-p',
      kind: 'place',
      description: 'trading_key with y = p + 2 (non-canonical encoding, y >= p).',
      json: placeWith('trading_key', `ef${'f'.repeat(60)}7f`),
      error: 'INVALID_TRADING_KEY',
    },
    // --- signatures
    {
      name: 'place-bad-signature',
      kind: 'place',
      description: 'The signature of place-limit-bid with its lowest bit flipped.',
      json: placeWith('trading_key_signature', flipBit(signed.trading_key_signature, 0)),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'place-body-changed',
      kind: 'place',
      description: 'place-limit-bid with amount raised by one after signing.',
      json: placeWith('amount', 2_500_000_001n),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'place-malleated-signature',
      kind: 'place',
      description: 'The signature of place-limit-bid with S replaced by S + L (RFC 8032 requires S < L).',
      json: placeWith('trading_key_signature', malleate(signed.trading_key_signature)),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'place-signed-by-other-key',
      kind: 'place',
      description: 'The canonical bytes of place-limit-bid (naming trading key 1) signed by trading key 2.',
      json: placeWith(
        'trading_key_signature',
        signDigest(key(2), sha256(encodePlaceOrder(order(1, 'base')))),
      ),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    // --- cancel
    {
      name: 'cancel-nonce-leading-zero',
      kind: 'cancel',
      description: 'cancel_nonce "007": canonical decimals have no leading zero.',
      json: cancelWith('cancel_nonce', '007'),
      order_id: OLD_ORDER_ID,
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'cancel-nonce-negative',
      kind: 'cancel',
      description: 'cancel_nonce "-1": no sign.',
      json: cancelWith('cancel_nonce', '-1'),
      order_id: OLD_ORDER_ID,
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'cancel-nonce-2-64',
      kind: 'cancel',
      description: 'cancel_nonce "18446744073709551616" = 2^64.',
      json: cancelWith('cancel_nonce', '18446744073709551616'),
      order_id: OLD_ORDER_ID,
      error: 'OUT_OF_RANGE',
    },
    {
      name: 'cancel-nonce-integer',
      kind: 'cancel',
      description: 'cancel_nonce as a bare JSON integer: it travels as a decimal string.',
      json: cancelWith('cancel_nonce', 42n),
      order_id: OLD_ORDER_ID,
      error: 'WRONG_TYPE',
    },
    {
      name: 'cancel-unknown-field',
      kind: 'cancel',
      description: 'Cancel params with an extra order_id field (the id comes from the path or frame).',
      json: cancelWith('order_id', OLD_ORDER_ID),
      order_id: OLD_ORDER_ID,
      error: 'UNKNOWN_FIELD',
    },
    {
      name: 'cancel-bad-signature',
      kind: 'cancel',
      description: 'The signature of a valid cancel with its lowest bit flipped.',
      json: cancelWith('trading_key_signature', flipBit(cancelSignature, 0)),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'cancel-other-order-id',
      kind: 'cancel',
      description: 'A valid cancel signature presented for another order id.',
      json: cancelWith('trading_key_signature', cancelSignature),
      order_id: bytesOf('order-id-base', 16),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'cancel-with-modify-signature',
      kind: 'cancel',
      description:
        'A modify cancel_signature (domain venue-modify-v5) over the same order, key, nonce and session, sent as a bare cancel.',
      json: stringifyJson(cancelWire(cancelBody(1, 43n), modify.cancel_signature)),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    // --- modify
    {
      name: 'modify-nonce-leading-zero',
      kind: 'modify',
      description: 'cancel_nonce "043".',
      json: modifyText({ cancel_nonce: '043' }),
      order_id: OLD_ORDER_ID,
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'modify-nonce-2-64',
      kind: 'modify',
      description: 'cancel_nonce "18446744073709551616" = 2^64.',
      json: modifyText({ cancel_nonce: '18446744073709551616' }),
      order_id: OLD_ORDER_ID,
      error: 'OUT_OF_RANGE',
    },
    {
      name: 'modify-replacement-missing-field',
      kind: 'modify',
      description: 'replacement without session_id.',
      json: stringifyJson({
        ...modifyWire(modify.cancel_signature, '43', rep),
        replacement: Object.fromEntries(Object.entries(wire(rep)).filter(([k]) => k !== 'session_id')),
      }),
      order_id: OLD_ORDER_ID,
      error: 'MISSING_FIELD',
    },
    {
      name: 'modify-replacement-unknown-field',
      kind: 'modify',
      description: 'replacement with an extra field.',
      json: modifyText({}, { client_tag: 'x' }),
      order_id: OLD_ORDER_ID,
      error: 'UNKNOWN_FIELD',
    },
    {
      name: 'modify-replacement-amount-fraction',
      kind: 'modify',
      description: 'replacement.amount written 1.0.',
      json: modifyText({}, { amount: num('1.0') }),
      order_id: OLD_ORDER_ID,
      error: 'NON_CANONICAL_NUMBER',
    },
    {
      name: 'modify-replacement-zero-order-id',
      kind: 'modify',
      description: 'A properly signed modify whose replacement has an all-zero order_id.',
      json: properModify(
        sign(order(1, 'modify-new-id', { arrival_nonce: 18n, order_id: '0'.repeat(32) }), 1),
      ),
      order_id: OLD_ORDER_ID,
      error: 'ZERO_ORDER_ID',
    },
    {
      name: 'modify-replacement-bid-price-zero',
      kind: 'modify',
      description: 'A properly signed modify whose replacement is a bid at price 0.',
      json: properModify(sign(order(1, 'modify-new-id', { arrival_nonce: 18n, price_limit: 0n }), 1)),
      order_id: OLD_ORDER_ID,
      error: 'BID_PRICE_ZERO',
    },
    {
      name: 'modify-duplicate-key-in-replacement',
      kind: 'modify',
      description: 'replacement.amount given twice with the same value.',
      json: modifyText({}).replace('"replacement":{', `"replacement":{"amount":${rep.amount},`),
      order_id: OLD_ORDER_ID,
      error: 'MALFORMED_JSON',
    },
    {
      name: 'modify-bad-cancel-signature',
      kind: 'modify',
      description: 'modify-new-id with the lowest bit of cancel_signature flipped.',
      json: modifyText({ cancel_signature: flipBit(modify.cancel_signature, 0) }),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'modify-bad-replacement-signature',
      kind: 'modify',
      description: "modify-new-id with the lowest bit of the replacement's trading_key_signature flipped.",
      json: modifyText({}, { trading_key_signature: flipBit(rep.trading_key_signature, 0) }),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'modify-cancel-signature-is-plain-cancel',
      kind: 'modify',
      description:
        'cancel_signature is a bare cancel signature (domain venue-cancel-v5) over the same order, key, nonce and session.',
      json: modifyText({ cancel_signature: signCancel(cancelBody(1, 43n), key(1)) }),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'modify-cancel-signed-by-other-key',
      kind: 'modify',
      description:
        'The replacement is signed by key 1, the cancel half (same body) by key 2 (spec 4.1 rule 3: one key signs both).',
      json: modifyText({
        cancel_signature: signDigest(
          key(2),
          sha256(encodeModifyCancel(modifyCancelBody(OLD_ORDER_ID, 43n, rep))),
        ),
      }),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'modify-other-replacement',
      kind: 'modify',
      description:
        'The cancel half of modify-new-id paired with another (validly signed) replacement: the cancel half binds the replacement digest.',
      json: stringifyJson(
        modifyWire(
          modify.cancel_signature,
          '43',
          sign(order(1, 'modify-other', { arrival_nonce: 18n, price_limit: 150_000_000n }), 1),
        ),
      ),
      order_id: OLD_ORDER_ID,
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
    {
      name: 'modify-other-old-order',
      kind: 'modify',
      description: 'A valid modify presented for another old order id.',
      json: modifyText({}),
      order_id: bytesOf('order-id-base', 16),
      error: 'BAD_SIGNATURE',
      signature_invalid: true,
    },
  ];

  return specs.map((spec) => {
    const { error, ...rest } = spec;
    return { ...rest, expected_code: ERRORS[error].code, expected_error: error };
  });
}

// ---------------------------------------------------------------------------------------------

/** Runs an invalid case through the protocol; returns the VenueError it raised, or undefined. */
export function refusal(vector: Pick<InvalidVector, 'kind' | 'json' | 'order_id'>): VenueError | undefined {
  try {
    const parsed = parseJsonText(vector.json);
    if (vector.kind === 'place') verifyPlaceOrder(decodePlaceOrder(parsed));
    else if (vector.kind === 'cancel') {
      const params = decodeCancelParams(parsed);
      verifyCancel({ order_id: vector.order_id ?? '', ...params }, params.trading_key_signature);
    } else verifyModify(vector.order_id ?? '', decodeModifyRequest(parsed));
  } catch (error) {
    if (error instanceof VenueError) return error;
    throw error;
  }
  return undefined;
}

function layoutRows(fields: readonly PlacedField[]): LayoutRow[] {
  return fields.map((f) => ({ name: f.name, offset: f.offset, length: f.length, encoding: f.note }));
}

/** The whole vector file, as a value. Pure: the same result on every run. */
export function buildVectors(): VectorFile {
  const valid = buildValid();
  const invalid = buildInvalid();
  const names = new Set<string>();
  for (const v of [...valid, ...invalid]) {
    if (names.has(v.name)) throw new Error(`duplicate vector name ${v.name}`);
    names.add(v.name);
  }
  for (const v of invalid) {
    const error = refusal(v);
    if (error?.code !== v.expected_code) {
      throw new Error(
        `vector ${v.name}: expected ${v.expected_code}, the protocol gave ${error?.code ?? 'success'}`,
      );
    }
  }
  return {
    format_version: 1,
    generator: 'scripts/generate-vectors.ts',
    regenerate: 'npm run vectors',
    interface_version: '4.1.0',
    description:
      'Canonical encodings and Ed25519 signatures of the three signed bodies of the venue (place, cancel, modify), with requests every implementation must refuse.',
    conventions: {
      json: 'The request text exactly as sent. Some integers exceed 2^53: parse it losslessly.',
      canonical:
        'Fixed-length big-endian encoding described by `layouts`; sha256_hex is sha256(canonical bytes).',
      signature:
        'Ed25519 (RFC 8032 PureEdDSA, strict: S < L, canonical points) over the 32-byte sha256 digest.',
      keys: 'Test keys only: trading key N has seed sha256("venue-vector-key-N"); secret_seed_hex repeats it.',
      cancel: 'cancel json holds the params of spec 2.4; order_id is the path (REST) or frame order_id.',
      modify:
        "modify canonical_hex is the modify-cancel body: old order_id, the replacement's trading_key and session_id, cancel_nonce, sha256 of the replacement's canonical bytes. signature_hex is cancel_signature.",
      invalid:
        'Each invalid case must be refused with expected_code. signature_invalid cases are well formed and pass every field rule; only a signature fails.',
    },
    layouts: {
      place: {
        domain: PLACE_ORDER_DOMAIN,
        size: PLACE_ORDER_LAYOUT.size,
        fields: layoutRows(PLACE_ORDER_LAYOUT.fields),
      },
      cancel: { domain: CANCEL_DOMAIN, size: CANCEL_LAYOUT.size, fields: layoutRows(CANCEL_LAYOUT.fields) },
      modify: { domain: MODIFY_DOMAIN, size: MODIFY_LAYOUT.size, fields: layoutRows(MODIFY_LAYOUT.fields) },
    },
    valid,
    invalid,
  };
}

/** The exact text of the vector file. */
export function vectorFileText(): string {
  return `${JSON.stringify(buildVectors(), null, 2)}\n`;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && resolve(invokedPath) === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(VECTORS_PATH), { recursive: true });
  const textOut = vectorFileText();
  writeFileSync(VECTORS_PATH, textOut);
  const file = JSON.parse(textOut) as VectorFile;
  console.log(`wrote ${VECTORS_PATH}: ${file.valid.length} valid and ${file.invalid.length} invalid cases`);
}
