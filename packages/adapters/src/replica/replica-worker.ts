/**
 * The snapshot replica's thread (snapshot-replica.ts starts it). It restores its seed, then applies
 * every journal batch it is sent, in order, and when asked for the snapshot at record N it composes,
 * seals and returns the whole snapshot file right after applying N, before N + 1. Everything here is
 * synchronous per message, so messages are handled strictly in arrival order. Any error ends the
 * replica: it reports `failed` once and ignores everything after.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { assert, isVenueError } from '@venue/protocol';
import type { JournalPosition } from '../journal/journal.ts';
import type { JournalRecord } from '../journal/journal-record.ts';
import { encodeSnapshotFile } from '../journal/snapshot-file.ts';
import { JournalFollower } from './journal-follower.ts';
import type { FromReplica, ReplicaStart, ToReplica } from './replica-protocol.ts';
import { ReplicaState } from './replica-state.ts';

const port = parentPort;
assert(port !== null, 'replica-worker.ts runs as a worker thread');
const start = workerData as ReplicaStart;
const post = (message: FromReplica, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

let failed = false;
/** The snapshot asked for and not yet taken: the record it must be taken after. */
let due: { seq: bigint; hash: Buffer } | null = null;

try {
  const state = new ReplicaState(start.settings, start.companions, start.seedText);
  const follower = new JournalFollower({ seq: start.seedSeq, hash: Buffer.from(start.seedHash) });

  const takeIfDue = (position: JournalPosition) => {
    if (due === null || position.seq !== due.seq) return;
    assert(
      position.hash.equals(due.hash),
      `the replica's record ${due.seq} differs from the journal's: it does not follow the same chain`,
    );
    due = null;
    const file = encodeSnapshotFile(start.sealingKey, position, state.snapshot());
    post({ type: 'snapshot', seq: position.seq, file }, [file.buffer as ArrayBuffer]);
  };

  // A core's message may name an order or an account, and this report reaches the venue's log: it
  // names only the record, its command type and the kind of error.
  const apply = (record: JournalRecord, seq: bigint) => {
    try {
      state.apply(record);
    } catch (error) {
      const kind = isVenueError(error) ? error.errorName : error instanceof Error ? error.name : 'error';
      throw new Error(`record ${seq} (a ${record.command.type} command) fails on the replica (${kind})`);
    }
  };

  const handle = (message: ToReplica) => {
    if (message.type === 'records') {
      const frames = Buffer.from(message.frames.buffer, message.frames.byteOffset, message.frames.byteLength);
      follower.follow(frames, Buffer.from(message.key), apply, takeIfDue);
      post({ type: 'applied', seq: follower.position.seq, bytes: frames.length });
      return;
    }
    assert(due === null, 'the replica is asked for one snapshot at a time');
    assert(
      message.seq >= follower.position.seq,
      `the replica is asked for a snapshot at ${message.seq}, which it has already passed`,
    );
    due = { seq: message.seq, hash: Buffer.from(message.hash) };
    takeIfDue(follower.position);
  };

  port.on('message', (message: ToReplica) => {
    if (failed) return;
    try {
      handle(message);
    } catch (error) {
      fail(error);
    }
  });
  post({ type: 'ready' });
} catch (error) {
  fail(error);
}

function fail(error: unknown): void {
  failed = true;
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
