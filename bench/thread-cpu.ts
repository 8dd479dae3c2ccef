/**
 * CPU time by thread (Linux /proc), to say where a production-path request's CPU goes: the main
 * thread, the proof workers, the venue's other workers, and the rest of the process (V8's garbage
 * collection helpers, libuv's pool). Node 20 gives threads no names, so a group is the set of
 * threads that appeared while its part started (`newThreads`). Elsewhere than Linux every figure is 0.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second for /proc/.../stat times (USER_HZ, 100 on every mainstream build). */
const TICKS_PER_SECOND = 100;

/** The thread ids of this process. */
export function threadIds(): Set<number> {
  try {
    return new Set(readdirSync('/proc/self/task').map(Number));
  } catch {
    return new Set();
  }
}

/** The threads started while `start` ran (its worker threads), and what it returned. */
export async function newThreads<T>(start: () => Promise<T>): Promise<{ value: T; threads: Set<number> }> {
  const before = threadIds();
  const value = await start();
  return { value, threads: new Set([...threadIds()].filter((tid) => !before.has(tid))) };
}

/** CPU seconds (user + system) per thread id. */
export function threadCpuSeconds(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of threadIds()) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The command name may hold spaces: count fields after its closing parenthesis (utime is
      // the 14th field of the line, stime the 15th).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // the thread ended between listing and reading
    }
  }
  return out;
}

/** CPU seconds of this process between two snapshots: the main thread, each group, and the rest. */
export function cpuByGroup<G extends string>(
  before: Map<number, number>,
  after: Map<number, number>,
  groups: Record<G, ReadonlySet<number>>,
): Record<G | 'main' | 'other', number> {
  const out = { main: 0, other: 0 } as Record<G | 'main' | 'other', number>;
  const names = Object.keys(groups) as G[];
  for (const name of names) out[name] = 0;
  for (const [tid, seconds] of after) {
    const spent = seconds - (before.get(tid) ?? 0);
    const group = tid === process.pid ? 'main' : (names.find((name) => groups[name].has(tid)) ?? 'other');
    out[group] += spent;
  }
  return out;
}
