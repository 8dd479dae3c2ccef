/**
 * The journal head: a small file naming the newest segment the journal created. Recovery cannot see
 * a segment that is gone. A deleted newest segment would leave a journal that reads whole and simply
 * ends early, losing acknowledged records without a word. The head lets recovery notice.
 *
 * Order of writes (file-journal.ts): the segment file is created durably first, then the head naming
 * it is replaced atomically, and only then is a record appended to the segment. So every
 * acknowledged record lies in a segment at or before the one the head names. A crash between the two
 * steps leaves the head one segment behind, which is harmless: the newer segment holds no record.
 *
 * Layout (44 bytes): magic `VJHEAD01` (8), the segment's first sequence number (u64 LE, 8), and
 * HMAC-SHA256 of those 16 bytes under a key derived from the sealing key (32). The head is not
 * secret, but it is authenticated, so it cannot be forged to point at an older segment.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { assert } from '@venue/protocol';
import { SEALING_KEY_BYTES } from '../config/limits.ts';
import { writeFileDurably } from './durable-file.ts';
import type { JournalFiles } from './files.ts';

export const HEAD_FILE_NAME = 'journal.head';
const MAGIC = Buffer.from('VJHEAD01', 'latin1');
const MAC_BYTES = 32;
export const HEAD_BYTES = MAGIC.length + 8 + MAC_BYTES;

function headKey(sealingKey: Uint8Array): Buffer {
  assert(sealingKey.length === SEALING_KEY_BYTES, `the sealing key must be ${SEALING_KEY_BYTES} bytes`);
  return Buffer.from(hkdfSync('sha256', sealingKey, Buffer.alloc(0), 'venue journal head v1', MAC_BYTES));
}

export function encodeHead(sealingKey: Uint8Array, newestSegmentSeq: bigint): Buffer {
  const bytes = Buffer.alloc(HEAD_BYTES);
  MAGIC.copy(bytes, 0);
  bytes.writeBigUInt64LE(newestSegmentSeq, MAGIC.length);
  const body = bytes.subarray(0, MAGIC.length + 8);
  createHmac('sha256', headKey(sealingKey)).update(body).digest().copy(bytes, body.length);
  return bytes;
}

/** The segment the head names, or null when the bytes are not a head authenticated by this key. */
export function decodeHead(sealingKey: Uint8Array, bytes: Buffer): bigint | null {
  if (bytes.length !== HEAD_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const body = bytes.subarray(0, MAGIC.length + 8);
  const expected = createHmac('sha256', headKey(sealingKey)).update(body).digest();
  if (!timingSafeEqual(expected, bytes.subarray(body.length))) return null;
  return bytes.readBigUInt64LE(MAGIC.length);
}

/** Replaces the head atomically: temp file, fdatasync, rename, directory fsync. */
export async function writeHead(
  files: JournalFiles,
  directory: string,
  sealingKey: Uint8Array,
  newestSegmentSeq: bigint,
): Promise<void> {
  await writeFileDurably(files, join(directory, HEAD_FILE_NAME), encodeHead(sealingKey, newestSegmentSeq));
}
