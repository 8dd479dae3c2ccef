import { type FormEvent, useEffect, useState } from 'react';
import type { Credentials } from './api.ts';

interface Props {
  readonly onSubmit: (credentials: Credentials) => Promise<void>;
  readonly message: string | null;
}

export function LoginForm({ onSubmit, message }: Props) {
  const [busy, setBusy] = useState(false);
  // Marks for the load measurement (console-load test and bench): the form is the page's first paint.
  useEffect(() => {
    performance.mark('console-login-render');
  }, []);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    performance.mark('console-sign-in');
    const form = new FormData(event.currentTarget);
    setBusy(true);
    try {
      await onSubmit({
        api_key: String(form.get('api_key') ?? ''),
        api_secret: String(form.get('api_secret') ?? ''),
        passphrase: String(form.get('passphrase') ?? ''),
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="login" data-testid="login" onSubmit={submit}>
      <h1>Venue operator console</h1>
      <p>Sign in with an admin account's API credentials.</p>
      <label>
        API key <input name="api_key" autoComplete="username" required />
      </label>
      <label>
        API secret <input name="api_secret" type="password" autoComplete="current-password" required />
      </label>
      <label>
        Passphrase <input name="passphrase" type="password" autoComplete="off" required />
      </label>
      <button type="submit" disabled={busy} data-testid="login-submit">
        Sign in
      </button>
      {message === null ? null : (
        <p className="error" role="alert" data-testid="login-error">
          {message}
        </p>
      )}
    </form>
  );
}
