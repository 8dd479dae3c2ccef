// The venue's REST routes the console reads and calls, all on the origin that served the page. The
// admin token lives in this module's caller's memory only: never in storage, never in a URL.

export interface ErrorEnvelope {
  readonly code: number;
  readonly message: string;
}

export class VenueCallError extends Error {
  readonly status: number;
  readonly code: number;
  constructor(status: number, envelope: ErrorEnvelope) {
    super(envelope.message);
    this.status = status;
    this.code = envelope.code;
  }
}

/** ADMIN_REQUIRED: a valid token of a trading account on an admin route. */
export const ADMIN_REQUIRED = 1108;

async function call<T>(method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const text = await callText(method, path, token, body);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

async function callText(method: string, path: string, token: string | null, body?: unknown): Promise<string> {
  const headers: Record<string, string> = {};
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    cache: 'no-store',
  });
  const text = await response.text();
  if (!response.ok) {
    let envelope: ErrorEnvelope = { code: 0, message: `HTTP ${response.status}` };
    try {
      envelope = JSON.parse(text) as ErrorEnvelope;
    } catch {
      // Not the venue's envelope (a proxy page): keep the status line.
    }
    throw new VenueCallError(response.status, envelope);
  }
  return text;
}

export interface Credentials {
  readonly api_key: string;
  readonly api_secret: string;
  readonly passphrase: string;
}

export interface Instrument {
  readonly symbol: string;
  readonly market_id: string;
  readonly trading_enabled: boolean;
  readonly paused_reason?: string;
  readonly batch_seq: number;
  readonly oracle_max_age_slots: number;
}

export interface MarketSettlement {
  readonly symbol: string;
  readonly queue_depth: number;
  readonly batches_submitted: number;
  readonly batches_confirmed: number;
  readonly batches_failed: number;
  readonly match_to_final_slots_p50?: number;
  readonly match_to_final_slots_p99?: number;
}

export interface SystemStatus {
  readonly status: 'trading' | 'degraded' | 'paused';
  readonly trading_enabled: boolean;
  readonly pause_reasons: readonly string[];
  readonly markets_paused: number;
  readonly slot: number;
  readonly session_id: string;
  readonly server_time_ms: number;
}

export interface Info {
  readonly session_id: string;
  readonly boot_time_ms: number;
  readonly settlement_enabled: boolean;
  readonly proof_mode: string;
}

export interface Drain {
  readonly state: 'open' | 'draining' | 'safe_to_stop';
  readonly trading_closed: boolean;
  readonly journal_records_in_flight: number;
  readonly since_ms?: number;
}

export interface AccountEntry {
  readonly account_id: string;
  readonly api_key: string;
  readonly role: 'trader' | 'admin';
  readonly status: 'active' | 'suspended';
  readonly label?: string;
  readonly tokens_invalid_before_ms?: number;
}

export interface Attestation {
  readonly report: {
    readonly platform: string;
    readonly measurement: string;
    readonly settlement_signer: string;
    readonly issued_at_ms: number;
  };
}

export const login = (credentials: Credentials) =>
  call<{ access_token: string; expires_in: number }>('POST', '/auth/token', null, credentials);
export const logout = (token: string) => call<unknown>('DELETE', '/auth/token', token);
export const systemStatus = () => call<SystemStatus>('GET', '/system/status', null);
export const info = () => call<Info>('GET', '/info', null);
export const instruments = () => call<{ instruments: Instrument[] }>('GET', '/instruments', null);
export const settlementMetrics = (token: string) =>
  call<{ slot: number; markets: MarketSettlement[] }>('GET', '/admin/metrics/settlement', token);
/** The Prometheus text of GET /admin/metrics/prometheus (admin token, like every admin read). */
export const prometheus = (token: string) => callText('GET', '/admin/metrics/prometheus', token);
export const drain = (token: string) => call<Drain>('GET', '/admin/drain', token);
export const beginDrain = (token: string) => call<Drain>('POST', '/admin/drain', token);
export const endDrain = (token: string) => call<Drain>('DELETE', '/admin/drain', token);
export const accounts = (token: string) =>
  call<{ accounts: AccountEntry[] }>('GET', '/admin/accounts', token);
export const accountAction = (
  token: string,
  apiKey: string,
  action: 'disable' | 'enable' | 'revoke-tokens',
) => call<AccountEntry>('POST', `/admin/accounts/${encodeURIComponent(apiKey)}/${action}`, token);

/** null: this venue has no attestation provider (503 ATTESTATION_UNAVAILABLE). */
export async function attestation(): Promise<Attestation | null> {
  try {
    return await call<Attestation>('GET', '/attestation', null);
  } catch (error) {
    if (error instanceof VenueCallError && error.status === 503) return null;
    throw error;
  }
}
