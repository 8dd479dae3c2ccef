import { useState } from 'react';

interface Props {
  readonly label: string;
  readonly question: string;
  readonly onConfirm: () => Promise<void>;
  readonly testId: string;
  readonly disabled?: boolean;
}

/** A two-step button: the first click asks, the second does it. Nothing irreversible on one click. */
export function ConfirmButton({ label, question, onConfirm, testId, disabled = false }: Props) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" data-testid={testId} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      {question}{' '}
      <button
        type="button"
        data-testid={`${testId}-confirm`}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        Yes
      </button>{' '}
      <button type="button" data-testid={`${testId}-cancel`} onClick={() => setAsking(false)}>
        No
      </button>
    </span>
  );
}
