import type { JournalPosition } from '../journal/journal.ts';
import type { JournalRecord } from '../journal/journal-record.ts';
import { decodeRecord } from '../journal/record-codec.ts';
import { readRecord, recordHash } from '../journal/record-format.ts';
import { open } from '../journal/sealing.ts';

/**
 * Follows the journal from a known position, one commit batch of sealed frames at a time, with the
 * checks recovery makes: each record is the next number, carries the hash of the one before, and
 * opens under its segment's key. Records at or before the position are skipped (after a restart from
 * an inline snapshot, the first batch may still hold records the snapshot covers). Anything else
 * throws: the replica must see exactly the journal's chain, or nothing.
 */
export class JournalFollower {
  #position: JournalPosition;

  constructor(start: JournalPosition) {
    this.#position = { seq: start.seq, hash: Buffer.from(start.hash) };
  }

  get position(): JournalPosition {
    return this.#position;
  }

  /**
   * Hands every new record in `frames` to `onRecord`, in order; `after` runs after each record
   * (the replica takes a snapshot exactly there when one is due).
   */
  follow(
    frames: Buffer,
    key: Buffer,
    onRecord: (record: JournalRecord, seq: bigint) => void,
    after: (position: JournalPosition) => void,
  ): void {
    let offset = 0;
    while (offset < frames.length) {
      const record = readRecord(frames, offset);
      if (record === null) throw new Error(`the replica received a damaged record at byte ${offset}`);
      offset += record.frame.length;
      if (record.seq <= this.#position.seq) continue;
      const expected = this.#position.seq + 1n;
      if (record.seq !== expected) {
        throw new Error(`the replica received record ${record.seq} while expecting ${expected}`);
      }
      if (!record.prevHash.equals(this.#position.hash)) {
        throw new Error(`record ${record.seq} does not continue the chain the replica follows`);
      }
      const plain = open(key, record.seq, record.associated, record.sealed);
      if (plain === null) throw new Error(`record ${record.seq} does not open under its segment key`);
      onRecord(decodeRecord(plain), record.seq);
      this.#position = { seq: record.seq, hash: recordHash(record.frame) };
      after(this.#position);
    }
  }
}
