/**
 * Sealing: AES-256-GCM under a key derived for each file. Every segment and snapshot file starts with
 * 32 random bytes of salt, and its key is HKDF-SHA256(sealing key, salt, purpose). A record's nonce
 * is its sequence number, unique within a file; a file's key is unique to that file because its salt
 * is. So no (key, nonce) pair is ever used twice, even when recovery truncates a torn tail and the
 * next boot writes the same sequence numbers again (into a new file, under a new salt).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { assert } from '@venue/protocol';
import { SEALING_KEY_BYTES } from '../config/limits.ts';

export const SALT_BYTES = 32;
export const TAG_BYTES = 16;
const NONCE_BYTES = 12;
const CIPHER = 'aes-256-gcm';

export type FilePurpose = 'segment' | 'snapshot' | 'accounts';

/** The key that seals one file's contents. */
export function fileKey(sealingKey: Uint8Array, salt: Uint8Array, purpose: FilePurpose): Buffer {
  assert(
    sealingKey.length === SEALING_KEY_BYTES,
    `the sealing key must be ${SEALING_KEY_BYTES} bytes, got ${sealingKey.length}`,
  );
  assert(salt.length === SALT_BYTES, `a file salt must be ${SALT_BYTES} bytes, got ${salt.length}`);
  return Buffer.from(hkdfSync('sha256', sealingKey, salt, `venue journal ${purpose} v1`, SEALING_KEY_BYTES));
}

export function newSalt(): Buffer {
  return randomBytes(SALT_BYTES);
}

/** The nonce of the record (or snapshot: 0) numbered `counter` in its file: 4 zero bytes + u64 LE. */
function nonceOf(counter: bigint): Buffer {
  const nonce = Buffer.alloc(NONCE_BYTES);
  nonce.writeBigUInt64LE(counter, 4);
  return nonce;
}

/** Writes ciphertext ∥ tag of `plain` into `out` at `offset`; returns the bytes written. */
export function sealInto(
  key: Buffer,
  counter: bigint,
  associated: Uint8Array,
  plain: Uint8Array,
  out: Buffer,
  offset: number,
): number {
  const cipher = createCipheriv(CIPHER, key, nonceOf(counter), { authTagLength: TAG_BYTES });
  cipher.setAAD(associated);
  const body = cipher.update(plain);
  const final = cipher.final();
  let at = offset + body.copy(out, offset);
  at += final.copy(out, at);
  at += cipher.getAuthTag().copy(out, at);
  return at - offset;
}

/** The plain bytes, or null when the sealed bytes do not open under this key with this context. */
export function open(
  key: Buffer,
  counter: bigint,
  associated: Uint8Array,
  sealed: Uint8Array,
): Buffer | null {
  if (sealed.length < TAG_BYTES) return null;
  const decipher = createDecipheriv(CIPHER, key, nonceOf(counter), { authTagLength: TAG_BYTES });
  decipher.setAAD(associated);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const body = decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES));
    const final = decipher.final();
    return final.length === 0 ? body : Buffer.concat([body, final]);
  } catch {
    return null;
  }
}
