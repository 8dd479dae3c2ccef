import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Background threads yield the CPU to the sequencer's (decisions D124). On a machine with as many
 * busy threads as cores, a thread of equal priority that wakes (the sequencer's timer, a socket
 * that became readable) waits in the run queue until a busy one's slice ends: measured here at
 * 5-9 ms per wake with two busy threads on two cores, and none with the busy ones at nice 19.
 * Work that can wait (settlement's hashing, sealing and encoding) therefore runs at a lower
 * priority than the event loop that answers clients; it still gets every cycle the sequencer
 * leaves, so its throughput only drops when the machine is short of CPU, which is when the
 * sequencer must come first.
 *
 * Linux gives each thread its own nice value (setpriority with a thread id), so this lowers only
 * the calling thread. Elsewhere it does nothing and says so (null).
 */
export function lowerThisThreadPriority(by: number): number | null {
  if (process.platform !== 'linux') return null;
  let tid: number;
  try {
    // "<pid>/task/<tid>": Node has no gettid, and a worker thread's id is only known here.
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(tid) || tid <= 0) return null;
  // Relative to the thread's own nice, so a venue started under `nice` never gets a higher priority
  // than it was given (which would also need a privilege).
  const nice = Math.min(19, getPriority(tid) + by);
  setPriority(tid, nice);
  return nice;
}
