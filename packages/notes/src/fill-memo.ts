import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import {
  assert,
  decodeJsonText,
  FILL_MEMO_CIPHERTEXT_BYTES,
  FILL_MEMO_KDF_INFO,
  FILL_MEMO_PLAINTEXT_BYTES,
  FILL_MEMO_SCHEME,
  type FillMemo,
  type FillMemoPlaintext,
  FillMemoPlaintextSchema,
  isLowOrderX25519,
  VenueError,
  wireJsonText,
} from '@venue/protocol';

/**
 * Fill memos (docs/settlement.md section 4): what one order got from one settled match, readable
 * only by the holder of the order's viewing key (spec 2.1 viewing_pubkey, spec 6.2 fills channel).
 *
 * Scheme `x25519-hkdf-sha256-chacha20poly1305` (protocol FILL_MEMO_SCHEME):
 * - a fresh X25519 key per memo, agreed with the viewing key; an all-zero shared secret (a low-order
 *   viewing key) is refused, since anyone could then compute it;
 * - key = HKDF-SHA256(shared, salt = ephemeral_pub || viewing_pub, info = "venue-fill-memo-v1"), so
 *   the key is bound to both public keys;
 * - ChaCha20-Poly1305 with a random 12-byte nonce; associated data order_id (16 bytes) || match_id
 *   (u64 big-endian), so a memo cannot be replayed as another order's or another match's;
 * - the plaintext is the memo's wire JSON padded with spaces to a fixed size, so the ciphertext
 *   length says nothing about the amounts.
 * Only node:crypto is used: the venue seals, the SDK opens, with the same code.
 */

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEX32 = /^[0-9a-f]{64}$/;
const ORDER_ID = /^[0-9a-f]{32}$/;

/** An X25519 viewing key pair as 32-byte hex values (what a wallet keeps and what an order signs). */
export interface ViewingKeyPair {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** Which memo this is: the AEAD's associated data. */
export interface MemoContext {
  readonly orderId: string;
  readonly matchId: bigint;
}

export function generateViewingKey(): ViewingKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { publicKey: rawPublic(publicKey), privateKey: rawPrivate(privateKey) };
}

/** The public key of a viewing private key (both 32-byte hex). */
export function viewingPublicKeyOf(privateKeyHex: string): string {
  return rawPublic(createPublicKey(privateKeyOf(privateKeyHex)));
}

/**
 * Encrypts a memo to `viewingPubkey`. `ephemeralPrivateKey` and `nonce` exist for known-answer
 * tests only; production callers leave them out and get fresh random values.
 */
export function sealFillMemo(
  viewingPubkey: string,
  context: MemoContext,
  plaintext: FillMemoPlaintext,
  fixed: { readonly ephemeralPrivateKey?: string; readonly nonce?: string } = {},
): FillMemo {
  const viewing = viewingKeyOf(viewingPubkey);
  // A fresh ephemeral pair per memo (forward secrecy); its public half comes with it, not rebuilt.
  const pair =
    fixed.ephemeralPrivateKey === undefined
      ? generateKeyPairSync('x25519')
      : { privateKey: privateKeyOf(fixed.ephemeralPrivateKey), publicKey: null };
  const ephemeral = pair.privateKey;
  const ephemeralPubkey = rawPublicDer(pair.publicKey ?? createPublicKey(ephemeral));
  const key = memoKey(ephemeral, viewing, ephemeralPubkey, viewingPubkey);
  const nonce = fixed.nonce === undefined ? randomBytes(NONCE_BYTES) : Buffer.from(fixed.nonce, 'hex');
  assert(nonce.length === NONCE_BYTES, 'fill memo nonce: 12 bytes');
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(context), { plaintextLength: FILL_MEMO_PLAINTEXT_BYTES });
  const sealed = Buffer.concat([
    cipher.update(paddedPlaintext(plaintext)),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  assert(sealed.length === FILL_MEMO_CIPHERTEXT_BYTES, 'fill memo ciphertext has its fixed size');
  return {
    scheme: FILL_MEMO_SCHEME,
    ephemeral_pubkey: ephemeralPubkey,
    nonce: nonce.toString('hex'),
    ciphertext: sealed.toString('hex'),
  };
}

/**
 * Decrypts a memo with the viewing private key. Throws VenueError INVALID_FORMAT ("fill memo: ...")
 * when the memo was not sealed to this key for this order and match, or was altered.
 */
export function openFillMemo(
  viewingPrivateKey: string,
  context: MemoContext,
  memo: FillMemo,
): FillMemoPlaintext {
  if (memo.scheme !== FILL_MEMO_SCHEME) unreadable(`scheme ${memo.scheme} is not ${FILL_MEMO_SCHEME}`);
  const own = privateKeyOf(viewingPrivateKey);
  const ephemeral = publicKeyOf(memo.ephemeral_pubkey, 'ephemeral_pubkey');
  const sealed = Buffer.from(memo.ciphertext, 'hex');
  const nonce = Buffer.from(memo.nonce, 'hex');
  if (sealed.length !== FILL_MEMO_CIPHERTEXT_BYTES || nonce.length !== NONCE_BYTES) {
    unreadable('nonce or ciphertext has the wrong length');
  }
  const key = memoKey(own, ephemeral, memo.ephemeral_pubkey, rawPublic(createPublicKey(own)));
  const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(context), { plaintextLength: FILL_MEMO_PLAINTEXT_BYTES });
  decipher.setAuthTag(sealed.subarray(FILL_MEMO_PLAINTEXT_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(sealed.subarray(0, FILL_MEMO_PLAINTEXT_BYTES)), decipher.final()]);
  } catch {
    unreadable('authentication failed: wrong viewing key, wrong order or match, or an altered memo');
  }
  return decodeJsonText(FillMemoPlaintextSchema, plain.toString('utf8').trimEnd());
}

/** The memo's JSON, space-padded to the fixed plaintext size (JSON allows trailing whitespace). */
function paddedPlaintext(plaintext: FillMemoPlaintext): Buffer {
  const json = Buffer.from(wireJsonText(FillMemoPlaintextSchema, plaintext), 'utf8');
  assert(
    json.length <= FILL_MEMO_PLAINTEXT_BYTES,
    `fill memo JSON is ${json.length} bytes, over the fixed size`,
  );
  return Buffer.concat([json, Buffer.alloc(FILL_MEMO_PLAINTEXT_BYTES - json.length, 0x20)]);
}

function memoKey(own: KeyObject, peer: KeyObject, ephemeralPubkey: string, viewingPubkey: string): Buffer {
  const shared = diffieHellman({ privateKey: own, publicKey: peer });
  // A low-order key gives the all-zero secret: refuse it rather than encrypt under a public key.
  if (shared.every((byte) => byte === 0)) {
    throw new VenueError('INVALID_FORMAT', 'viewing_pubkey: a low-order X25519 key; use a real viewing key');
  }
  const salt = Buffer.concat([Buffer.from(ephemeralPubkey, 'hex'), Buffer.from(viewingPubkey, 'hex')]);
  return Buffer.from(hkdfSync('sha256', shared, salt, FILL_MEMO_KDF_INFO, KEY_BYTES));
}

function associatedData(context: MemoContext): Buffer {
  assert(ORDER_ID.test(context.orderId), 'fill memo: order id is 16 bytes of lowercase hex');
  assert(context.matchId >= 0n && context.matchId < 2n ** 64n, 'fill memo: match id is a u64');
  const data = Buffer.alloc(24);
  Buffer.from(context.orderId, 'hex').copy(data, 0);
  data.writeBigUInt64BE(context.matchId, 16);
  return data;
}

/**
 * Viewing keys seen recently, parsed once: the venue seals a memo per settled leg, mostly to the
 * same few keys, and parsing a key costs about as much as the agreement itself. Public keys only;
 * bounded, oldest dropped first.
 */
const VIEWING_KEYS_CACHED_MAX = 4096;
const viewingKeys = new Map<string, KeyObject>();

function viewingKeyOf(hex: string): KeyObject {
  const cached = viewingKeys.get(hex);
  if (cached !== undefined) return cached;
  const key = publicKeyOf(hex, 'viewing_pubkey');
  if (viewingKeys.size >= VIEWING_KEYS_CACHED_MAX) {
    viewingKeys.delete(viewingKeys.keys().next().value as string);
  }
  viewingKeys.set(hex, key);
  return key;
}

/** The raw 32 bytes of an X25519 public key, hex, from its SPKI encoding (cheaper than JWK). */
function rawPublicDer(key: KeyObject): string {
  const der = key.export({ format: 'der', type: 'spki' });
  assert(der.length === SPKI_PREFIX.length + KEY_BYTES, 'X25519 SPKI is 44 bytes');
  return der.subarray(SPKI_PREFIX.length).toString('hex');
}

// DER prefixes of a raw 32-byte X25519 key (RFC 8410): SPKI for public keys, PKCS#8 for private.
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

function publicKeyOf(hex: string, field: string): KeyObject {
  if (!HEX32.test(hex)) throw new VenueError('INVALID_HEX', `${field}: expected 64 lowercase hex characters`);
  if (isLowOrderX25519(hex)) {
    throw new VenueError('INVALID_FORMAT', `${field}: a low-order X25519 key; use a real viewing key`);
  }
  return createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

function privateKeyOf(hex: string): KeyObject {
  assert(HEX32.test(hex), 'X25519 private key: 32 bytes of lowercase hex');
  return createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
}

function rawPublic(key: KeyObject): string {
  const x = key.export({ format: 'jwk' }).x;
  assert(typeof x === 'string', 'X25519 key exports its x coordinate');
  return Buffer.from(x, 'base64url').toString('hex');
}

function rawPrivate(key: KeyObject): string {
  const d = key.export({ format: 'jwk' }).d;
  assert(typeof d === 'string', 'X25519 private key exports d');
  return Buffer.from(d, 'base64url').toString('hex');
}

function unreadable(problem: string): never {
  throw new VenueError('INVALID_FORMAT', `fill memo: ${problem}`);
}
