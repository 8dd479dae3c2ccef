// Fill memos (docs/settlement.md section 4): the key agreement against an independent X25519
// (@noble/curves) and the RFC 7748 keys, the HKDF and AEAD construction recomputed by hand, round
// trips, wrong keys and contexts, tampering of every byte region, and low-order viewing keys.
import assert from 'node:assert/strict';
import { createDecipheriv, hkdfSync } from 'node:crypto';
import { test } from 'node:test';
import { x25519 } from '@noble/curves/ed25519.js';
import {
  FILL_MEMO_CIPHERTEXT_BYTES,
  FILL_MEMO_KDF_INFO,
  FILL_MEMO_PLAINTEXT_BYTES,
  type FillMemoPlaintext,
  VenueError,
} from '@venue/protocol';
import fc from 'fast-check';
import { generateViewingKey, openFillMemo, sealFillMemo, viewingPublicKeyOf } from '../src/fill-memo.ts';

// RFC 7748 section 6.1 key pairs.
const ALICE_PRIVATE = '77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a';
const ALICE_PUBLIC = '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a';
const BOB_PRIVATE = '5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb';
const BOB_PUBLIC = 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f';

const CONTEXT = { orderId: '0f'.repeat(16), matchId: 7n };
const MINT_A = 'So11111111111111111111111111111111111111112';
const MINT_B = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

function plaintext(fill: bigint, quote: bigint, change: bigint | null): FillMemoPlaintext {
  return {
    fill_quantity: fill,
    quote_amount: quote,
    clearing_price: 150_000n,
    received: {
      commitment: '11'.repeat(32),
      inner_hash: '22'.repeat(32),
      tree_id: 0,
      leaf_index: 5n,
      amount: fill,
      mint: MINT_A,
    },
    ...(change === null
      ? {}
      : {
          change: {
            commitment: '33'.repeat(32),
            inner_hash: '44'.repeat(32),
            tree_id: 3,
            amount: change,
            mint: MINT_B,
          },
        }),
  };
}

function expectUnreadable(run: () => unknown): void {
  assert.throws(run, (error: unknown) => error instanceof VenueError && /fill memo/.test(error.message));
}

test('RFC 7748 keys: public keys derive as published and the memo key is HKDF over the shared secret', () => {
  assert.equal(viewingPublicKeyOf(ALICE_PRIVATE), ALICE_PUBLIC);
  assert.equal(viewingPublicKeyOf(BOB_PRIVATE), BOB_PUBLIC);
  const nonce = '000102030405060708090a0b';
  const memo = sealFillMemo(BOB_PUBLIC, CONTEXT, plaintext(10n, 1500n, 5n), {
    ephemeralPrivateKey: ALICE_PRIVATE,
    nonce,
  });
  assert.equal(memo.ephemeral_pubkey, ALICE_PUBLIC);
  assert.equal(memo.nonce, nonce);
  // Recompute the construction independently: noble's X25519, HKDF, ChaCha20-Poly1305, the AAD.
  const shared = x25519.getSharedSecret(Buffer.from(ALICE_PRIVATE, 'hex'), Buffer.from(BOB_PUBLIC, 'hex'));
  const salt = Buffer.from(ALICE_PUBLIC + BOB_PUBLIC, 'hex');
  const key = Buffer.from(hkdfSync('sha256', shared, salt, FILL_MEMO_KDF_INFO, 32));
  const sealed = Buffer.from(memo.ciphertext, 'hex');
  const decipher = createDecipheriv('chacha20-poly1305', key, Buffer.from(nonce, 'hex'), {
    authTagLength: 16,
  });
  const aad = Buffer.concat([Buffer.from(CONTEXT.orderId, 'hex'), Buffer.from('0000000000000007', 'hex')]);
  decipher.setAAD(aad, { plaintextLength: FILL_MEMO_PLAINTEXT_BYTES });
  decipher.setAuthTag(sealed.subarray(FILL_MEMO_PLAINTEXT_BYTES));
  const plain = Buffer.concat([
    decipher.update(sealed.subarray(0, FILL_MEMO_PLAINTEXT_BYTES)),
    decipher.final(),
  ]);
  assert.equal(plain.length, FILL_MEMO_PLAINTEXT_BYTES);
  const text = plain.toString('utf8');
  assert.match(text, /^\{"fill_quantity":10,"quote_amount":1500,.*\} +$/);
  // And the owner's own opening agrees.
  assert.deepEqual(openFillMemo(BOB_PRIVATE, CONTEXT, memo), plaintext(10n, 1500n, 5n));
});

test('round trip: the owner reads back exactly what was sealed, at one fixed ciphertext size', () => {
  const viewing = generateViewingKey();
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { nil: null }),
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      (fill, quote, change, matchId) => {
        const context = { orderId: CONTEXT.orderId, matchId };
        const memo = sealFillMemo(viewing.publicKey, context, plaintext(fill, quote, change));
        assert.equal(memo.ciphertext.length, FILL_MEMO_CIPHERTEXT_BYTES * 2);
        assert.deepEqual(openFillMemo(viewing.privateKey, context, memo), plaintext(fill, quote, change));
      },
    ),
    { numRuns: 50 },
  );
});

test('two seals of the same memo share no ephemeral key, nonce or ciphertext', () => {
  const viewing = generateViewingKey();
  const a = sealFillMemo(viewing.publicKey, CONTEXT, plaintext(1n, 2n, null));
  const b = sealFillMemo(viewing.publicKey, CONTEXT, plaintext(1n, 2n, null));
  assert.notEqual(a.ephemeral_pubkey, b.ephemeral_pubkey);
  assert.notEqual(a.ciphertext, b.ciphertext);
});

test('another viewing key, another order or another match cannot open the memo', () => {
  const owner = generateViewingKey();
  const memo = sealFillMemo(owner.publicKey, CONTEXT, plaintext(10n, 1500n, 5n));
  expectUnreadable(() => openFillMemo(generateViewingKey().privateKey, CONTEXT, memo));
  expectUnreadable(() => openFillMemo(owner.privateKey, { ...CONTEXT, orderId: 'f0'.repeat(16) }, memo));
  expectUnreadable(() => openFillMemo(owner.privateKey, { ...CONTEXT, matchId: 8n }, memo));
});

test('flipping any bit of the ciphertext, tag or nonce, or swapping the ephemeral key, is detected', () => {
  const owner = generateViewingKey();
  const memo = sealFillMemo(owner.publicKey, CONTEXT, plaintext(10n, 1500n, 5n));
  const flip = (hex: string, at: number, bit: number): string => {
    const bytes = Buffer.from(hex, 'hex');
    bytes[at] = (bytes[at] as number) ^ (1 << bit);
    return bytes.toString('hex');
  };
  fc.assert(
    fc.property(fc.nat(FILL_MEMO_CIPHERTEXT_BYTES - 1), fc.nat(7), (at, bit) => {
      expectUnreadable(() =>
        openFillMemo(owner.privateKey, CONTEXT, { ...memo, ciphertext: flip(memo.ciphertext, at, bit) }),
      );
    }),
    { numRuns: 100 },
  );
  expectUnreadable(() => openFillMemo(owner.privateKey, CONTEXT, { ...memo, nonce: flip(memo.nonce, 0, 0) }));
  const other = generateViewingKey().publicKey;
  expectUnreadable(() => openFillMemo(owner.privateKey, CONTEXT, { ...memo, ephemeral_pubkey: other }));
});

test('low-order viewing keys (and their non-canonical encodings) are refused, never encrypted to', () => {
  const lowOrder = [
    '00'.repeat(32),
    `01${'00'.repeat(31)}`,
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p - 1
    'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
    '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
    'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // p = 0 mod p
    `01${'00'.repeat(30)}80`, // 1 with the masked top bit set
  ];
  for (const key of lowOrder) {
    assert.throws(
      () => sealFillMemo(key, CONTEXT, plaintext(1n, 1n, null)),
      (error: unknown) => error instanceof VenueError && /low-order/.test(error.message),
      key,
    );
  }
  const memo = sealFillMemo(generateViewingKey().publicKey, CONTEXT, plaintext(1n, 1n, null));
  for (const key of lowOrder) {
    assert.throws(() => openFillMemo(BOB_PRIVATE, CONTEXT, { ...memo, ephemeral_pubkey: key }), VenueError);
  }
});
