import {
  type AccountRole,
  type AccountSettings,
  type AccountStatus,
  type AccountStatusResponse,
  assert,
  VenueError,
} from '@venue/protocol';
import { ACCOUNTS_MAX } from '../config/limits.ts';
import type { CredentialHash } from './credential-hash.ts';

/**
 * The API accounts of the venue (spec 3.3, 4.7): who may log in, with which role, and whether they
 * are suspended. It holds no balances and no keys of any kind; the login secret is held only as a
 * scrypt hash. Every rule of spec 3.3 is enforced here, in one place.
 */
export interface Account {
  readonly accountId: string;
  readonly apiKey: string;
  readonly role: AccountRole;
  readonly label?: string;
  readonly credential: CredentialHash;
  status: AccountStatus;
  /**
   * Bumped by revoke-tokens. A token carries the generation it was issued under and is refused once
   * the account has moved on: exact, with no dependence on clock resolution, so a login right after
   * a bulk invalidation works at once (spec 5 item 6 allows a one-second retry; we need none).
   */
  tokenGeneration: number;
  /** When tokens were last bulk-invalidated (reported to the operator). */
  tokensInvalidBeforeMs?: number;
  settings: AccountSettings;
}

/** The stored fields of one account (everything but derived indexes); the accounts file keeps these. */
export interface StoredAccount {
  readonly accountId: string;
  readonly apiKey: string;
  readonly role: AccountRole;
  readonly label?: string;
  readonly credential: CredentialHash;
  readonly status: AccountStatus;
  readonly tokenGeneration: number;
  readonly tokensInvalidBeforeMs?: number;
  readonly settings: AccountSettings;
}

export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = { cancel_on_disconnect_default: false };

export class AccountRegistry {
  readonly #byApiKey = new Map<string, Account>();
  readonly #byId = new Map<string, Account>();

  add(entry: {
    accountId: string;
    apiKey: string;
    role: AccountRole;
    label?: string;
    credential: CredentialHash;
  }): Account {
    if (this.#byApiKey.has(entry.apiKey) || this.#byId.has(entry.accountId)) {
      throw new VenueError('ACCOUNT_EXISTS', 'an account with this api_key or account id already exists');
    }
    assert(this.#byId.size < ACCOUNTS_MAX, `the venue holds at most ${ACCOUNTS_MAX} accounts`);
    const account: Account = {
      ...entry,
      status: 'active',
      tokenGeneration: 0,
      settings: { ...DEFAULT_ACCOUNT_SETTINGS },
    };
    this.#byApiKey.set(account.apiKey, account);
    this.#byId.set(account.accountId, account);
    return account;
  }

  /** Puts back an account as it was stored (at boot, before any request). */
  restore(stored: StoredAccount): Account {
    const account = this.add({
      accountId: stored.accountId,
      apiKey: stored.apiKey,
      role: stored.role,
      ...(stored.label === undefined ? {} : { label: stored.label }),
      credential: stored.credential,
    });
    account.status = stored.status;
    account.tokenGeneration = stored.tokenGeneration;
    if (stored.tokensInvalidBeforeMs !== undefined)
      account.tokensInvalidBeforeMs = stored.tokensInvalidBeforeMs;
    account.settings = { ...stored.settings };
    return account;
  }

  /** Every account, in creation order. */
  all(): Account[] {
    return [...this.#byId.values()];
  }

  byApiKey(apiKey: string): Account | undefined {
    return this.#byApiKey.get(apiKey);
  }

  byId(accountId: string): Account | undefined {
    return this.#byId.get(accountId);
  }

  /** The admin routes address accounts by api_key (spec 4.7). */
  require(apiKey: string): Account {
    const account = this.#byApiKey.get(apiKey);
    if (account === undefined) {
      throw new VenueError('ACCOUNT_NOT_FOUND', 'no account has this api_key; check the key you copied');
    }
    return account;
  }

  /** spec 3.3 active -> suspended. spec 4.7: the last enabled admin cannot be disabled. */
  disable(apiKey: string): Account {
    const account = this.require(apiKey);
    if (account.role === 'admin' && account.status === 'active' && this.#enabledAdmins() === 1) {
      throw new VenueError(
        'LAST_ENABLED_ADMIN',
        'this is the last enabled admin account; create or enable another admin first',
      );
    }
    account.status = 'suspended';
    return account;
  }

  /** spec 3.3 suspended -> active. Enabling an active account changes nothing. */
  enable(apiKey: string): Account {
    const account = this.require(apiKey);
    account.status = 'active';
    return account;
  }

  /** spec 3.3 active -> active: every token issued so far is refused from now on (401). */
  revokeTokens(apiKey: string, nowMs: number): Account {
    const account = this.require(apiKey);
    account.tokenGeneration += 1;
    account.tokensInvalidBeforeMs = nowMs;
    return account;
  }

  #enabledAdmins(): number {
    let count = 0;
    for (const account of this.#byId.values()) {
      if (account.role === 'admin' && account.status === 'active') count += 1;
    }
    return count;
  }
}

export function accountStatusOf(account: Account): AccountStatusResponse {
  return {
    account_id: account.accountId,
    api_key: account.apiKey,
    role: account.role,
    status: account.status,
    ...(account.tokensInvalidBeforeMs === undefined
      ? {}
      : { tokens_invalid_before_ms: account.tokensInvalidBeforeMs }),
  };
}
