/**
 * The journal's bytes on disk: segment headers, record frames and snapshot files (all integers
 * little-endian). docs/durability.md draws the same layouts; keep the two in step.
 *
 * Record frame (RECORD_HEADER_BYTES + sealed length):
 *   0  u32  sealed length (ciphertext + 16-byte tag)
 *   4  u32  CRC-32 of bytes [0,4) then [8,end)
 *   8  u64  sequence number (gapless from 1)
 *   16 u64  sequence number of the first record of its commit batch
 *   24 32B  sha256 of the previous record's frame (zeros before the first record)
 *   56 ...  sealed command; associated data = bytes [8,56)
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { JOURNAL_COMMAND_BYTES_MAX } from '../config/limits.ts';
import { SALT_BYTES, TAG_BYTES } from './sealing.ts';

export const HASH_BYTES = 32;
export const ZERO_HASH = Buffer.alloc(HASH_BYTES);

export const RECORD_HEADER_BYTES = 56;
export const RECORD_SEALED_BYTES_MAX = JOURNAL_COMMAND_BYTES_MAX + TAG_BYTES;
export const RECORD_BYTES_MAX = RECORD_HEADER_BYTES + RECORD_SEALED_BYTES_MAX;

export const SEGMENT_MAGIC = 'VJRN';
export const SNAPSHOT_MAGIC = 'VSNP';
export const FORMAT_VERSION = 1;

/** magic(4) version(2) reserved(2) salt(32) firstSeq(8) prevHash(32) crc(4) */
export const SEGMENT_HEADER_BYTES = 84;
/** magic(4) version(2) reserved(2) salt(32) seq(8) recordHash(32) sealedLength(8) crc(4) */
export const SNAPSHOT_HEADER_BYTES = 92;

export function recordCrc(frame: Uint8Array): number {
  return crc32(frame.subarray(8), crc32(frame.subarray(0, 4)));
}

export function recordHash(frame: Uint8Array): Buffer {
  return createHash('sha256').update(frame).digest();
}

/** Fills in a record header before sealing: the caller seals into bytes [56,...) afterwards. */
export function writeRecordHeader(
  frame: Buffer,
  seq: bigint,
  batchFirstSeq: bigint,
  prevHash: Uint8Array,
): void {
  frame.writeBigUInt64LE(seq, 8);
  frame.writeBigUInt64LE(batchFirstSeq, 16);
  frame.set(prevHash, 24);
}

/** Completes a frame once its sealed payload is in place: length and CRC. */
export function finishRecord(frame: Buffer, sealedLength: number): void {
  frame.writeUInt32LE(sealedLength, 0);
  frame.writeUInt32LE(recordCrc(frame), 4);
}

export interface RecordView {
  readonly seq: bigint;
  readonly batchFirstSeq: bigint;
  readonly prevHash: Buffer;
  readonly associated: Buffer;
  readonly sealed: Buffer;
  readonly frame: Buffer;
}

/**
 * The record at `offset` if its frame is complete and its CRC matches; otherwise null (torn, zeroed
 * or damaged bytes). A CRC match says the bytes are as written, not who wrote them: the seal does.
 */
export function readRecord(bytes: Buffer, offset: number): RecordView | null {
  if (bytes.length - offset < RECORD_HEADER_BYTES) return null;
  const sealedLength = bytes.readUInt32LE(offset);
  if (sealedLength < TAG_BYTES || sealedLength > RECORD_SEALED_BYTES_MAX) return null;
  const end = offset + RECORD_HEADER_BYTES + sealedLength;
  if (end > bytes.length) return null;
  const frame = bytes.subarray(offset, end);
  if (frame.readUInt32LE(4) !== recordCrc(frame)) return null;
  return {
    seq: frame.readBigUInt64LE(8),
    batchFirstSeq: frame.readBigUInt64LE(16),
    prevHash: frame.subarray(24, 56),
    associated: frame.subarray(8, RECORD_HEADER_BYTES),
    sealed: frame.subarray(RECORD_HEADER_BYTES),
    frame,
  };
}

export interface SegmentHeader {
  readonly salt: Buffer;
  readonly firstSeq: bigint;
  readonly prevHash: Buffer;
}

export function encodeSegmentHeader(header: SegmentHeader): Buffer {
  const bytes = Buffer.alloc(SEGMENT_HEADER_BYTES);
  bytes.write(SEGMENT_MAGIC, 0, 'latin1');
  bytes.writeUInt16LE(FORMAT_VERSION, 4);
  header.salt.copy(bytes, 8);
  bytes.writeBigUInt64LE(header.firstSeq, 40);
  header.prevHash.copy(bytes, 48);
  bytes.writeUInt32LE(crc32(bytes.subarray(0, 80)), 80);
  return bytes;
}

/** The header, or a sentence saying what is wrong with it. */
export function decodeSegmentHeader(bytes: Buffer): SegmentHeader | string {
  if (bytes.length < SEGMENT_HEADER_BYTES) return `it is ${bytes.length} bytes, shorter than its header`;
  if (bytes.toString('latin1', 0, 4) !== SEGMENT_MAGIC) return 'it does not start with the segment magic';
  if (bytes.readUInt16LE(4) !== FORMAT_VERSION) return `its format version is ${bytes.readUInt16LE(4)}`;
  if (bytes.readUInt32LE(80) !== crc32(bytes.subarray(0, 80))) return 'its header CRC does not match';
  return {
    salt: Buffer.from(bytes.subarray(8, 8 + SALT_BYTES)),
    firstSeq: bytes.readBigUInt64LE(40),
    prevHash: Buffer.from(bytes.subarray(48, 80)),
  };
}

export interface SnapshotHeader {
  readonly salt: Buffer;
  readonly seq: bigint;
  readonly recordHash: Buffer;
}

/** The snapshot's header bytes without its CRC (which covers the sealed payload too). */
export function snapshotAssociated(header: SnapshotHeader, sealedLength: number): Buffer {
  const bytes = Buffer.alloc(SNAPSHOT_HEADER_BYTES - 4);
  bytes.write(SNAPSHOT_MAGIC, 0, 'latin1');
  bytes.writeUInt16LE(FORMAT_VERSION, 4);
  header.salt.copy(bytes, 8);
  bytes.writeBigUInt64LE(header.seq, 40);
  header.recordHash.copy(bytes, 48);
  bytes.writeBigUInt64LE(BigInt(sealedLength), 80);
  return bytes;
}

export function snapshotCrc(associated: Uint8Array, sealed: Uint8Array): number {
  return crc32(sealed, crc32(associated));
}

export function segmentFileName(firstSeq: bigint): string {
  return `journal-${firstSeq.toString().padStart(20, '0')}.seg`;
}

export function snapshotFileName(seq: bigint): string {
  return `snapshot-${seq.toString().padStart(20, '0')}.snap`;
}

/** The number in a segment or snapshot file name, or null for any other file. */
export function parseFileName(name: string): { kind: 'segment' | 'snapshot'; seq: bigint } | null {
  const match = /^(journal|snapshot)-(\d{20})\.(seg|snap)$/.exec(name);
  if (match === null) return null;
  const kind = match[1] === 'journal' ? 'segment' : 'snapshot';
  if ((kind === 'segment') !== (match[3] === 'seg')) return null;
  return { kind, seq: BigInt(match[2] ?? '0') };
}

export const TEMP_SUFFIX = '.tmp';
