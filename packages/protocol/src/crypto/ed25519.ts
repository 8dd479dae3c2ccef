import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { assert } from '../assert.ts';

/**
 * Ed25519 for trading keys, on node:crypto (OpenSSL). It is ~14x faster than a pure-JS curve, and
 * signature checks are the ceiling of signed-order intake.
 *
 * Verification rule: RFC 8032 section 5.1.7 as OpenSSL implements it (cofactorless equation, S must
 * be below the group order L so signatures are not malleable), plus our own key rule at intake: a
 * trading key must be a canonical encoding (y < p) of a point outside the small-order subgroup.
 * Small-order keys would let one signature verify for many messages, so they are refused outright.
 *
 * What is signed is always the 32-byte sha256 of a canonical body (PureEdDSA over the digest; not
 * Ed25519ph), see docs/protocol.md.
 */

const PKCS8_SEED_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A trading key pair. The private half is an opaque KeyObject that never prints its bytes. */
export interface TradingKey {
  /** Public key, 64 lowercase hex characters. */
  readonly publicKey: string;
  readonly privateKey: KeyObject;
}

/** Derives the key pair of a 32-byte Ed25519 seed (RFC 8032 private key). */
export function tradingKeyFromSeed(seed: Uint8Array): TradingKey {
  assert(seed.length === 32, `an Ed25519 seed is 32 bytes, received ${seed.length}`);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_SEED_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return { publicKey: publicKeyHexOf(privateKey), privateKey };
}

export function generateTradingKey(): TradingKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: publicKeyHexOf(privateKey), privateKey };
}

/** The 32-byte seed of a private key, for the SDK's key file (never for logs). */
export function seedOf(key: TradingKey): Uint8Array {
  const der = key.privateKey.export({ format: 'der', type: 'pkcs8' });
  return new Uint8Array(der.subarray(der.length - 32));
}

function publicKeyHexOf(privateKey: KeyObject): string {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - 32).toString('hex');
}

/** Signs a 32-byte digest; returns the 64-byte signature as hex. */
export function signDigest(key: TradingKey, digest: Uint8Array): string {
  assert(digest.length === 32, `a digest is 32 bytes, received ${digest.length}`);
  return sign(null, digest, key.privateKey).toString('hex');
}

/**
 * Public KeyObjects are cached: building one per call halves verification speed. The cache is
 * bounded (oldest evicted first) so a flood of distinct keys cannot grow memory.
 */
const PUBLIC_KEY_CACHE_ENTRIES_MAX = 4096;
const publicKeyCache = new Map<string, KeyObject>();

function publicKeyObject(publicKeyHex: string): KeyObject {
  let key = publicKeyCache.get(publicKeyHex);
  if (key === undefined) {
    key = createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, Buffer.from(publicKeyHex, 'hex')]),
      format: 'der',
      type: 'spki',
    });
    if (publicKeyCache.size >= PUBLIC_KEY_CACHE_ENTRIES_MAX) {
      const oldest = publicKeyCache.keys().next().value;
      if (oldest !== undefined) publicKeyCache.delete(oldest);
    }
    publicKeyCache.set(publicKeyHex, key);
  }
  return key;
}

/**
 * Verifies a signature over a 32-byte digest. Inputs are hex already checked for length by the
 * schema; a key refused by isAcceptableTradingKey or a signature OpenSSL rejects gives false.
 */
export function verifyDigest(publicKeyHex: string, digest: Uint8Array, signatureHex: string): boolean {
  assert(digest.length === 32, `a digest is 32 bytes, received ${digest.length}`);
  if (signatureHex.length !== 128 || !isAcceptableTradingKey(publicKeyHex)) return false;
  try {
    return verify(null, digest, publicKeyObject(publicKeyHex), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false; // OpenSSL refuses to decode some point encodings outright: that is a failed check
  }
}

const P = 2n ** 255n - 19n;

/** Canonical encodings of the eight points of the small-order subgroup E[8]. */
const SMALL_ORDER_POINTS = new Set([
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
]);

/**
 * The trading-key rule: 32 bytes, canonical y (below p) and sign bit, and not a small-order point. Whether the
 * bytes decode to a curve point at all is left to verification, which fails for them.
 */
export function isAcceptableTradingKey(publicKeyHex: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(publicKeyHex)) return false;
  if (SMALL_ORDER_POINTS.has(publicKeyHex)) return false;
  const bytes = Buffer.from(publicKeyHex, 'hex');
  const last = bytes[31] ?? 0;
  bytes[31] = last & 0x7f; // drop the sign bit of x to read y
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
  // y = 1 or y = p - 1 means x = 0, whose only encoding has the sign bit clear (RFC 8032 5.1.3
  // step 4). OpenSSL accepts the other one, so 01..80 would be the identity: it verifies forgeries.
  if (last >= 0x80 && (y === 1n || y === P - 1n)) return false;
  return y < P;
}
