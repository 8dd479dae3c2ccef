/**
 * Our Ed25519 wrapper (crypto/ed25519.ts) and X25519 viewing-key check (crypto/x25519.ts) against
 * RFC 8032 test vectors and an independent implementation (@noble/curves): key derivation,
 * signatures, strictness (no malleated S, no small-order or non-canonical keys) and the low-order
 * X25519 points that would make fill memos readable by anyone.
 */
import assert from 'node:assert/strict';
import {
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ED25519_TORSION_SUBGROUP, ed25519, x25519 } from '@noble/curves/ed25519.js';
import {
  AssertionError,
  generateTradingKey,
  isAcceptableTradingKey,
  isLowOrderX25519,
  seedOf,
  sha256,
  signDigest,
  tradingKeyFromSeed,
  verifyDigest,
} from '@venue/protocol';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** 32-byte little-endian encoding of n, with bit 255 set when `high`. */
function le32(n: bigint, high = false): string {
  const out = Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
  if (high) out[31] = (out[31] ?? 0) | 0x80;
  return out.toString('hex');
}
const fromLe = (hex: string) => BigInt(`0x${Buffer.from(hex, 'hex').reverse().toString('hex')}`);

/** Strict RFC 8032 check by noble; false instead of throwing on undecodable input. */
function nobleVerifies(signatureHex: string, message: Uint8Array, publicKeyHex: string): boolean {
  try {
    return ed25519.verify(bytes(signatureHex), message, bytes(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}
function nobleDecodes(publicKeyHex: string): ReturnType<typeof ed25519.Point.fromHex> | undefined {
  try {
    return ed25519.Point.fromHex(publicKeyHex, false);
  } catch {
    return undefined;
  }
}

// RFC 8032 section 7.1, TEST 1, 2 and 3.
const RFC8032 = [
  {
    name: 'TEST 1',
    secret: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    public: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    name: 'TEST 2',
    secret: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    public: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
  {
    name: 'TEST 3',
    secret: 'c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7',
    public: 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025',
    message: 'af82',
    signature:
      '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a',
  },
];

/** The SMALL_ORDER_POINTS list as written in crypto/ed25519.ts (it is module-private). */
function smallOrderListInSource(): string[] {
  const source = readFileSync(fileURLToPath(new URL('../src/crypto/ed25519.ts', import.meta.url)), 'utf8');
  const block = /SMALL_ORDER_POINTS = new Set\(\[([^\]]*)\]\)/.exec(source)?.[1];
  assert.ok(block !== undefined, 'SMALL_ORDER_POINTS found in crypto/ed25519.ts');
  return [...block.matchAll(/'([0-9a-f]{64})'/g)].map((m) => m[1] ?? '');
}

// ---------------------------------------------------------------------------------------------

describe('Ed25519: RFC 8032 section 7.1', () => {
  for (const v of RFC8032) {
    // Keys derived from a seed are the RFC's, so keys made elsewhere work here and vice versa.
    test(`${v.name}: tradingKeyFromSeed derives the RFC public key; the KeyObject signs the RFC signature`, () => {
      const key = tradingKeyFromSeed(bytes(v.secret));
      assert.equal(key.publicKey, v.public);
      assert.equal(toHex(seedOf(key)), v.secret);
      // the same KeyObject path signDigest uses, on the RFC's (not 32-byte) message
      const signature = sign(null, bytes(v.message), key.privateKey);
      assert.equal(signature.toString('hex'), v.signature);
      assert.ok(verify(null, bytes(v.message), createPublicKey(key.privateKey), signature));
    });

    // signDigest / verifyDigest agree with an independent RFC 8032 implementation on digests.
    test(`${v.name}: signDigest and verifyDigest agree with noble over sha256(message)`, () => {
      const key = tradingKeyFromSeed(bytes(v.secret));
      const digest = sha256(bytes(v.message));
      const signature = signDigest(key, digest);
      assert.equal(signature, toHex(ed25519.sign(digest, bytes(v.secret))));
      assert.ok(verifyDigest(v.public, digest, signature));
      assert.ok(nobleVerifies(signature, digest, v.public));
      const flipped = Buffer.from(digest);
      flipped[0] = (flipped[0] ?? 0) ^ 1;
      assert.equal(verifyDigest(v.public, flipped, signature), false);
    });
  }

  // verifyDigest only ever checks 32-byte digests and 64-byte signatures.
  test('verifyDigest refuses wrong signature lengths and asserts the digest length', () => {
    const key = tradingKeyFromSeed(bytes(RFC8032[0]?.secret ?? ''));
    const digest = sha256(Buffer.from('x'));
    const signature = signDigest(key, digest);
    assert.equal(verifyDigest(key.publicKey, digest, signature.slice(2)), false);
    assert.equal(verifyDigest(key.publicKey, digest, `${signature}00`), false);
    assert.throws(() => verifyDigest(key.publicKey, digest.subarray(1), signature), AssertionError);
    assert.throws(() => signDigest(key, new Uint8Array(33)), AssertionError);
  });
});

describe('Ed25519: strictness', () => {
  // S + L verifies the same equation under a lax verifier; RFC 8032 (and we) require S < L.
  test('a malleated signature (S replaced by S + L or S + 2L) is refused', () => {
    for (const v of RFC8032) {
      const key = tradingKeyFromSeed(bytes(v.secret));
      const digest = sha256(bytes(v.message));
      const signature = signDigest(key, digest);
      assert.ok(verifyDigest(key.publicKey, digest, signature), 'the original verifies');
      const s = fromLe(signature.slice(64));
      assert.ok(s < L);
      for (const k of [1n, 2n]) {
        const malleated = `${signature.slice(0, 64)}${le32(s + k * L)}`;
        assert.equal(verifyDigest(key.publicKey, digest, malleated), false);
        assert.equal(nobleVerifies(malleated, digest, key.publicKey), false);
      }
    }
  });

  // The list is exactly the 8 points of the small-order subgroup, and every one is refused.
  test('all 8 entries of the small-order list are small-order points, and they are refused', () => {
    const list = smallOrderListInSource();
    assert.equal(list.length, 8);
    assert.deepEqual([...list].sort(), [...ED25519_TORSION_SUBGROUP].sort());
    const digest = sha256(Buffer.from('any message'));
    // R = B, S = 1: [S]B = R + [k]A for every k when A has small order and k is a multiple of its order
    const forged = `${ed25519.Point.BASE.toHex()}${le32(1n)}`;
    for (const hex of list) {
      const point = nobleDecodes(hex);
      assert.ok(point, `${hex} is a canonical encoding`);
      assert.ok(point.isSmallOrder(), `${hex} has small order`);
      assert.equal(isAcceptableTradingKey(hex), false, hex);
      assert.equal(verifyDigest(hex, digest, forged), false, hex);
    }
  });

  // x = 0 has one encoding (sign bit clear). The other encodes the identity for OpenSSL, under
  // which R = B, S = 1 verifies for every message: a universal forgery.
  test('non-canonical encodings of x = 0 (sign bit set on y = 1 or y = p - 1) are refused', () => {
    const forged = `${ed25519.Point.BASE.toHex()}${le32(1n)}`;
    for (const hex of [le32(1n, true), le32(P - 1n, true)]) {
      assert.equal(nobleDecodes(hex), undefined, 'noble strict refuses it');
      assert.equal(isAcceptableTradingKey(hex), false, hex);
      for (const message of ['a', 'b', 'c']) {
        assert.equal(verifyDigest(hex, sha256(Buffer.from(message)), forged), false, `${hex} ${message}`);
      }
    }
  });

  // Only one encoding per key: y >= p (with either sign bit) is not a key.
  test('non-canonical y encodings (y >= p) are refused', () => {
    const ys = [...Array.from({ length: 19 }, (_, i) => P + BigInt(i)), 2n ** 255n - 1n];
    for (const y of ys) {
      for (const high of [false, true]) {
        const hex = le32(y, high);
        assert.equal(isAcceptableTradingKey(hex), false, hex);
        assert.equal(nobleDecodes(hex), undefined, `noble refuses ${hex}`);
      }
    }
    // the schema shape is enforced too
    assert.equal(isAcceptableTradingKey('AB'.repeat(32)), false);
    assert.equal(isAcceptableTradingKey('ab'.repeat(31)), false);
  });

  // Ordinary keys are never caught by the key rule.
  test('1000 randomly generated trading keys are accepted, sign and verify', () => {
    for (let i = 0; i < 1000; i++) {
      const key = generateTradingKey();
      assert.ok(isAcceptableTradingKey(key.publicKey), key.publicKey);
      const point = nobleDecodes(key.publicKey);
      assert.ok(point && !point.isSmallOrder());
      const digest = randomBytes(32);
      const signature = signDigest(key, digest);
      assert.ok(verifyDigest(key.publicKey, digest, signature));
    }
  });

  // On decodable points, the key rule is exactly "not small order"; undecodable bytes never verify.
  test('the key rule agrees with noble on random 32-byte strings', () => {
    const digest = sha256(Buffer.from('digest'));
    const signature = toHex(randomBytes(64));
    for (let i = 0; i < 2000; i++) {
      const hex = toHex(randomBytes(32));
      const point = nobleDecodes(hex);
      if (point === undefined) assert.equal(verifyDigest(hex, digest, signature), false, hex);
      else assert.equal(isAcceptableTradingKey(hex), !point.isSmallOrder(), hex);
    }
  });
});

// ---------------------------------------------------------------------------------------------

/** An X25519 public KeyObject from raw bytes (JWK), or undefined if OpenSSL will not import it. */
function x25519PublicKey(hex: string): KeyObject | undefined {
  try {
    return createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(hex, 'hex').toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return undefined;
  }
}

/** The shared secret node:crypto derives with a fresh private key; undefined when it refuses. */
function nodeSharedSecret(publicHex: string): Buffer | undefined {
  const publicKey = x25519PublicKey(publicHex);
  if (publicKey === undefined) return undefined;
  try {
    return diffieHellman({ privateKey: generateKeyPairSync('x25519').privateKey, publicKey });
  } catch {
    return undefined;
  }
}

/** The shared secret noble derives with a fresh scalar; undefined when it is all zeros (noble throws). */
function nobleSharedSecret(publicHex: string): Uint8Array | undefined {
  try {
    return x25519.getSharedSecret(randomBytes(32), bytes(publicHex));
  } catch {
    return undefined;
  }
}

const allZero = (b: Uint8Array | undefined) => b === undefined || b.every((x) => x === 0);

// u-coordinates of the points of order 1, 2, 4 and 8 on Curve25519 and its twist.
const LOW_ORDER_U = [
  0n,
  1n,
  P - 1n,
  fromLe('e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800'),
  fromLe('5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157'),
];

describe('X25519 viewing keys', () => {
  // Every listed low-order key, canonical or not, gives an all-zero (or refused) shared secret and is flagged.
  test('each low-order point really yields an all-zero or refused shared secret, and is flagged', () => {
    const encodings: string[] = [];
    for (const u of LOW_ORDER_U) {
      encodings.push(le32(u), le32(u, true)); // bit 255 is masked by X25519 (RFC 7748)
      if (u + P < 2n ** 255n) encodings.push(le32(u + P), le32(u + P, true)); // u >= p reduces mod p
    }
    assert.equal(encodings.length, 14); // 0, 1 have a second encoding below 2^255 (p, p + 1)
    for (const hex of encodings) {
      assert.ok(allZero(nodeSharedSecret(hex)), `node: ${hex}`);
      assert.ok(allZero(nobleSharedSecret(hex)), `noble: ${hex}`);
      assert.equal(isLowOrderX25519(hex), true, hex);
    }
  });

  // The check flags exactly the keys that give an all-zero secret, around both ends of the field.
  test('flagged if and only if the shared secret is all zero, for u in 0..255 and p-128..2^255-1', () => {
    const us = [
      ...Array.from({ length: 256 }, (_, i) => BigInt(i)),
      ...Array.from({ length: 147 }, (_, i) => P - 128n + BigInt(i)),
    ];
    for (const u of us) {
      const hex = le32(u);
      assert.equal(isLowOrderX25519(hex), allZero(nobleSharedSecret(hex)), `u = ${u}`);
    }
  });

  // Real viewing keys and random bytes are not refused.
  test('random keys are not flagged and give a non-zero shared secret', () => {
    for (let i = 0; i < 200; i++) {
      const publicKey = createPublicKey(generateKeyPairSync('x25519').privateKey).export({ format: 'jwk' });
      const hex = Buffer.from(String(publicKey.x), 'base64url').toString('hex');
      assert.equal(isLowOrderX25519(hex), false, hex);
      assert.equal(allZero(nodeSharedSecret(hex)), false, hex);
    }
    for (let i = 0; i < 1000; i++) assert.equal(isLowOrderX25519(toHex(randomBytes(32))), false);
  });

  // A key of the wrong size is never usable.
  test('a key that is not 32 bytes is flagged', () => {
    assert.equal(isLowOrderX25519('ab'.repeat(31)), true);
    assert.equal(isLowOrderX25519('ab'.repeat(33)), true);
  });
});
