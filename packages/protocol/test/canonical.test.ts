/**
 * Property tests of the canonical encodings: random valid place, cancel and modify bodies (every
 * field within its rules, u64 extremes included) survive JSON and byte round trips exactly, sign
 * and verify, and any change to bytes or fields breaks the signature. The byte decoders refuse
 * anything an encoder could not have produced, and a signature of one body kind never verifies as
 * another.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import {
  type CancelBody,
  type CancelParams,
  CancelParamsSchema,
  decodeCancelBytes,
  decodeCancelParams,
  decodeModifyCancelBytes,
  decodeModifyRequest,
  decodePlaceOrder,
  decodePlaceOrderBytes,
  encodeCancel,
  encodeModifyCancel,
  encodePlaceOrder,
  type ModifyRequest,
  ModifyRequestSchema,
  modifyCancelBody,
  type PlaceOrder,
  parseJsonText,
  sha256,
  signCancel,
  signModify,
  signPlaceOrder,
  stringifyJson,
  type TradingKey,
  toWire,
  tradingKeyFromSeed,
  type UnsignedPlaceOrder,
  verifyCancel,
  verifyDigest,
  verifyModify,
  verifyPlaceOrder,
  wireJsonText,
} from '@venue/protocol';
import { codeOf } from '@venue/testing';
import fc from 'fast-check';

const U64_MAX = 2n ** 64n - 1n;
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// ---------------------------------------------------------------------------------------------
// Arbitraries

const u64 = fc.oneof(
  fc.constantFrom(0n, 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, U64_MAX - 1n, U64_MAX),
  fc.bigInt({ min: 0n, max: U64_MAX }),
);
const positiveU64 = u64.map((v) => (v === 0n ? 1n : v));
const hexOf = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map(toHex);
const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const symbolPart = fc.stringMatching(/^[A-Z0-9]{1,12}$/);
const symbol = fc.tuple(symbolPart, symbolPart).map(([base, quote]) => `${base}-${quote}`);
const orderId = hexOf(16).filter((h) => h !== '0'.repeat(32));

interface Signed<T> {
  key: TradingKey;
  value: T;
}

/** A valid signed place-order body with its key. */
const placeOrder: fc.Arbitrary<Signed<PlaceOrder>> = fc
  .record({
    seed,
    viewingSeed: seed,
    symbol,
    side: fc.constantFrom('bid', 'ask' as const),
    order_type: fc.constantFrom('limit', 'ioc', 'fok' as const),
    amount: positiveU64,
    price: u64,
    minFill: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
    expiry_slot: u64,
    order_id: orderId,
    note_commitment: hexOf(32),
    arrival_nonce: u64,
    owner_commitment: hexOf(32),
    note_inner_hash: hexOf(32),
    merkle_root: hexOf(32),
    valid_input_proof: hexOf(256),
    collateral_amount: fc.option(u64, { nil: undefined }),
    tree_id: fc.option(fc.integer({ min: 0, max: 255 }), { nil: undefined }),
    session_id: hexOf(32),
  })
  .map((r) => {
    const key = tradingKeyFromSeed(r.seed);
    const order: Record<string, unknown> = {
      symbol: r.symbol,
      side: r.side,
      order_type: r.order_type,
      amount: r.amount,
      price_limit: r.side === 'bid' && r.price === 0n ? 1n : r.price,
      expiry_slot: r.expiry_slot,
      order_id: r.order_id,
      note_commitment: r.note_commitment,
      arrival_nonce: r.arrival_nonce,
      trading_key: key.publicKey,
      owner_commitment: r.owner_commitment,
      note_inner_hash: r.note_inner_hash,
      merkle_root: r.merkle_root,
      valid_input_proof: r.valid_input_proof,
      viewing_pubkey: toHex(x25519.getPublicKey(r.viewingSeed)),
      session_id: r.session_id,
    };
    if (r.minFill !== undefined) {
      // 0, amount and everything between, exactly (bigint arithmetic on a scaled fraction)
      order['min_fill_size'] = (r.amount * BigInt(Math.round(r.minFill * 1e6))) / 1_000_000n;
    }
    if (r.collateral_amount !== undefined) order['collateral_amount'] = r.collateral_amount;
    if (r.tree_id !== undefined) order['tree_id'] = r.tree_id;
    return { key, value: signPlaceOrder(order as unknown as UnsignedPlaceOrder, key) };
  });

const cancelBody: fc.Arbitrary<Signed<CancelBody>> = fc
  .record({ seed, order_id: orderId, cancel_nonce: u64, session_id: hexOf(32) })
  .map(({ seed: s, ...rest }) => {
    const key = tradingKeyFromSeed(s);
    return { key, value: { ...rest, trading_key: key.publicKey } };
  });

/** A modify request: old order id, and a request whose replacement and cancel half share a key. */
const modifyRequest: fc.Arbitrary<{ oldOrderId: string; key: TradingKey; value: ModifyRequest }> = fc
  .record({ replacement: placeOrder, oldOrderId: orderId, nonce: u64 })
  .map(({ replacement, oldOrderId, nonce }) => ({
    oldOrderId,
    key: replacement.key,
    value: signModify(oldOrderId, nonce, replacement.value, replacement.key),
  }));

// ---------------------------------------------------------------------------------------------
// Helpers

/** Our own JSON writer (not the protocol's): bigint and number as bare integers, keys in `order`. */
function jsonText(value: Record<string, unknown>, order = Object.keys(value)): string {
  const parts = order.map((k) => {
    const v = value[k];
    const text =
      typeof v === 'bigint' || typeof v === 'number'
        ? String(v)
        : typeof v === 'object' && v !== null
          ? jsonText(v as Record<string, unknown>)
          : JSON.stringify(v);
    return `${JSON.stringify(k)}:${text}`;
  });
  return `{${parts.join(',')}}`;
}

/** The wire form of cancel params, written by the protocol's schema-driven writer. */
function cancelWire(body: CancelBody, signature: string): Record<string, unknown> {
  const { order_id: _orderId, ...fields } = body;
  return toWire(CancelParamsSchema, { ...fields, trading_key_signature: signature }) as Record<
    string,
    unknown
  >;
}

function modifyWire(request: ModifyRequest): Record<string, unknown> {
  return toWire(ModifyRequestSchema, request) as Record<string, unknown>;
}

/** The same hex string with one nibble changed. */
function otherHex(hex: string, at = 0): string {
  const nibble = Number.parseInt(hex[at] ?? '0', 16);
  return `${hex.slice(0, at)}${((nibble + 1) % 16).toString(16)}${hex.slice(at + 1)}`;
}

const OTHER_KEY = tradingKeyFromSeed(new Uint8Array(32).fill(9));

/** Every field of a place body changed to another valid value, one at a time. */
function fieldChanges(order: PlaceOrder): [string, UnsignedPlaceOrder][] {
  const { trading_key_signature: _signature, ...unsigned } = order;
  const changed = (field: string, value: unknown): [string, UnsignedPlaceOrder] => {
    const copy: Record<string, unknown> = { ...unsigned };
    if (value === undefined) delete copy[field];
    else copy[field] = value;
    return [field, copy as unknown as UnsignedPlaceOrder];
  };
  return [
    changed('symbol', order.symbol === 'A-B' ? 'A-C' : 'A-B'),
    changed('side', order.side === 'bid' ? 'ask' : 'bid'),
    changed('order_type', order.order_type === 'limit' ? 'fok' : 'limit'),
    changed('amount', order.amount ^ 1n),
    changed('price_limit', order.price_limit ^ 1n),
    // min_fill_size absent encodes as 0, so the change must go to a non-zero value
    changed('min_fill_size', (order.min_fill_size ?? 0n) ^ 1n),
    changed('expiry_slot', order.expiry_slot ^ 1n),
    changed('order_id', otherHex(order.order_id)),
    changed('note_commitment', otherHex(order.note_commitment, 63)),
    changed('arrival_nonce', order.arrival_nonce ^ (1n << 63n)),
    changed('trading_key', OTHER_KEY.publicKey),
    changed('owner_commitment', otherHex(order.owner_commitment, 17)),
    changed('note_inner_hash', otherHex(order.note_inner_hash)),
    changed('merkle_root', otherHex(order.merkle_root)),
    changed('valid_input_proof', otherHex(order.valid_input_proof, 511)),
    // absent and present-zero differ; present moves to absent
    changed('collateral_amount', order.collateral_amount === undefined ? 0n : undefined),
    changed('tree_id', ((order.tree_id ?? 0) + 1) % 256),
    changed('viewing_pubkey', otherHex(order.viewing_pubkey)),
    changed('session_id', otherHex(order.session_id)),
  ];
}

const PLACE_FIELDS_SIGNED = 19; // every field of spec 2.1 except the signature itself

// ---------------------------------------------------------------------------------------------

describe('place-order canonical encoding', () => {
  // Re-encoding from JSON gives identical bytes (spec 5 item 3), whatever the key order.
  test('JSON text -> decode -> bytes -> decode bytes -> bytes is stable', () => {
    fc.assert(
      fc.property(
        placeOrder,
        fc.shuffledSubarray([...Array(25).keys()], { minLength: 25 }),
        ({ value }, shuffle) => {
          const keys = Object.keys(value);
          const order = shuffle.filter((i) => i < keys.length).map((i) => keys[i] ?? '');
          const decoded = decodePlaceOrder(parseJsonText(jsonText(value, order)));
          assert.deepEqual(decoded, value);
          const bytes = encodePlaceOrder(decoded);
          assert.equal(bytes.length, 595);
          const fromBytes = decodePlaceOrderBytes(bytes);
          assert.deepEqual(Buffer.from(encodePlaceOrder(fromBytes)), Buffer.from(bytes));
          // the bytes decoder states the defaults explicitly
          const { trading_key_signature: _s, ...unsigned } = value;
          assert.deepEqual(fromBytes, {
            ...unsigned,
            min_fill_size: value.min_fill_size ?? 0n,
            tree_id: value.tree_id ?? 0,
          });
        },
      ),
    );
  });

  // What the SDK serialises is what the venue decodes, u64 extremes included.
  test('stringifyJson(decoded) decodes to the same value', () => {
    fc.assert(
      fc.property(placeOrder, ({ value }) => {
        const decoded = decodePlaceOrder(parseJsonText(stringifyJson(value)));
        assert.deepEqual(decodePlaceOrder(parseJsonText(stringifyJson(decoded))), decoded);
      }),
    );
  });

  // A body signed by its key verifies, under the protocol and under an independent Ed25519.
  test('sign then verify succeeds', () => {
    fc.assert(
      fc.property(placeOrder, ({ value }) => {
        verifyPlaceOrder(value);
        const digest = sha256(encodePlaceOrder(value));
        assert.ok(
          ed25519.verify(
            Buffer.from(value.trading_key_signature, 'hex'),
            digest,
            Buffer.from(value.trading_key, 'hex'),
            { zip215: false },
          ),
        );
      }),
    );
  });

  // No byte of the encoding is outside the signature: any change breaks it.
  test('flipping any byte of the encoding changes the digest and fails verification', () => {
    fc.assert(
      fc.property(
        placeOrder,
        fc.integer({ min: 0, max: 594 }),
        fc.integer({ min: 1, max: 255 }),
        ({ value }, at, mask) => {
          const bytes = encodePlaceOrder(value);
          const mutated = Uint8Array.from(bytes);
          mutated[at] = (mutated[at] ?? 0) ^ mask;
          const digest = sha256(mutated);
          assert.notDeepEqual(Buffer.from(digest), Buffer.from(sha256(bytes)));
          assert.equal(verifyDigest(value.trading_key, digest, value.trading_key_signature), false);
        },
      ),
    );
  });

  // Every field is covered by the signature: no relay can alter one under a valid signature.
  test('changing any single field makes verification fail with 1102', () => {
    fc.assert(
      fc.property(placeOrder, ({ value }) => {
        const changes = fieldChanges(value);
        assert.equal(new Set(changes.map(([f]) => f)).size, PLACE_FIELDS_SIGNED);
        for (const [field, changed] of changes) {
          const forged = { ...changed, trading_key_signature: value.trading_key_signature };
          assert.notDeepEqual(
            Buffer.from(encodePlaceOrder(changed)),
            Buffer.from(encodePlaceOrder(value)),
            field,
          );
          assert.equal(
            codeOf(() => verifyPlaceOrder(forged)),
            1102,
            field,
          );
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe('canonical byte decoders refuse what no encoder produces', () => {
  const refused = (run: () => unknown) => assert.equal(codeOf(run), 1009);

  // A truncated or padded encoding is never read as a body.
  test('wrong lengths', () => {
    fc.assert(
      fc.property(placeOrder, fc.integer({ min: 0, max: 1200 }), ({ value }, length) => {
        const bytes = encodePlaceOrder(value);
        const resized = new Uint8Array(length);
        resized.set(bytes.subarray(0, Math.min(length, bytes.length)));
        if (length === 595) return;
        refused(() => decodePlaceOrderBytes(resized));
        refused(() => decodeCancelBytes(resized.subarray(0, length === 104 ? 103 : length)));
        refused(() => decodeModifyCancelBytes(resized.subarray(0, length === 136 ? 135 : length)));
      }),
    );
  });

  // Bytes of another domain are never read as this body.
  test('wrong domain', () => {
    fc.assert(
      fc.property(
        placeOrder,
        cancelBody,
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 1, max: 255 }),
        ({ value }, cancel, at, mask) => {
          const place = encodePlaceOrder(value);
          const cancelBytes = encodeCancel(cancel.value);
          const modify = encodeModifyCancel(modifyCancelBody(cancel.value.order_id, 1n, value));
          for (const [bytes, decoder, domainLength] of [
            [place, decodePlaceOrderBytes, 15],
            [cancelBytes, decodeCancelBytes, 16],
            [modify, decodeModifyCancelBytes, 16],
          ] as const) {
            const mutated = Uint8Array.from(bytes);
            const i = at % domainLength;
            mutated[i] = (mutated[i] ?? 0) ^ mask;
            refused(() => decoder(mutated));
            decoder(bytes); // the unmutated bytes decode
          }
        },
      ),
    );
  });

  // side and order_type bytes outside their enums.
  test('bad enum bytes', () => {
    fc.assert(
      fc.property(
        placeOrder,
        fc.integer({ min: 2, max: 255 }),
        fc.integer({ min: 3, max: 255 }),
        ({ value }, side, type) => {
          const bytes = encodePlaceOrder(value);
          const badSide = Uint8Array.from(bytes);
          badSide[47] = side;
          refused(() => decodePlaceOrderBytes(badSide));
          const badType = Uint8Array.from(bytes);
          badType[48] = type;
          refused(() => decodePlaceOrderBytes(badType));
        },
      ),
    );
  });

  // The symbol slot: zero padding, a length in 1..31, characters A-Z 0-9 - only (bit 7 clear).
  test('non-zero symbol padding, bad symbol length or characters', () => {
    fc.assert(
      fc.property(placeOrder, fc.nat(), fc.integer({ min: 1, max: 255 }), ({ value }, pick, byte) => {
        const bytes = encodePlaceOrder(value);
        const length = value.symbol.length;
        const padding = Uint8Array.from(bytes);
        padding[16 + length + (pick % (31 - length))] = byte;
        refused(() => decodePlaceOrderBytes(padding));

        const characters = Uint8Array.from(bytes);
        const at = 16 + (pick % length);
        // a byte outside A-Z 0-9 -, or the same character with bit 7 set
        characters[at] = /^[A-Z0-9-]$/.test(String.fromCharCode(byte)) ? byte | 0x80 : byte;
        refused(() => decodePlaceOrderBytes(characters));

        const badLength = Uint8Array.from(bytes);
        badLength[15] = byte % 2 === 0 ? 0 : 32 + (byte % 224);
        refused(() => decodePlaceOrderBytes(badLength));
      }),
    );
  });

  // collateral_amount: flag 0 with amount 0, or flag 1; nothing else.
  test('malformed presence flags', () => {
    fc.assert(
      fc.property(
        placeOrder,
        fc.integer({ min: 2, max: 255 }),
        fc.bigInt({ min: 1n, max: U64_MAX }),
        ({ value }, flag, amount) => {
          const bytes = encodePlaceOrder(value);
          const badFlag = Uint8Array.from(bytes);
          badFlag[521] = flag;
          refused(() => decodePlaceOrderBytes(badFlag));
          const absentWithAmount = Buffer.from(bytes);
          absentWithAmount[521] = 0;
          absentWithAmount.writeBigUInt64BE(amount, 522);
          refused(() => decodePlaceOrderBytes(absentWithAmount));
        },
      ),
    );
  });
});

describe('cancel and modify canonical encodings', () => {
  // What signModify returns, written with wireJsonText, is exactly what the venue accepts:
  // cancel_nonce goes out as its decimal string and both signatures verify after decoding.
  test('modify: signModify output written with wireJsonText decodes and verifies', () => {
    fc.assert(
      fc.property(modifyRequest, ({ oldOrderId, value }) => {
        const text = wireJsonText(ModifyRequestSchema, value);
        assert.match(text, new RegExp(`"cancel_nonce":"${value.cancel_nonce}"`));
        const decoded = decodeModifyRequest(parseJsonText(text));
        assert.deepEqual(
          decoded,
          decodeModifyRequest(parseJsonText(wireJsonText(ModifyRequestSchema, decoded))),
        );
        verifyModify(oldOrderId, decoded);
      }),
      { numRuns: 50 },
    );
  });

  // Cancel params round-trip through JSON and bytes and their signature verifies.
  test('cancel: JSON -> decode -> bytes -> decode bytes is stable; sign then verify', () => {
    fc.assert(
      fc.property(cancelBody, ({ key, value }) => {
        const signature = signCancel(value, key);
        const params: CancelParams = decodeCancelParams(
          parseJsonText(jsonText(cancelWire(value, signature))),
        );
        const body = { order_id: value.order_id, ...params };
        const bytes = encodeCancel(body);
        assert.equal(bytes.length, 104);
        assert.deepEqual(decodeCancelBytes(bytes), value);
        assert.deepEqual(Buffer.from(encodeCancel(decodeCancelBytes(bytes))), Buffer.from(bytes));
        verifyCancel(body, params.trading_key_signature);
        // the wire form written by the protocol's stringifyJson decodes to the same params
        assert.deepEqual(
          decodeCancelParams(parseJsonText(stringifyJson(cancelWire(body, signature)))),
          params,
        );
      }),
    );
  });

  // A cancel binds order id, key, nonce and session: changing any one fails.
  test('cancel: changing any field fails verification', () => {
    fc.assert(
      fc.property(cancelBody, ({ key, value }) => {
        const signature = signCancel(value, key);
        for (const changed of [
          { ...value, order_id: otherHex(value.order_id) },
          { ...value, trading_key: OTHER_KEY.publicKey },
          { ...value, cancel_nonce: value.cancel_nonce ^ 1n },
          { ...value, session_id: otherHex(value.session_id) },
        ]) {
          assert.equal(
            codeOf(() => verifyCancel(changed, signature)),
            1102,
          );
        }
      }),
    );
  });

  // A modify request round-trips and both signatures verify; the cancel half binds the replacement.
  test('modify: JSON -> decode -> verify; bytes stable; digest of the replacement bound', () => {
    fc.assert(
      fc.property(modifyRequest, ({ oldOrderId, value }) => {
        const decoded = decodeModifyRequest(parseJsonText(jsonText(modifyWire(value))));
        assert.deepEqual(decoded, value);
        verifyModify(oldOrderId, decoded);
        const body = modifyCancelBody(oldOrderId, decoded.cancel_nonce, decoded.replacement);
        const bytes = encodeModifyCancel(body);
        assert.equal(bytes.length, 136);
        assert.deepEqual(decodeModifyCancelBytes(bytes), body);
        assert.equal(body.replacement_digest, toHex(sha256(encodePlaceOrder(decoded.replacement))));
        assert.deepEqual(
          decodeModifyRequest(parseJsonText(stringifyJson(modifyWire(decoded)))),
          decoded,
          'stringifyJson of the wire form',
        );
        // a different old order, nonce, or replacement body: the cancel half no longer verifies
        assert.equal(
          codeOf(() => verifyModify(otherHex(oldOrderId), decoded)),
          1102,
        );
        assert.equal(
          codeOf(() => verifyModify(oldOrderId, { ...decoded, cancel_nonce: decoded.cancel_nonce ^ 1n })),
          1102,
        );
      }),
      { numRuns: 60 },
    );
  });
});

describe('signatures of one body kind never verify as another', () => {
  // Domain separation: a cancel signature is not a modify signature for the same ids, and so on.
  test('cancel, modify and place signatures are not interchangeable', () => {
    fc.assert(
      fc.property(placeOrder, orderId, u64, ({ key, value: replacement }, oldOrderId, nonce) => {
        const cancel: CancelBody = {
          order_id: oldOrderId,
          trading_key: key.publicKey,
          cancel_nonce: nonce,
          session_id: replacement.session_id,
        };
        const cancelSignature = signCancel(cancel, key);
        const modify = signModify(oldOrderId, nonce, replacement, key);
        verifyCancel(cancel, cancelSignature);
        verifyModify(oldOrderId, modify);

        // a bare cancel signature presented as the cancel half of a modify
        assert.equal(
          codeOf(() => verifyModify(oldOrderId, { ...modify, cancel_signature: cancelSignature })),
          1102,
        );
        // the cancel half of a modify presented as a bare cancel (a detached modify cannot cancel)
        assert.equal(
          codeOf(() => verifyCancel(cancel, modify.cancel_signature)),
          1102,
        );
        // the replacement's place signature presented as either cancel
        assert.equal(
          codeOf(() => verifyCancel(cancel, replacement.trading_key_signature)),
          1102,
        );
        assert.equal(
          codeOf(() =>
            verifyModify(oldOrderId, { ...modify, cancel_signature: replacement.trading_key_signature }),
          ),
          1102,
        );
        // a cancel signature presented as the place signature
        assert.equal(
          codeOf(() => verifyPlaceOrder({ ...replacement, trading_key_signature: cancelSignature })),
          1102,
        );
        // the three encodings have distinct sizes, so no bytes decode as two kinds
        const sizes = [
          encodePlaceOrder(replacement).length,
          encodeCancel(cancel).length,
          encodeModifyCancel(modifyCancelBody(oldOrderId, nonce, replacement)).length,
        ];
        assert.equal(new Set(sizes).size, 3);
      }),
      { numRuns: 60 },
    );
  });
});
