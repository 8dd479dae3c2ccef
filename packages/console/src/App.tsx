import { useCallback, useEffect, useRef, useState } from 'react';
import * as api from './api.ts';
import { Dashboard } from './Dashboard.tsx';
import { appendSample, type Sample, sampleOf } from './history.ts';
import { LoginForm } from './LoginForm.tsx';
import { POLL_INTERVAL_MS, type Snapshot, takeSnapshot } from './snapshot.ts';

function messageOf(error: unknown): string {
  if (error instanceof api.VenueCallError) return `${error.message} (code ${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** A session ends when the venue stops honouring the token (expired, revoked, account disabled). */
function endsSession(error: unknown): boolean {
  return error instanceof api.VenueCallError && (error.status === 401 || error.status === 403);
}

export function App() {
  const [token, setToken] = useState<string | null>(null);
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [history, setHistory] = useState<Sample[]>([]);
  const [loginMessage, setLoginMessage] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const previous = useRef<Snapshot | null>(null);
  const [tick, setTick] = useState(0);

  const accept = useCallback((next: Snapshot) => {
    // Taken now, not inside the updater: React runs updaters later, after the ref has moved on.
    const sample = sampleOf(next, previous.current);
    setHistory((past) => appendSample(past, sample));
    previous.current = next;
    setSnapshot(next);
  }, []);

  const signOut = useCallback((message: string | null) => {
    setToken(null);
    setSnapshot(null);
    setHistory([]);
    previous.current = null;
    setLoginMessage(message);
  }, []);

  const signIn = async (credentials: api.Credentials) => {
    setLoginMessage(null);
    let issued: string;
    try {
      issued = (await api.login(credentials)).access_token;
    } catch (error) {
      setLoginMessage(`Sign-in refused: ${messageOf(error)}`);
      return;
    }
    try {
      accept(await takeSnapshot(issued));
      setToken(issued);
    } catch (error) {
      // A trader's token is valid but not for admin routes: give it back rather than keep it.
      await api.logout(issued).catch(() => undefined);
      setLoginMessage(
        error instanceof api.VenueCallError && error.code === api.ADMIN_REQUIRED
          ? 'Refused: this is not an admin account. The console needs admin credentials.'
          : `Refused: ${messageOf(error)}`,
      );
    }
  };

  // Polls after each answer rather than on a fixed interval, so a slow venue never piles requests up.
  useEffect(() => {
    if (token === null) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await takeSnapshot(token);
        if (stopped) return;
        accept(next);
        setNotice(null);
      } catch (error) {
        if (stopped) return;
        if (endsSession(error)) {
          signOut(`Signed out: ${messageOf(error)}`);
          return;
        }
        setNotice(`The venue did not answer: ${messageOf(error)}`);
      }
      if (!stopped) timer = setTimeout(poll, POLL_INTERVAL_MS);
    };
    timer = setTimeout(poll, tick === 0 ? POLL_INTERVAL_MS : 0);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [token, tick, accept, signOut]);

  if (token === null || snapshot === null) return <LoginForm onSubmit={signIn} message={loginMessage} />;
  return (
    <Dashboard
      snapshot={snapshot}
      history={history}
      token={token}
      refresh={() => setTick((t) => t + 1)}
      report={(error) => setNotice(`Refused: ${messageOf(error)}`)}
      notice={notice}
      onLogout={() => {
        api.logout(token).catch(() => undefined);
        signOut(null);
      }}
    />
  );
}
