/**
 * Where a production-path place's CPU goes (decisions D101), shared by `bench rest` and
 * `bench stream`: per place (with its cancel), the venue's main thread, its proof workers, its
 * other workers (signature checks, snapshot replica), the rest of its process (V8's collector
 * helpers, libuv's pool: fdatasync) and the load generator, against one proof's CPU on one thread.
 */
import { type Baseline, type Figure, figure, type Sampled, summarise } from './harness.ts';
import { cpuByGroup, threadCpuSeconds } from './thread-cpu.ts';

/** The production venue's worker threads, by part (startProductionVenue). */
export interface VenueThreads {
  readonly proofWorkers: ReadonlySet<number>;
  readonly venueWorkers: ReadonlySet<number>;
}

/** CPU per place+cancel by part of the machine, and all of it, µs. */
export interface CpuPerPlace {
  readonly main: number;
  readonly proofWorkers: number;
  readonly venueWorkers: number;
  readonly otherThreads: number;
  readonly loadGenerator: number;
  readonly total: number;
}

const PARTS = ['main', 'proofWorkers', 'venueWorkers', 'otherThreads', 'loadGenerator'] as const;

const FIGURE_NAMES: Record<(typeof PARTS)[number], string> = {
  main: 'main_thread',
  proofWorkers: 'proof_workers',
  venueWorkers: 'signature_and_replica_workers',
  otherThreads: 'gc_and_io_threads',
  loadGenerator: 'load_generator',
};

/** Starts counting this process's CPU by thread; `stop` divides it by the places of the run. */
export function countPlaceCpu(threads: VenueThreads): {
  stop(places: number, generatorCpuSeconds: number): CpuPerPlace;
} {
  const before = threadCpuSeconds();
  return {
    stop(places, generatorCpuSeconds) {
      const seconds = cpuByGroup(before, threadCpuSeconds(), threads);
      const perPlace = (s: number): number => (places === 0 ? 0 : (s * 1e6) / places);
      const split = {
        main: perPlace(seconds.main),
        proofWorkers: perPlace(seconds.proofWorkers),
        venueWorkers: perPlace(seconds.venueWorkers),
        otherThreads: perPlace(seconds.other),
        loadGenerator: perPlace(generatorCpuSeconds),
      };
      return { ...split, total: PARTS.reduce((sum, part) => sum + split[part], 0) };
    },
  };
}

/** The baseline of the total: one proof's CPU on one thread in full batches, over the run's samples. */
export function proofCpuBaseline(samplesUs: readonly number[]): Baseline {
  return {
    name: "one thread's batched Groth16 verification, CPU per proof, same run",
    value: Math.round(summarise(samplesUs).median),
  };
}

/**
 * The total has one proof's CPU as its baseline: their ratio is the most of "cores verifying alone"
 * the path could reach with every core busy all the time, whatever the cores' count.
 */
export function placeCpuFigures(
  bench: string,
  path: string,
  splits: readonly CpuPerPlace[],
  proofCpuUs: Baseline,
): Figure[] {
  if (splits.length === 0) return [];
  const of = (part: keyof CpuPerPlace): Sampled => summarise(splits.map((s) => s[part]));
  return [
    figure(bench, `cpu_us_per_place_cancel_${path}`, 'us', 'lower', of('total'), proofCpuUs),
    ...PARTS.map((part) =>
      figure(bench, `cpu_us_per_place_cancel_${FIGURE_NAMES[part]}_${path}`, 'us', 'lower', of(part), null),
    ),
  ];
}

export function describePlaceCpu(split: CpuPerPlace, proofCpuUs: number): string {
  const us = (v: number): string => `${Math.round(v)}`;
  return (
    `CPU per place+cancel ${us(split.total)} us: main thread ${us(split.main)}, proof workers ${us(split.proofWorkers)}, ` +
    `signature and replica workers ${us(split.venueWorkers)}, GC and I/O threads ${us(split.otherThreads)}, ` +
    `load generator ${us(split.loadGenerator)}; one proof alone on one thread ${us(proofCpuUs)} us ` +
    `(ceiling with every core busy: ${(proofCpuUs / split.total).toFixed(2)} of cores verifying alone)`
  );
}
