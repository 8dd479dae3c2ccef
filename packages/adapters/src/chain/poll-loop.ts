/**
 * Calls `refresh` every `pollMs` until cleared, skipping a tick while the last refresh still runs,
 * so a slow chain never has two polls of one reader in flight. The timer does not keep the process
 * alive. Used by the readers that follow a chain over JSON-RPC (RemoteSettlementChain,
 * RemoteTreeFeed).
 */
export function pollEvery(pollMs: number, refresh: () => Promise<unknown>): NodeJS.Timeout {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void refresh().finally(() => {
      busy = false;
    });
  }, pollMs);
  timer.unref();
  return timer;
}
