/**
 * A snapshot file's bytes, built in one pure function so that the sequencer's thread (inline
 * snapshots) and the snapshot replica's worker thread (replica/) produce exactly the same file:
 * header, sealed text, CRC (layout in record-format.ts and docs/durability.md).
 */
import type { JournalPosition } from './journal.ts';
import { SNAPSHOT_HEADER_BYTES, snapshotAssociated, snapshotCrc } from './record-format.ts';
import { fileKey, newSalt, sealInto, TAG_BYTES } from './sealing.ts';

/** Seals `text` as the state after the record at `at`; the result is the whole file. */
export function encodeSnapshotFile(sealingKey: Uint8Array, at: JournalPosition, text: string): Buffer {
  const plain = Buffer.from(text, 'utf8');
  const salt = newSalt();
  const sealedLength = plain.length + TAG_BYTES;
  const associated = snapshotAssociated({ salt, seq: at.seq, recordHash: at.hash }, sealedLength);
  // Not from the shared pool: the replica transfers this buffer's memory to the sequencer's thread.
  const bytes = Buffer.allocUnsafeSlow(SNAPSHOT_HEADER_BYTES + sealedLength);
  associated.copy(bytes, 0);
  sealInto(fileKey(sealingKey, salt, 'snapshot'), 0n, associated, plain, bytes, SNAPSHOT_HEADER_BYTES);
  bytes.writeUInt32LE(
    snapshotCrc(associated, bytes.subarray(SNAPSHOT_HEADER_BYTES)),
    SNAPSHOT_HEADER_BYTES - 4,
  );
  return bytes;
}
