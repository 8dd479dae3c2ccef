/**
 * The committed vector file (packages/protocol/vectors/canonical-v5.json) against:
 * - the protocol (decode the wire JSON, re-encode, compare bytes, digest and signature checks);
 * - an independent Ed25519 and sha256 (@noble/curves, @noble/hashes), strict RFC 8032;
 * - an independent encoder of the documented byte layout, written below field by field;
 * - the generator (regenerating in memory gives the committed file byte for byte).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  CANCEL_LAYOUT,
  decodeCancelParams,
  decodeModifyRequest,
  decodePlaceOrder,
  ERRORS,
  type ErrorName,
  encodeCancel,
  encodeModifyCancel,
  encodePlaceOrder,
  MODIFY_LAYOUT,
  modifyCancelBody,
  PLACE_ORDER_LAYOUT,
  parseJsonText,
  verifyCancel,
  verifyModify,
  verifyPlaceOrder,
} from '@venue/protocol';
import { codeOf } from '@venue/testing';
import { type VectorFile, type VectorKind, vectorFileText } from '../../../scripts/generate-vectors.ts';

const VECTORS_PATH = fileURLToPath(new URL('../vectors/canonical-v5.json', import.meta.url));
const fileText = readFileSync(VECTORS_PATH, 'utf8');

type Kind = VectorKind;

const vectors = JSON.parse(fileText) as VectorFile;

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// ---------------------------------------------------------------------------------------------
// Independent reading of the wire JSON: every bare integer is turned into a string before
// JSON.parse, so u64 values above 2^53 are read exactly, without the protocol's parser.

type Obj = Record<string, unknown>;
function independentParse(text: string): Obj {
  return JSON.parse(text.replace(/("[a-z_]+"\s*:\s*)(\d+)(?=\s*[,}])/g, '$1"$2"')) as Obj;
}
const str = (o: Obj, k: string): string => {
  const v = o[k];
  if (typeof v !== 'string') throw new TypeError(`${k}: string expected`);
  return v;
};
const big = (o: Obj, k: string): bigint | undefined => (o[k] === undefined ? undefined : BigInt(str(o, k)));

// ---------------------------------------------------------------------------------------------
// Independent encoders of the documented layouts (docs/protocol.md; bodies.ts). Offsets are
// written out literally: a change to the layout must change this test too.

function putHex(out: Buffer, offset: number, length: number, hex: string): void {
  assert.equal(hex.length, length * 2, `hex of ${length} bytes expected at ${offset}`);
  Buffer.from(hex, 'hex').copy(out, offset);
}

function expectedPlaceBytes(o: Obj): Buffer {
  const out = Buffer.alloc(595);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out.write('venue-order-v5', 0, 'latin1'); // 0..13, then 0x00 at 14
  const symbol = str(o, 'symbol');
  out[15] = symbol.length; // 15: length byte, 16..46 ASCII then zero padding
  out.write(symbol, 16, 'latin1');
  out[47] = ['bid', 'ask'].indexOf(str(o, 'side'));
  out[48] = ['limit', 'ioc', 'fok'].indexOf(str(o, 'order_type'));
  view.setBigUint64(49, big(o, 'amount') ?? -1n);
  view.setBigUint64(57, big(o, 'price_limit') ?? -1n);
  view.setBigUint64(65, big(o, 'min_fill_size') ?? 0n);
  view.setBigUint64(73, big(o, 'expiry_slot') ?? -1n);
  putHex(out, 81, 16, str(o, 'order_id'));
  putHex(out, 97, 32, str(o, 'note_commitment'));
  view.setBigUint64(129, big(o, 'arrival_nonce') ?? -1n);
  putHex(out, 137, 32, str(o, 'trading_key'));
  putHex(out, 169, 32, str(o, 'owner_commitment'));
  putHex(out, 201, 32, str(o, 'note_inner_hash'));
  putHex(out, 233, 32, str(o, 'merkle_root'));
  putHex(out, 265, 256, str(o, 'valid_input_proof'));
  const collateral = big(o, 'collateral_amount');
  if (collateral !== undefined) {
    out[521] = 1; // presence flag, then the amount at 522
    view.setBigUint64(522, collateral);
  }
  out[530] = Number(big(o, 'tree_id') ?? 0n);
  putHex(out, 531, 32, str(o, 'viewing_pubkey'));
  putHex(out, 563, 32, str(o, 'session_id'));
  return out;
}

function expectedCancelBytes(orderId: string, p: Obj): Buffer {
  const out = Buffer.alloc(104);
  out.write('venue-cancel-v5', 0, 'latin1'); // 0..14, then 0x00 at 15
  putHex(out, 16, 16, orderId);
  putHex(out, 32, 32, str(p, 'trading_key'));
  out.writeBigUInt64BE(big(p, 'cancel_nonce') ?? -1n, 64);
  putHex(out, 72, 32, str(p, 'session_id'));
  return out;
}

function expectedModifyBytes(oldOrderId: string, request: Obj): Buffer {
  const replacement = request['replacement'] as Obj;
  const out = Buffer.alloc(136);
  out.write('venue-modify-v5', 0, 'latin1'); // 0..14, then 0x00 at 15
  putHex(out, 16, 16, oldOrderId);
  putHex(out, 32, 32, str(replacement, 'trading_key'));
  out.writeBigUInt64BE(big(request, 'cancel_nonce') ?? -1n, 64);
  putHex(out, 72, 32, str(replacement, 'session_id'));
  Buffer.from(sha256(expectedPlaceBytes(replacement))).copy(out, 104);
  return out;
}

/** Strict RFC 8032 verification by @noble/curves of a signature over sha256(message). */
function nobleVerifies(signatureHex: string, message: Uint8Array, publicKeyHex: string): boolean {
  try {
    return ed25519.verify(bytes(signatureHex), sha256(message), bytes(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------

describe('vector file', () => {
  // Implementers rely on the header to know what they are reading and how it is regenerated.
  test('carries its format version and generator', () => {
    assert.equal(vectors.format_version, 1);
    assert.equal(vectors.generator, 'scripts/generate-vectors.ts');
    assert.equal(vectors.regenerate, 'npm run vectors');
  });

  // The script and the committed file cannot drift: regenerating in memory gives the same text.
  test('regenerating the vectors gives the committed file byte for byte', () => {
    assert.equal(vectorFileText(), fileText);
  });

  // Coverage promised to implementers: at least 24 cases, every kind valid and invalid.
  test('covers place, cancel and modify, valid and invalid', () => {
    assert.ok(vectors.valid.length + vectors.invalid.length >= 24);
    for (const kind of ['place', 'cancel', 'modify'] as const) {
      assert.ok(
        vectors.valid.some((v) => v.kind === kind),
        `a valid ${kind}`,
      );
      assert.ok(
        vectors.invalid.some((v) => v.kind === kind),
        `an invalid ${kind}`,
      );
      assert.ok(
        vectors.invalid.some((v) => v.kind === kind && v.signature_invalid === true),
        `a bad-signature ${kind}`,
      );
    }
    const names = [...vectors.valid, ...vectors.invalid].map((v) => v.name);
    assert.equal(new Set(names).size, names.length, 'names are unique');
  });

  // The layout the vectors document is the one the protocol encodes with, at the offsets written
  // literally in this test's independent encoder.
  test('documented layouts match the protocol layouts and the literal offsets', () => {
    const literal: Record<Kind, [string, number, number][]> = {
      place: [
        ['domain', 0, 15],
        ['symbol', 15, 32],
        ['side', 47, 1],
        ['order_type', 48, 1],
        ['amount', 49, 8],
        ['price_limit', 57, 8],
        ['min_fill_size', 65, 8],
        ['expiry_slot', 73, 8],
        ['order_id', 81, 16],
        ['note_commitment', 97, 32],
        ['arrival_nonce', 129, 8],
        ['trading_key', 137, 32],
        ['owner_commitment', 169, 32],
        ['note_inner_hash', 201, 32],
        ['merkle_root', 233, 32],
        ['valid_input_proof', 265, 256],
        ['collateral_amount', 521, 9],
        ['tree_id', 530, 1],
        ['viewing_pubkey', 531, 32],
        ['session_id', 563, 32],
      ],
      cancel: [
        ['domain', 0, 16],
        ['order_id', 16, 16],
        ['trading_key', 32, 32],
        ['cancel_nonce', 64, 8],
        ['session_id', 72, 32],
      ],
      modify: [
        ['domain', 0, 16],
        ['order_id', 16, 16],
        ['trading_key', 32, 32],
        ['cancel_nonce', 64, 8],
        ['session_id', 72, 32],
        ['replacement_digest', 104, 32],
      ],
    };
    const protocol = { place: PLACE_ORDER_LAYOUT, cancel: CANCEL_LAYOUT, modify: MODIFY_LAYOUT };
    const sizes = { place: 595, cancel: 104, modify: 136 };
    for (const kind of ['place', 'cancel', 'modify'] as const) {
      const rows = (fields: readonly { name: string; offset: number; length: number }[]) =>
        fields.map((f) => [f.name, f.offset, f.length]);
      assert.deepEqual(rows(protocol[kind].fields), literal[kind], kind);
      assert.deepEqual(rows(vectors.layouts[kind].fields), literal[kind], kind);
      assert.equal(protocol[kind].size, sizes[kind]);
      assert.equal(vectors.layouts[kind].size, sizes[kind]);
    }
  });
});

describe('valid vectors', () => {
  for (const v of vectors.valid) {
    // Every valid request decodes, re-encodes to the committed bytes, and its signatures verify
    // under the protocol and under an independent strict Ed25519.
    test(`${v.kind} ${v.name}`, () => {
      const wire = independentParse(v.json);
      const parsed = parseJsonText(v.json);
      let canonical: Uint8Array;
      let independent: Buffer;
      if (v.kind === 'place') {
        const order = decodePlaceOrder(parsed);
        verifyPlaceOrder(order);
        canonical = encodePlaceOrder(order);
        independent = expectedPlaceBytes(wire);
        assert.equal(order.trading_key_signature, v.signature_hex);
        assert.equal(order.trading_key, v.public_key_hex);
      } else if (v.kind === 'cancel') {
        const orderId = v.order_id ?? assert.fail('cancel vectors carry order_id');
        const params = decodeCancelParams(parsed);
        const body = { order_id: orderId, ...params };
        verifyCancel(body, params.trading_key_signature);
        canonical = encodeCancel(body);
        independent = expectedCancelBytes(orderId, wire);
        assert.equal(params.trading_key_signature, v.signature_hex);
        assert.equal(params.trading_key, v.public_key_hex);
      } else {
        const orderId = v.order_id ?? assert.fail('modify vectors carry order_id');
        const request = decodeModifyRequest(parsed);
        verifyModify(orderId, request);
        canonical = encodeModifyCancel(modifyCancelBody(orderId, request.cancel_nonce, request.replacement));
        independent = expectedModifyBytes(orderId, wire);
        assert.equal(request.cancel_signature, v.signature_hex);
        assert.equal(request.replacement.trading_key, v.public_key_hex);

        const replacementBytes = encodePlaceOrder(request.replacement);
        const replacementIndependent = expectedPlaceBytes(wire['replacement'] as Obj);
        assert.equal(toHex(replacementBytes), v.replacement_canonical_hex);
        assert.equal(replacementIndependent.toString('hex'), v.replacement_canonical_hex);
        assert.equal(toHex(sha256(replacementIndependent)), v.replacement_sha256_hex);
        assert.equal(request.replacement.trading_key_signature, v.replacement_signature_hex);
        const replacementSignature = v.replacement_signature_hex ?? '';
        assert.ok(nobleVerifies(replacementSignature, replacementIndependent, v.public_key_hex));
        assert.equal(
          toHex(ed25519.sign(sha256(replacementIndependent), bytes(v.secret_seed_hex))),
          replacementSignature,
        );
      }
      assert.equal(toHex(canonical), v.canonical_hex, 'protocol bytes');
      assert.equal(independent.toString('hex'), v.canonical_hex, 'independently encoded bytes');
      assert.equal(toHex(sha256(independent)), v.sha256_hex);
      assert.equal(toHex(ed25519.getPublicKey(bytes(v.secret_seed_hex))), v.public_key_hex);
      assert.ok(nobleVerifies(v.signature_hex, independent, v.public_key_hex), 'noble verifies');
      // Ed25519 is deterministic: the independent signer produces the very same signature.
      assert.equal(toHex(ed25519.sign(sha256(independent), bytes(v.secret_seed_hex))), v.signature_hex);
    });
  }

  // The vectors demonstrate what the spec's "re-encoding gives identical bytes" means in practice.
  test('key order, whitespace and explicit defaults do not change the bytes; present collateral does', () => {
    const hexOf = (name: string) =>
      vectors.valid.find((v) => v.name === name)?.canonical_hex ?? assert.fail(`no vector ${name}`);
    const base = hexOf('place-limit-bid');
    assert.equal(hexOf('place-keys-reversed'), base);
    assert.equal(hexOf('place-whitespace'), base);
    assert.equal(hexOf('place-min-fill-explicit-zero'), base);
    assert.equal(hexOf('place-tree-id-explicit-zero'), base);
    assert.notEqual(hexOf('place-collateral-zero'), base);
  });
});

describe('invalid vectors', () => {
  for (const v of vectors.invalid) {
    // Every invalid request is refused by the protocol with exactly the documented code.
    test(`${v.kind} ${v.name} is refused with ${v.expected_code}`, () => {
      assert.equal(ERRORS[v.expected_error as ErrorName]?.code, v.expected_code, 'catalogue name and code');
      const orderId = v.order_id ?? '';
      if (v.kind !== 'place') assert.match(orderId, /^[0-9a-f]{32}$/);
      const decodeOnly = () => {
        const parsed = parseJsonText(v.json);
        if (v.kind === 'place') return decodePlaceOrder(parsed);
        if (v.kind === 'cancel') return decodeCancelParams(parsed);
        return decodeModifyRequest(parsed);
      };
      const full = () => {
        const decoded = decodeOnly();
        if (v.kind === 'place') verifyPlaceOrder(decoded as ReturnType<typeof decodePlaceOrder>);
        else if (v.kind === 'cancel') {
          const params = decoded as ReturnType<typeof decodeCancelParams>;
          verifyCancel({ order_id: orderId, ...params }, params.trading_key_signature);
        } else verifyModify(orderId, decoded as ReturnType<typeof decodeModifyRequest>);
      };
      assert.equal(codeOf(full), v.expected_code);
      if (v.signature_invalid === true) {
        // The body itself is well formed and passes every field rule: only a signature fails.
        assert.equal(codeOf(decodeOnly), 'accepted');
        assert.equal(v.expected_code, 1102);
      } else {
        assert.equal(codeOf(decodeOnly), v.expected_code, 'refused while decoding');
      }
    });
  }

  // The bad-signature vectors are bad for an independent verifier too, not only for ours.
  test('signature_invalid vectors do not verify under independent strict Ed25519', () => {
    const cases = vectors.invalid.filter((v) => v.signature_invalid === true);
    assert.ok(cases.length >= 3);
    for (const v of cases) {
      const wire = independentParse(v.json);
      const orderId = v.order_id ?? '';
      let ok: boolean;
      if (v.kind === 'place') {
        ok = nobleVerifies(
          str(wire, 'trading_key_signature'),
          expectedPlaceBytes(wire),
          str(wire, 'trading_key'),
        );
      } else if (v.kind === 'cancel') {
        ok = nobleVerifies(
          str(wire, 'trading_key_signature'),
          expectedCancelBytes(orderId, wire),
          str(wire, 'trading_key'),
        );
      } else {
        const replacement = wire['replacement'] as Obj;
        const key = str(replacement, 'trading_key');
        ok =
          nobleVerifies(str(wire, 'cancel_signature'), expectedModifyBytes(orderId, wire), key) &&
          nobleVerifies(str(replacement, 'trading_key_signature'), expectedPlaceBytes(replacement), key);
      }
      assert.equal(ok, false, v.name);
    }
  });

  // The cases the brief and implementers rely on are present.
  test('the required refusals are all covered', () => {
    const have = new Set(vectors.invalid.map((v) => `${v.kind}:${v.expected_code}`));
    for (const needed of [
      'place:1000',
      'place:1001',
      'place:1002',
      'place:1003',
      'place:1004',
      'place:1005',
      'place:1006',
      'place:1007',
      'place:1021',
      'place:1022',
      'place:1025',
      'place:1035',
      'place:1036',
      'place:1102',
      'cancel:1005',
      'cancel:1006',
      'cancel:1102',
      'modify:1102',
    ]) {
      assert.ok(have.has(needed), needed);
    }
  });
});
