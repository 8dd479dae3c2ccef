import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Background threads yield the CPU to the sequencer's (decisions D124, D132). On a machine with as
 * many busy threads as cores, a thread of equal priority that wakes (the sequencer's timer, a
 * socket that became readable) waits in the run queue until a busy one's slice ends: measured here
 * at 5-9 ms per wake with two busy threads on two cores, and none with the busy ones at nice 19.
 * Work that can wait (settlement's hashing, sealing and encoding; proving a batch's legs) therefore
 * runs at a lower priority than the event loop that answers clients; it still gets every cycle the
 * sequencer leaves, so its throughput only drops when the machine is short of CPU, which is when
 * the sequencer must come first.
 *
 * Linux gives each thread its own nice value (setpriority with a thread id), so these move one
 * thread only. Elsewhere they do nothing and say so (null).
 */

/** The calling thread's id on Linux ("<pid>/task/<tid>": Node has no gettid), else null. */
export function thisThreadId(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isSafeInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/**
 * Lowers thread `tid` of this process by `by` nice steps, relative to its own nice, so a venue
 * started under `nice` never gets a higher priority than it was given (which would also need a
 * privilege). Returns the new nice value, or null where threads have no nice of their own.
 */
export function lowerThreadPriority(tid: number | null, by: number): number | null {
  if (process.platform !== 'linux' || tid === null) return null;
  const nice = Math.min(19, getPriority(tid) + by);
  setPriority(tid, nice);
  return nice;
}

/** Lowers the calling thread (a worker at its start). */
export function lowerThisThreadPriority(by: number): number | null {
  return lowerThreadPriority(thisThreadId(), by);
}

/**
 * Lowers every thread of this process, other than the calling one, by `by` nice steps (D138). Run
 * first thing by the commands that serve, before any worker starts, it moves the threads the
 * process started with: V8's platform threads (concurrent marking and sweeping, the helpers of its
 * parallel scavenges, optimising compiles), libuv's pool (file system calls, the journal's fsync)
 * and Node's own. Workers started later keep the caller's priority (or lower themselves). Returns
 * how many threads were lowered, or null where threads have no nice of their own.
 */
export function lowerOtherThreads(by: number): number | null {
  const self = thisThreadId();
  if (self === null) return null;
  let lowered = 0;
  for (const entry of readdirSync('/proc/self/task')) {
    const tid = Number(entry);
    if (tid === self) continue;
    try {
      lowerThreadPriority(tid, by);
      lowered += 1;
    } catch {
      // The thread ended between the listing and the call.
    }
  }
  return lowered;
}
