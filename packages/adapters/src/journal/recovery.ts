/**
 * Recovery: the newest snapshot that opens, then every journal record after it, in order, each
 * checked before it is handed on: CRC, sequence number, hash chain, seal. The only damage recovery
 * repairs is a torn tail, the end of the last segment written by a commit batch that a crash
 * interrupted; no record of that batch was acknowledged (acks wait for the batch's fdatasync), so it
 * is cut off. Anything else wrong stops the boot with a JournalRecoveryError saying where and what.
 */
import { join } from 'node:path';
import { SNAPSHOT_BYTES_MAX } from '../config/limits.ts';
import { type JournalFiles, NODE_JOURNAL_FILES } from './files.ts';
import type { JournalPosition } from './journal.ts';
import { decodeHead, HEAD_FILE_NAME } from './journal-head.ts';
import type { Annotations, JournalRecord } from './journal-record.ts';
import { decodeRecord, RecordDecodeError } from './record-codec.ts';
import {
  decodeSegmentHeader,
  parseFileName,
  RECORD_HEADER_BYTES,
  type RecordView,
  readRecord,
  recordHash,
  SEGMENT_HEADER_BYTES,
  SNAPSHOT_HEADER_BYTES,
  SNAPSHOT_MAGIC,
  segmentFileName,
  snapshotAssociated,
  snapshotCrc,
  snapshotFileName,
  TEMP_SUFFIX,
  ZERO_HASH,
} from './record-format.ts';
import { fileKey, open } from './sealing.ts';

/** The journal cannot be trusted as it is on disk; an operator must look before the venue boots. */
export class JournalRecoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JournalRecoveryError';
  }
}

export interface RecoveryOptions {
  readonly directory: string;
  readonly sealingKey: Uint8Array;
  /**
   * Receives the snapshot recovery starts from (before any command), if there is one: its text, the
   * record it was taken after and that record's hash.
   */
  readonly onSnapshot?: (text: string, seq: bigint, hash: Buffer) => void;
  /**
   * Receives every record after the snapshot, in sequence order: the command for the core, and the
   * annotations the adapters journaled beside it (for the state companions).
   */
  readonly onCommand: (command: JournalRecord['command'], seq: bigint, annotations: Annotations) => void;
  /**
   * Receives the sealed frame of every record handed to onCommand, with the key that opens it, after
   * onCommand (the snapshot replica is fed the same records at boot). The frame is a view into a
   * buffer recovery drops afterwards: copy what you keep.
   */
  readonly onRecord?: (frame: Buffer, key: Buffer, seq: bigint) => void;
  readonly files?: JournalFiles;
  /**
   * Rebuild from the first record, ignoring snapshots (an audit, or a check that a snapshot equals
   * the replay it stands for). Needs every segment, see JournalOptions.pruneSegments.
   */
  readonly ignoreSnapshots?: boolean;
}

export interface Recovery {
  /** The snapshot to restore (VenueCore.restore), or null to start from an empty core. */
  readonly snapshot: { readonly seq: bigint; readonly text: string; readonly hash: Buffer } | null;
  /** The last record (or the snapshot's) : the journal continues after it. */
  readonly position: JournalPosition;
  /** How many commands were handed to onCommand. */
  readonly replayed: number;
  /** The torn tail cut off, if there was one. */
  readonly truncated: { readonly file: string; readonly offset: number; readonly bytes: number } | null;
  /** What recovery skipped or removed (unreadable older snapshots, leftover temp files). */
  readonly notes: readonly string[];
  /** First sequence numbers of the segment files left on disk, ascending. */
  readonly segmentSeqs: readonly bigint[];
  /** Sequence numbers of the snapshot files on disk, ascending. */
  readonly snapshotSeqs: readonly bigint[];
}

export interface LoadedSnapshot {
  readonly seq: bigint;
  readonly recordHash: Buffer;
  readonly text: string;
}

export async function recoverJournal(options: RecoveryOptions): Promise<Recovery> {
  const files = options.files ?? NODE_JOURNAL_FILES;
  const { directory } = options;
  await files.makeDirectory(directory);
  const notes: string[] = [];
  const names = await files.list(directory);
  const temps = names.filter((name) => name.endsWith(TEMP_SUFFIX));
  for (const temp of temps) {
    await files.remove(join(directory, temp));
    notes.push(`removed ${temp}, a file whose creation a crash interrupted`);
  }
  if (temps.length > 0) await files.syncDirectory(directory);

  const segmentSeqs: bigint[] = [];
  const snapshotSeqs: bigint[] = [];
  for (const name of names) {
    const parsed = parseFileName(name);
    if (parsed?.kind === 'segment') segmentSeqs.push(parsed.seq);
    if (parsed?.kind === 'snapshot') snapshotSeqs.push(parsed.seq);
  }
  const ascending = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
  segmentSeqs.sort(ascending);
  snapshotSeqs.sort(ascending);
  await checkHead(files, options, names, segmentSeqs);

  const snapshot =
    options.ignoreSnapshots === true
      ? null
      : await newestSnapshot(files, directory, options.sealingKey, snapshotSeqs, notes);
  if (snapshot !== null) options.onSnapshot?.(snapshot.text, snapshot.seq, snapshot.recordHash);
  const replay = await replaySegments(files, options, segmentSeqs, snapshot);
  return {
    snapshot:
      snapshot === null ? null : { seq: snapshot.seq, text: snapshot.text, hash: snapshot.recordHash },
    position: replay.position,
    replayed: replay.replayed,
    truncated: replay.truncated,
    notes,
    segmentSeqs,
    snapshotSeqs,
  };
}

/**
 * The newest segment must still be there (journal-head.ts). A head naming a segment older than the
 * newest on disk is a crash between creating a segment and naming it: that segment holds no record.
 */
async function checkHead(
  files: JournalFiles,
  options: RecoveryOptions,
  names: readonly string[],
  segmentSeqs: readonly bigint[],
): Promise<void> {
  const newestOnDisk = segmentSeqs.at(-1);
  if (!names.includes(HEAD_FILE_NAME)) {
    if (newestOnDisk === undefined) return; // a new journal
    throw new JournalRecoveryError(
      `${HEAD_FILE_NAME} is missing from ${options.directory} although segments are there: the newest segment may have been removed with it, so acknowledged records could be lost; restore the directory from a backup or an audit copy`,
    );
  }
  const named = decodeHead(options.sealingKey, await files.read(join(options.directory, HEAD_FILE_NAME)));
  if (named === null) {
    throw new JournalRecoveryError(
      `${HEAD_FILE_NAME} in ${options.directory} is damaged or forged: it does not open under this sealing key (altered bytes, or a directory of another build or platform)`,
    );
  }
  if (newestOnDisk === undefined || newestOnDisk < named) {
    throw new JournalRecoveryError(
      `${segmentFileName(named)}, the newest segment the journal created, is missing from ${options.directory}: records acknowledged in it would be lost; restore it from a backup or an audit copy`,
    );
  }
}

/** The newest snapshot that reads back whole and opens; older ones are fallbacks. */
async function newestSnapshot(
  files: JournalFiles,
  directory: string,
  sealingKey: Uint8Array,
  seqs: readonly bigint[],
  notes: string[],
): Promise<LoadedSnapshot | null> {
  const problems: string[] = [];
  for (const seq of [...seqs].reverse()) {
    const name = snapshotFileName(seq);
    const loaded = readSnapshot(await files.read(join(directory, name)), seq, sealingKey);
    if (typeof loaded !== 'string') {
      for (const problem of problems) notes.push(problem);
      return loaded;
    }
    problems.push(`skipped ${name}: ${loaded}`);
  }
  if (problems.length > 0) {
    throw new JournalRecoveryError(
      `no snapshot in ${directory} can be used (${problems.join('; ')}); if the sealing key is right, restore the directory from a backup`,
    );
  }
  return null;
}

/** A snapshot file's content, or a sentence saying why it cannot be used (also for the JetStream journal). */
export function readSnapshot(bytes: Buffer, seq: bigint, sealingKey: Uint8Array): LoadedSnapshot | string {
  if (bytes.length < SNAPSHOT_HEADER_BYTES) return 'it is shorter than its header';
  if (bytes.length > SNAPSHOT_BYTES_MAX)
    return `it is larger than SNAPSHOT_BYTES_MAX (${SNAPSHOT_BYTES_MAX})`;
  if (bytes.toString('latin1', 0, 4) !== SNAPSHOT_MAGIC) return 'it does not start with the snapshot magic';
  const header = {
    salt: bytes.subarray(8, 40),
    seq: bytes.readBigUInt64LE(40),
    recordHash: Buffer.from(bytes.subarray(48, 80)),
  };
  const sealed = bytes.subarray(SNAPSHOT_HEADER_BYTES);
  if (bytes.readBigUInt64LE(80) !== BigInt(sealed.length)) return 'its length field does not match its size';
  const associated = snapshotAssociated(header, sealed.length);
  if (!associated.equals(bytes.subarray(0, SNAPSHOT_HEADER_BYTES - 4))) return 'its header is malformed';
  if (snapshotCrc(associated, sealed) !== bytes.readUInt32LE(SNAPSHOT_HEADER_BYTES - 4))
    return 'its CRC does not match (damaged on disk)';
  if (header.seq !== seq) return `its header says sequence ${header.seq}, its name ${seq}`;
  const plain = open(fileKey(sealingKey, header.salt, 'snapshot'), 0n, associated, sealed);
  if (plain === null) return 'it does not open under this sealing key (wrong key, or the file was altered)';
  return { seq, recordHash: header.recordHash, text: plain.toString('utf8') };
}

interface Replay {
  position: JournalPosition;
  replayed: number;
  truncated: Recovery['truncated'];
}

/** Walks the segments from the one holding the record after the snapshot to the end. */
async function replaySegments(
  files: JournalFiles,
  options: RecoveryOptions,
  segmentSeqs: readonly bigint[],
  snapshot: LoadedSnapshot | null,
): Promise<Replay> {
  const after = snapshot?.seq ?? 0n;
  const start: JournalPosition = { seq: after, hash: snapshot?.recordHash ?? ZERO_HASH };
  let first = -1;
  for (let i = 0; i < segmentSeqs.length; i++) if ((segmentSeqs[i] as bigint) <= after + 1n) first = i;
  if (first < 0) {
    if (segmentSeqs.length === 0) return { position: start, replayed: 0, truncated: null };
    throw new JournalRecoveryError(
      `the journal in ${options.directory} is missing records: the ${snapshot === null ? 'empty state' : `snapshot at ${after}`} needs record ${after + 1n}, but the oldest segment starts at ${segmentSeqs[0]}`,
    );
  }
  const walk = new ChainWalk(options, start);
  let truncated: Recovery['truncated'] = null;
  for (let i = first; i < segmentSeqs.length; i++) {
    const name = segmentFileName(segmentSeqs[i] as bigint);
    const bytes = await files.read(join(options.directory, name));
    const tornAt = walk.segment(name, bytes, segmentSeqs[i] as bigint, i === first);
    if (tornAt === null) continue;
    if (i !== segmentSeqs.length - 1) {
      throw new JournalRecoveryError(
        `${name} in ${options.directory} is damaged at byte ${tornAt} (record ${walk.position.seq + 1n}) but later segments follow it: corruption in the middle of the journal, not a torn tail`,
      );
    }
    await files.truncate(join(options.directory, name), tornAt);
    truncated = { file: name, offset: tornAt, bytes: bytes.length - tornAt };
  }
  if (walk.position.seq < after) {
    throw new JournalRecoveryError(
      `the journal in ${options.directory} ends at record ${walk.position.seq}, before the snapshot at ${after}: records it had made durable are gone`,
    );
  }
  return { position: walk.position, replayed: walk.replayed, truncated };
}

/** Checks records one after the other against the chain and hands on those after the snapshot. */
class ChainWalk {
  position: JournalPosition;
  replayed = 0;
  readonly #options: RecoveryOptions;
  readonly #snapshotSeq: bigint;
  readonly #snapshotHash: Buffer;
  /** Set once the walk has passed a point it can check the chain from. */
  #anchored: boolean;

  constructor(options: RecoveryOptions, start: JournalPosition) {
    this.#options = options;
    this.#snapshotSeq = start.seq;
    this.#snapshotHash = start.hash;
    this.position = start;
    this.#anchored = false;
  }

  /** Walks one segment; returns the offset of a torn tail, or null when the segment reads whole. */
  segment(name: string, bytes: Buffer, nameSeq: bigint, isFirst: boolean): number | null {
    const header = decodeSegmentHeader(bytes);
    if (typeof header === 'string') this.#fail(name, `its header is unusable: ${header}`);
    if (header.firstSeq !== nameSeq) this.#fail(name, `its header says it starts at ${header.firstSeq}`);
    if (isFirst) {
      // The walk starts inside the chain: the first segment's own header anchors it.
      this.position = { seq: header.firstSeq - 1n, hash: header.prevHash };
      this.#anchored = header.firstSeq - 1n === this.#snapshotSeq;
      if (this.#anchored && !header.prevHash.equals(this.#snapshotHash))
        this.#fail(name, 'its previous-record hash does not match the snapshot it follows');
    } else if (header.firstSeq !== this.position.seq + 1n || !header.prevHash.equals(this.position.hash)) {
      this.#fail(name, `it does not continue the chain after record ${this.position.seq}`);
    }
    const key = fileKey(this.#options.sealingKey, header.salt, 'segment');
    let offset = SEGMENT_HEADER_BYTES;
    while (offset < bytes.length) {
      const record = readRecord(bytes, offset);
      if (record === null) {
        this.#assertTornTail(name, bytes, offset);
        return offset;
      }
      this.#record(name, record, key, offset);
      offset += record.frame.length;
    }
    return null;
  }

  #record(name: string, record: RecordView, key: Buffer, offset: number): void {
    const expected = this.position.seq + 1n;
    if (record.seq !== expected)
      this.#fail(name, `the record at byte ${offset} is numbered ${record.seq}, expected ${expected}`);
    if (!record.prevHash.equals(this.position.hash))
      this.#fail(
        name,
        `record ${record.seq} does not carry the hash of record ${this.position.seq}: the hash chain is broken`,
      );
    const hash = recordHash(record.frame);
    if (record.seq === this.#snapshotSeq && !hash.equals(this.#snapshotHash))
      this.#fail(
        name,
        `record ${record.seq} is not the record the snapshot at ${this.#snapshotSeq} was taken after`,
      );
    if (record.seq > this.#snapshotSeq) {
      const plain = open(key, record.seq, record.associated, record.sealed);
      if (plain === null)
        this.#fail(
          name,
          `record ${record.seq} does not open under this sealing key (wrong key, or the record was altered)`,
        );
      let decoded: JournalRecord;
      try {
        decoded = decodeRecord(plain);
      } catch (error) {
        if (!(error instanceof RecordDecodeError)) throw error;
        this.#fail(name, `record ${record.seq} opened but does not decode (${error.message})`);
      }
      this.#options.onCommand(decoded.command, record.seq, decoded.annotations);
      this.#options.onRecord?.(record.frame, key, record.seq);
      this.replayed += 1;
    }
    this.position = { seq: record.seq, hash };
  }

  /**
   * A record that fails its CRC (or is cut short) at `offset` is a torn tail only if no record of a
   * LATER commit batch follows it: a later batch is written only after the earlier one's fdatasync,
   * so finding one means the damaged record had been acknowledged. Records of the same batch may
   * follow (the kernel may write a batch's pages in any order); they were not acknowledged either.
   */
  #assertTornTail(name: string, bytes: Buffer, offset: number): void {
    const expected = this.position.seq + 1n;
    for (let at = offset + 1; at + RECORD_HEADER_BYTES <= bytes.length; at++) {
      const later = readRecord(bytes, at);
      if (later === null) continue;
      if (later.batchFirstSeq > expected) {
        this.#fail(
          name,
          `record ${expected} at byte ${offset} is damaged, yet record ${later.seq} of a later commit batch follows at byte ${at}: corruption in the middle of the journal, not a torn tail`,
        );
      }
      at += later.frame.length - 1;
    }
  }

  #fail(name: string, problem: string): never {
    throw new JournalRecoveryError(
      `the journal in ${this.#options.directory} cannot be recovered: ${name}: ${problem}. The venue will not boot on it; restore the directory from a backup or a replica`,
    );
  }
}
