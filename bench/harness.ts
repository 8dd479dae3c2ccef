/**
 * Benchmark reporting as ../shared/design/benchmarks.md fixes it: every figure is measured beside a
 * baseline in the same run, printed for people on stderr and as one JSON line on stdout.
 */
import { spawnSync } from 'node:child_process';

export interface Baseline {
  name: string;
  value: number;
}

export interface Figure {
  bench: string;
  name: string;
  value: number;
  unit: string;
  better: 'higher' | 'lower';
  baseline: Baseline | null;
  ratio?: number;
  runs: number;
  spread: number;
}

export interface Sampled {
  median: number;
  spread: number;
  runs: number;
}

/** Median and (max - min) / median of repeated measurements. */
export function summarise(samples: readonly number[]): Sampled {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  const spread = median === 0 ? 0 : ((sorted.at(-1) ?? 0) - (sorted[0] ?? 0)) / median;
  return { median, spread, runs: samples.length };
}

/** Runs `operation` `opsPerRun` times per run, `runs` times, after one warm-up run; returns ops/s. */
export function opsPerSecond(operation: (i: number) => void, opsPerRun: number, runs: number): Sampled {
  for (let i = 0; i < opsPerRun; i++) operation(i);
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < opsPerRun; i++) operation(i);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    samples.push(opsPerRun / seconds);
  }
  return summarise(samples);
}

/** Per-operation latency percentiles in microseconds. */
export function latencyPercentilesUs(
  operation: (i: number) => void,
  count: number,
): { p50: number; p99: number } {
  const samples = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    operation(i);
    samples[i] = Number(process.hrtime.bigint() - start) / 1e3;
  }
  samples.sort();
  return { p50: samples[Math.floor(count * 0.5)] ?? 0, p99: samples[Math.floor(count * 0.99)] ?? 0 };
}

/** Builds a figure with its ratio oriented so that above 1 means ahead of the baseline. */
export function figure(
  bench: string,
  name: string,
  unit: string,
  better: 'higher' | 'lower',
  measured: Sampled,
  baseline: Baseline | null,
): Figure {
  const result: Figure = {
    bench,
    name,
    value: round(measured.median),
    unit,
    better,
    baseline,
    runs: measured.runs,
    spread: round(measured.spread, 3),
  };
  if (baseline !== null && baseline.value > 0 && measured.median > 0) {
    result.ratio = round(
      better === 'higher' ? measured.median / baseline.value : baseline.value / measured.median,
      3,
    );
  }
  return result;
}

export function report(figures: readonly Figure[]): void {
  for (const f of figures) {
    const base = f.baseline === null ? 'no baseline' : `${f.baseline.name} ${f.baseline.value} ${f.unit}`;
    const ratio = f.ratio === undefined ? '' : `  ratio ${f.ratio}`;
    process.stderr.write(
      `${f.bench}/${f.name}: ${f.value} ${f.unit} (${f.better} is better; spread ${f.spread}; ${base})${ratio}\n`,
    );
    process.stdout.write(`${JSON.stringify(f)}\n`);
  }
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * Runs a benchmark's child script (TypeScript, under tsx, gc exposed, plus `nodeFlags`) to its end
 * and returns what it wrote to stdout as JSON; its stderr passes through. For figures that need a
 * process of their own (node flags, or thread priorities that last a thread's life).
 */
export function childJson<T>(script: string, args: readonly string[], nodeFlags: readonly string[] = []): T {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', ...nodeFlags, '--import', 'tsx', script, ...args],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (child.status !== 0) throw new Error(`${script} ${args.join(' ')} exited ${child.status}`);
  return JSON.parse(child.stdout) as T;
}
