/**
 * What the event loop's late turns are made of (D124): a diagnostic beside a benchmark's loop
 * delay, not a figure. A 1 ms timer notes every gap over LATE_MS; for each, the garbage collections
 * that overlap it (node:perf_hooks' `gc` entries) and, on Linux, how long the main thread ran and
 * how long it sat runnable without a core in it (/proc/self/task/<tid>/schedstat: nanoseconds on the
 * CPU, then waiting in the run queue), and the CPU the process's other threads used meanwhile
 * (process.cpuUsage less the main thread's: V8's helper threads compiling and collecting, the
 * workers). A late turn with little CPU and a long wait is the scheduler's (and the other threads'
 * CPU says whether the process itself kept the cores busy); one with a collection is the heap's; one
 * with neither is the venue's own work.
 *
 * The timer and its reads cost the watched thread a little, so a benchmark runs this on request
 * (`npm run bench -- settle-loop --census`), never for its figures.
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

const LATE_MS = 10;
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

export interface LateTurn {
  readonly atMs: number;
  readonly gapMs: number;
  /** The main thread on a CPU during the gap, and waiting for one (Linux; NaN elsewhere). */
  readonly cpuMs: number;
  readonly waitMs: number;
  /** The process's other threads on a CPU during the gap (NaN where the main thread's is unknown). */
  readonly othersMs: number;
  /** Collections overlapping the gap, summed (main thread's and workers' alike). */
  readonly gcMs: number;
}

function schedstat(): { cpuMs: number; waitMs: number; processMs: number } {
  const usage = process.cpuUsage();
  const processMs = (usage.user + usage.system) / 1000;
  try {
    const [cpu, wait] = readFileSync(SCHEDSTAT, 'utf8').split(' ').map(Number);
    return { cpuMs: (cpu ?? Number.NaN) / 1e6, waitMs: (wait ?? Number.NaN) / 1e6, processMs };
  } catch {
    return { cpuMs: Number.NaN, waitMs: Number.NaN, processMs };
  }
}

/** Starts noting late turns; `stop()` returns them, latest collections included. */
export function watchLateTurns(): { stop(): LateTurn[] } {
  const collections: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const gaps: Omit<LateTurn, 'gcMs'>[] = [];
  let last = performance.now();
  let lastSched = schedstat();
  const timer = setInterval(() => {
    const now = performance.now();
    const sched = schedstat();
    if (now - last > LATE_MS) {
      gaps.push({
        atMs: last,
        gapMs: now - last,
        cpuMs: sched.cpuMs - lastSched.cpuMs,
        waitMs: sched.waitMs - lastSched.waitMs,
        othersMs: sched.processMs - lastSched.processMs - (sched.cpuMs - lastSched.cpuMs),
      });
    }
    last = now;
    lastSched = sched;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      observer.disconnect();
      return gaps.map((gap) => ({
        ...gap,
        gcMs: collections
          .filter((c) => c.end >= gap.atMs && c.start <= gap.atMs + gap.gapMs)
          .reduce((sum, c) => sum + (Math.min(c.end, gap.atMs + gap.gapMs) - Math.max(c.start, gap.atMs)), 0),
      }));
    },
  };
}

/** One line per late turn, longest first, and a line of totals. */
export function describeLateTurns(turns: readonly LateTurn[], most = 10): string[] {
  const f = (ms: number) => (Number.isNaN(ms) ? '?' : ms.toFixed(1));
  const sum = (pick: (t: LateTurn) => number) => turns.reduce((total, t) => total + pick(t), 0);
  return [
    `${turns.length} turns over ${LATE_MS} ms: ${f(sum((t) => t.gapMs))} ms in all, the thread on a CPU ${f(sum((t) => t.cpuMs))} ms, waiting for one ${f(sum((t) => t.waitMs))} ms, collections overlapping ${f(sum((t) => t.gcMs))} ms, the process's other threads on a CPU ${f(sum((t) => t.othersMs))} ms`,
    ...[...turns]
      .sort((a, b) => b.gapMs - a.gapMs)
      .slice(0, most)
      .map(
        (t) =>
          `  ${f(t.gapMs)} ms: on a CPU ${f(t.cpuMs)}, waiting ${f(t.waitMs)}, collections ${f(t.gcMs)}, other threads ${f(t.othersMs)}`,
      ),
  ];
}
