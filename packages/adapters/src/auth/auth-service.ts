import {
  ACCESS_TOKEN_LENGTH_MAX,
  type AccountRole,
  type AccountSettings,
  type CreateAccountRequest,
  type CreateAccountResponse,
  type TokenRequest,
  type TokenResponse,
  VenueError,
} from '@venue/protocol';
import type { AccountFile } from '../accounts/account-file.ts';
import { type Account, AccountRegistry } from '../accounts/account-registry.ts';
import { generateCredentials } from '../accounts/credential-generator.ts';
import { hashCredential, verifyCredential } from '../accounts/credential-hash.ts';
import { VerificationGate } from '../accounts/verification-gate.ts';
import { AUTH_VERIFICATIONS_MAX } from '../config/limits.ts';
import { LoginAllowances } from './login-allowances.ts';
import { type TokenClaims, TokenService } from './token-service.ts';

/** Who made an authenticated request. */
export interface Principal {
  readonly account: Account;
  readonly claims: TokenClaims;
}

/** Which tokens a route accepts (RouteAuth without `none`). */
export type RequiredRole = 'bearer' | 'admin' | 'token';

/** spec 5 item 6 fixes this message for the token endpoint; every route uses it for suspension. */
const ACCOUNT_DISABLED_MESSAGE = 'account disabled';

/** The refusal of a suspended account, the same on every route, the token endpoint and the stream. */
export function accountDisabled(): VenueError {
  return new VenueError('ACCOUNT_DISABLED', ACCOUNT_DISABLED_MESSAGE);
}

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/i;

/**
 * The account layer of spec 5: logins (POST /auth/token), token checks on every request, revocation
 * and the operator's account changes. In `login`, an unknown api_key is refused before any hashing
 * and charges nothing; a known one is checked against the secret proven earlier in this boot, else
 * by scrypt inside the bounded gate; only a proven secret is charged to the account's allowance,
 * and suspension is reported only to a caller who proved the secret (see LoginAllowances).
 */
export class AuthService {
  readonly accounts = new AccountRegistry();
  readonly #tokens: TokenService;
  readonly #file: AccountFile | null;
  readonly #gate = new VerificationGate(AUTH_VERIFICATIONS_MAX);
  readonly #allowances = new LoginAllowances();
  #verificationsRun = 0;
  readonly #accountListeners: ((account: Account) => void)[] = [];

  /**
   * With `file`, every account change is stored durably before the request that made it is answered,
   * and `restore` puts the stored accounts back at boot. Tokens are not stored: they are signed with
   * a key that lives only as long as the boot, so every client logs in again after a restart.
   */
  constructor(options: { tokens?: TokenService; file?: AccountFile } = {}) {
    this.#tokens = options.tokens ?? new TokenService();
    this.#file = options.file ?? null;
  }

  /** Loads the stored accounts (a boot with a state directory, before the server listens). */
  async restore(): Promise<number> {
    if (this.#file === null) return 0;
    const stored = await this.#file.load();
    for (const account of stored) this.accounts.restore(account);
    return stored.length;
  }

  /** POST /admin/accounts (and the bootstrap admin): credentials are generated, returned once. */
  async createAccount(request: CreateAccountRequest): Promise<CreateAccountResponse> {
    const credentials = generateCredentials();
    const credential = await hashCredential(credentials.apiSecret, credentials.passphrase);
    this.accounts.add({
      accountId: credentials.accountId,
      apiKey: credentials.apiKey,
      role: request.role,
      ...(request.label === undefined ? {} : { label: request.label }),
      credential,
    });
    await this.#store();
    return {
      account_id: credentials.accountId,
      api_key: credentials.apiKey,
      api_secret: credentials.apiSecret,
      passphrase: credentials.passphrase,
      role: request.role,
      ...(request.label === undefined ? {} : { label: request.label }),
    };
  }

  /** POST /auth/token from `clientAddress` (the peer's IP address, which pays for failed checks). */
  async login(request: TokenRequest, nowMs: number, clientAddress: string): Promise<TokenResponse> {
    const account = this.accounts.byApiKey(request.api_key);
    if (account === undefined) throw badCredentials();
    const proven = this.#allowances.provenMatch(account, request.api_secret, request.passphrase);
    if (proven === false) throw badCredentials();
    if (proven === null) await this.#verify(account, request, clientAddress, nowMs);
    if (account.status === 'suspended') throw accountDisabled();
    this.#allowances.chargeIssuance(account.accountId, nowMs);
    const issued = await this.#tokens.issue(
      { accountId: account.accountId, role: account.role, generation: account.tokenGeneration },
      nowMs,
    );
    return {
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresIn,
      account_id: account.accountId,
    };
  }

  /** The Authorization header of a REST request (spec 5 item 4). */
  async authenticateHeader(header: string | undefined, required: RequiredRole, nowMs: number) {
    if (header === undefined || header === '') {
      throw new VenueError(
        'MISSING_TOKEN',
        'send `Authorization: Bearer <token>`; get a token at POST /auth/token',
      );
    }
    const match = header.length <= ACCESS_TOKEN_LENGTH_MAX + 16 ? BEARER.exec(header) : null;
    if (match === null || match[1] === undefined) {
      throw new VenueError(
        'INVALID_TOKEN',
        'the Authorization header must be `Bearer ` followed by a token from POST /auth/token',
      );
    }
    return this.authenticateToken(match[1], required, nowMs);
  }

  /** A bare token (the stream's login frame, spec 4.8), checked exactly as on REST. */
  async authenticateToken(token: string, required: RequiredRole, nowMs: number): Promise<Principal> {
    const claims = await this.#tokens.verify(token, nowMs);
    const principal = this.recheck(claims, nowMs);
    checkRole(claims.role, required);
    return principal;
  }

  /**
   * Re-validates claims accepted earlier, as a stream session does before every action and every
   * event it delivers: expiry, revocation, bulk invalidation and suspension all take effect at once.
   */
  recheck(claims: TokenClaims, nowMs: number): Principal {
    this.#tokens.checkLive(claims, nowMs);
    const account = this.accounts.byId(claims.accountId);
    // A token of this boot for an account we no longer know cannot happen; refuse it anyway.
    if (account === undefined) throw new VenueError('INVALID_TOKEN', 'the token names no known account');
    if (claims.generation !== account.tokenGeneration) {
      throw new VenueError(
        'TOKEN_REVOKED',
        "the account's tokens were invalidated by the operator; request a new one at POST /auth/token",
      );
    }
    if (account.status === 'suspended') throw accountDisabled();
    return { account, claims };
  }

  /** Called after an account's state changes, so long-lived sessions react at once. */
  onAccountChange(listener: (account: Account) => void): void {
    this.#accountListeners.push(listener);
  }

  disable(apiKey: string): Promise<Account> {
    return this.#changedDurably(this.accounts.disable(apiKey));
  }

  enable(apiKey: string): Promise<Account> {
    return this.#changedDurably(this.accounts.enable(apiKey));
  }

  revokeTokens(apiKey: string, nowMs: number): Promise<Account> {
    return this.#changedDurably(this.accounts.revokeTokens(apiKey, nowMs));
  }

  /** spec 2.9: PUT /account/settings replaces the whole object. */
  async updateSettings(account: Account, settings: AccountSettings): Promise<AccountSettings> {
    account.settings = { ...settings };
    await this.#store();
    return { ...account.settings };
  }

  #changed(account: Account): Account {
    for (const listener of this.#accountListeners) listener(account);
    return account;
  }

  /**
   * The change takes effect at once (a suspension must not wait for the disk); the reply waits until
   * it is stored, so an acknowledged change survives a crash.
   */
  async #changedDurably(account: Account): Promise<Account> {
    this.#changed(account);
    await this.#store();
    return account;
  }

  /** Stores every account again (a mirror of the accounts file was just attached). */
  async storeAll(): Promise<void> {
    await this.#store();
  }

  async #store(): Promise<void> {
    if (this.#file === null) return;
    try {
      await this.#file.save(() => this.accounts.all());
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new VenueError(
        'JOURNAL_UNAVAILABLE',
        `the account change is in effect but could not be stored durably (${detail}); an operator must check the state directory`,
      );
    }
  }

  /** spec 4.6: the token of this request is refused from now until it would have expired. */
  revoke(principal: Principal): number {
    this.#tokens.revoke(principal.claims);
    this.#changed(principal.account);
    return principal.claims.expiresAtMs;
  }

  /** Periodic housekeeping: expired denylist entries and full allowance buckets. */
  sweep(nowMs: number): void {
    this.#tokens.sweep(nowMs);
    this.#allowances.sweep(nowMs);
  }

  /** The bound on credential checks in flight (tests hold its slots to observe the refusal). */
  get verificationGate(): VerificationGate {
    return this.#gate;
  }

  /** scrypt runs since start: the CPU that logins cost (tests bound it, operators may watch it). */
  get verificationsRun(): number {
    return this.#verificationsRun;
  }

  /**
   * The scrypt check of a secret not proven yet in this boot. One failure of the client's address is
   * reserved first and kept only if the check ran and failed: a login refused at capacity (1402)
   * costs nothing, and a correct one is never charged as a failure.
   */
  async #verify(account: Account, request: TokenRequest, clientAddress: string, nowMs: number) {
    const failures = this.#allowances.reserveFailure(clientAddress, nowMs);
    let valid: boolean;
    try {
      valid = await this.#gate.run(() => {
        this.#verificationsRun += 1;
        return verifyCredential(account.credential, request.api_secret, request.passphrase);
      });
    } catch (error) {
      failures.refund(1, nowMs);
      throw error;
    }
    if (!valid) throw badCredentials();
    failures.refund(1, nowMs);
    this.#allowances.remember(account, request.api_secret, request.passphrase);
  }
}

function badCredentials(): VenueError {
  return new VenueError('BAD_CREDENTIALS', 'api_key, api_secret and passphrase do not match an account');
}

function checkRole(role: AccountRole, required: RequiredRole): void {
  if (required === 'admin' && role !== 'admin') {
    throw new VenueError('ADMIN_REQUIRED', 'this route needs an admin token; trading tokens cannot use it');
  }
  if (required === 'bearer' && role !== 'trader') {
    throw new VenueError(
      'TRADER_REQUIRED',
      'this route is for trading accounts; an admin token cannot use it',
    );
  }
}
