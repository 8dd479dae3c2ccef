import { byLabel, type PromSample } from './prometheus.ts';

/** Refused trading requests since boot by error name: which rule traders run into most. */
export function RefusalsTable({ metrics }: { readonly metrics: readonly PromSample[] }) {
  const counts = [...byLabel(metrics, 'venue_intake_refused_total', 'error')]
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  return (
    <figure className="chart" data-testid="refusals">
      <figcaption>Refusals since boot, by error</figcaption>
      {counts.length === 0 ? (
        <p>none</p>
      ) : (
        <table>
          <tbody>
            {counts.map(([error, count]) => (
              <tr key={error}>
                <td>{error}</td>
                <td>{count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
