import { useEffect } from 'react';
import { AccountsTable } from './AccountsTable.tsx';
import type { Sample } from './history.ts';
import { MarketsTable } from './MarketsTable.tsx';
import { RefusalsTable } from './RefusalsTable.tsx';
import type { Snapshot } from './snapshot.ts';
import { TimeChart } from './TimeChart.tsx';
import { VenuePanel } from './VenuePanel.tsx';

interface Props {
  readonly snapshot: Snapshot;
  readonly history: readonly Sample[];
  readonly token: string;
  readonly refresh: () => void;
  readonly report: (error: unknown) => void;
  readonly notice: string | null;
  readonly onLogout: () => void;
}

export function Dashboard({ snapshot, history, token, refresh, report, notice, onLogout }: Props) {
  const times = history.map((s) => s.atS);
  // The first paint with the venue's data, for the load measurement.
  useEffect(() => {
    performance.mark('console-first-render');
  }, []);
  return (
    <main data-testid="dashboard">
      <header>
        <h1>Venue operator console</h1>
        <span className="updated" data-testid="updated">
          updated {new Date(snapshot.takenAtMs).toISOString().slice(11, 23)}
        </span>
        <button type="button" onClick={onLogout} data-testid="logout">
          Sign out
        </button>
      </header>
      {notice === null ? null : (
        <p className="error" role="alert" data-testid="notice">
          {notice}
        </p>
      )}
      <MarketsTable
        instruments={snapshot.instruments}
        settlement={snapshot.settlement}
        metrics={snapshot.metrics}
      />
      <section className="charts">
        <h2>Last minutes</h2>
        <TimeChart
          id="settlement-latency"
          title="Settlement latency, match to final (worst market)"
          unit="slots"
          times={times}
          series={[
            { label: 'p50', color: '#2a7', values: history.map((s) => s.latencyP50Slots) },
            { label: 'p99', color: '#c52', values: history.map((s) => s.latencyP99Slots) },
          ]}
        />
        <TimeChart
          id="settlement-batches"
          title="Settlement batches per second"
          unit="batches/s"
          times={times}
          series={[
            { label: 'settled', color: '#27c', values: history.map((s) => s.batchesSettledPerS) },
            { label: 'failed', color: '#c22', values: history.map((s) => s.batchesFailedPerS) },
          ]}
        />
        <TimeChart
          id="settlement-queue"
          title="Settlement queue (all markets)"
          unit="matches"
          times={times}
          series={[{ label: 'queued', color: '#a6c', values: history.map((s) => s.queueDepth) }]}
        />
        <TimeChart
          id="intake"
          title="Trading requests per second"
          unit="requests/s"
          times={times}
          series={[
            { label: 'accepted', color: '#27c', values: history.map((s) => s.intakeAcceptedPerS) },
            { label: 'refused', color: '#c22', values: history.map((s) => s.intakeRefusedPerS) },
          ]}
        />
        <TimeChart
          id="journal"
          title="Journal append to durable"
          unit="ms"
          times={times}
          series={[
            { label: 'mean', color: '#2a7', values: history.map((s) => s.journalMeanMs) },
            { label: 'p99 (bucket)', color: '#c52', values: history.map((s) => s.journalP99Ms) },
          ]}
        />
        <RefusalsTable metrics={snapshot.metrics} />
      </section>
      <VenuePanel snapshot={snapshot} token={token} refresh={refresh} report={report} />
      <AccountsTable accounts={snapshot.accounts} token={token} refresh={refresh} report={report} />
    </main>
  );
}
