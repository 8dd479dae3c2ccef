import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly values: readonly (number | null)[];
}

interface Props {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly times: readonly number[];
  readonly series: readonly Series[];
}

/**
 * A line chart of the last minutes, drawn by uPlot on a canvas. The plot is created once and fed
 * new data on every poll; recreating it each time would flicker and cost a layout per poll.
 */
export function TimeChart({ id, title, unit, times, series }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // The plot is rebuilt only when this changes; series arrays are new objects on every poll.
  const shape = JSON.stringify(series.map((s) => [s.label, s.color]));

  useEffect(() => {
    if (host.current === null) return;
    const lines = JSON.parse(shape) as [string, string][];
    const options: uPlot.Options = {
      width: 420,
      height: 160,
      legend: { show: true },
      // From zero, and at least to 1: an idle venue's flat zero line sits at the bottom, not mid-chart.
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [{}, { label: unit, size: 60 }],
      series: [{}, ...lines.map(([label, stroke]) => ({ label, stroke, width: 2, spanGaps: false }))],
    };
    plot.current = new uPlot(options, [[], ...lines.map(() => [])], host.current);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, unit]);

  useEffect(() => {
    plot.current?.setData([[...times], ...series.map((s) => [...s.values])] as uPlot.AlignedData);
  });

  const points = times.length;
  const latest = series.map((s) => `${s.label}=${s.values[points - 1] ?? 'none'}`).join(' ');
  // The highest value of each line in the window, for a reader (or a test) that missed the moment.
  const peak = series
    .map((s) => `${s.label}=${Math.max(0, ...s.values.filter((v): v is number => v !== null))}`)
    .join(' ');
  return (
    <figure
      className="chart"
      data-testid={`chart-${id}`}
      data-points={points}
      data-latest={latest}
      data-peak={peak}
    >
      <figcaption>{title}</figcaption>
      <div ref={host} />
    </figure>
  );
}
