/**
 * Reads the venue's Prometheus text (GET /admin/metrics/prometheus) into samples. The console needs
 * only the sample lines (`name{label="v",…} value`), so a few lines of parsing serve it; comments
 * (# HELP, # TYPE) are skipped. Label values are unescaped per the exposition format.
 */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_all, char: string) => (char === 'n' ? '\n' : char));
}

export function parsePrometheus(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      if (key !== undefined && value !== undefined) labels[key] = unescapeLabel(value);
    }
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum over every label set of one metric (a counter's total across markets or codes). */
export function total(samples: readonly PromSample[], name: string): number {
  return samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
}

/** One metric's value for one label value, e.g. a market's oracle age. */
export function valueFor(
  samples: readonly PromSample[],
  name: string,
  label: string,
  labelValue: string,
): number | undefined {
  return samples.find((s) => s.name === name && s.labels[label] === labelValue)?.value;
}

/** Counts per value of one label, summed over the others (refusals by error name). */
export function byLabel(samples: readonly PromSample[], name: string, label: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const sample of samples) {
    if (sample.name !== name) continue;
    const key = sample.labels[label] ?? '';
    counts.set(key, (counts.get(key) ?? 0) + sample.value);
  }
  return counts;
}

/** The cumulative buckets of a histogram (`le` upper bounds, +Inf last), summed over labels. */
export function buckets(samples: readonly PromSample[], name: string): [number, number][] {
  const counts = byLabel(samples, `${name}_bucket`, 'le');
  return [...counts]
    .map(([le, count]): [number, number] => [le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count])
    .sort((a, b) => a[0] - b[0]);
}

/**
 * The upper bound of the bucket holding quantile q of the observations made between two scrapes:
 * what a histogram can say about a percentile. null when nothing was observed in between.
 */
export function quantileBetween(
  now: readonly [number, number][],
  before: readonly [number, number][],
  q: number,
): number | null {
  const delta = now.map(([le, count]): [number, number] => [
    le,
    count - (before.find(([b]) => b === le)?.[1] ?? 0),
  ]);
  const observed = delta[delta.length - 1]?.[1] ?? 0;
  if (observed <= 0) return null;
  const wanted = q * observed;
  for (const [le, count] of delta) if (count >= wanted) return le;
  return null;
}
