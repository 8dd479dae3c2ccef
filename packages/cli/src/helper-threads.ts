import { HELPER_THREADS_NICE } from '@venue/adapters';
import { lowerOtherThreads } from '@venue/notes';

/**
 * The first step of a command that serves (D138): the threads this process started with (V8's
 * platform threads, libuv's pool, Node's own) go HELPER_THREADS_NICE steps below the sequencer's,
 * before any worker exists, so the workers keep the priority they choose. Returns the count lowered
 * (null off Linux), for the log.
 */
export function lowerHelperThreads(): { threads: number | null; niceSteps: number } {
  return { threads: lowerOtherThreads(HELPER_THREADS_NICE), niceSteps: HELPER_THREADS_NICE };
}
