import * as api from './api.ts';
import { ConfirmButton } from './ConfirmButton.tsx';
import type { Snapshot } from './snapshot.ts';

const GOVERNANCE_REASONS = ['governance_mismatch', 'signer_mismatch'];

interface Props {
  readonly snapshot: Snapshot;
  readonly token: string;
  readonly refresh: () => void;
  readonly report: (error: unknown) => void;
}

/** The venue as a whole: boot, trading gate, attestation, governance and the planned-stop drain. */
export function VenuePanel({ snapshot, token, refresh, report }: Props) {
  const { status, info, drain, attestation } = snapshot;
  const governance = status.pause_reasons.filter((reason) => GOVERNANCE_REASONS.includes(reason));
  const act = (call: () => Promise<unknown>) => async () => {
    try {
      await call();
    } catch (error) {
      report(error);
    }
    refresh();
  };
  return (
    <section>
      <h2>Venue</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="venue-status" className={`state-${status.status}`}>
          {status.status}
        </dd>
        <dt>Pause reasons</dt>
        <dd data-testid="venue-reasons">{status.pause_reasons.join(', ') || 'none'}</dd>
        <dt>Boot</dt>
        <dd>
          session {info.session_id.slice(0, 16)}… since {new Date(info.boot_time_ms).toISOString()}
        </dd>
        <dt>Slot</dt>
        <dd>{status.slot}</dd>
        <dt>Proofs / settlement</dt>
        <dd>
          {info.proof_mode} / {info.settlement_enabled ? 'settling on chain' : 'no settlement'}
        </dd>
        <dt>Attestation</dt>
        <dd data-testid="venue-attestation">
          {attestation === null
            ? 'none attached'
            : `${attestation.report.platform}, measurement ${attestation.report.measurement.slice(0, 16)}…`}
        </dd>
        <dt>Governance</dt>
        <dd data-testid="venue-governance">
          {governance.length === 0 ? 'in agreement' : governance.join(', ')}
        </dd>
        <dt>Drain</dt>
        <dd data-testid="drain-state">
          {drain.state}
          {drain.trading_closed ? ' (new trading closed)' : ''}, {drain.journal_records_in_flight} journal
          records in flight
        </dd>
      </dl>
      {drain.state === 'open' ? (
        <ConfirmButton
          testId="drain-begin"
          label="Begin drain"
          question="Close new trading on every market?"
          onConfirm={act(() => api.beginDrain(token))}
        />
      ) : (
        <ConfirmButton
          testId="drain-end"
          label="End drain"
          question="Reopen trading?"
          onConfirm={act(() => api.endDrain(token))}
        />
      )}
    </section>
  );
}
