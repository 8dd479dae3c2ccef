import type { TokenResponse } from '@venue/protocol';

/**
 * The bearer token of one account (spec 4.2, 5): obtained with the account's credentials, reused
 * until shortly before it expires, then replaced. Expiry is exact on the venue with no grace (spec 5
 * item 5), so the SDK renews a margin ahead of it; a token the venue nevertheless refuses (revoked,
 * or the venue restarted) is dropped and replaced once.
 */

/** A clock in Unix milliseconds. Injectable so tests can move time; defaults to Date.now. */
export interface Clock {
  nowMs(): number;
}

export const SYSTEM_CLOCK: Clock = { nowMs: () => Date.now() };

export interface HeldToken {
  readonly token: string;
  readonly accountId: string;
  /** Local clock time of the exact expiry, counted from when the login was sent (never late). */
  readonly expiresAtMs: number;
  /** Local clock time from which the token is renewed before use. */
  readonly renewAtMs: number;
}

export class TokenKeeper {
  readonly #issue: () => Promise<TokenResponse>;
  readonly #clock: Clock;
  readonly #marginMs: number;
  #held: HeldToken | null = null;
  #inFlight: Promise<HeldToken> | null = null;

  /** `initial`: a token kept from an earlier process (a CLI token cache), used until its renewal time. */
  constructor(
    issue: () => Promise<TokenResponse>,
    clock: Clock,
    marginMs: number,
    initial: HeldToken | null = null,
  ) {
    if (!(marginMs >= 0)) throw new RangeError(`tokenRefreshMarginMs must be >= 0, received ${marginMs}`);
    this.#issue = issue;
    this.#clock = clock;
    this.#marginMs = marginMs;
    this.#held = initial;
  }

  get held(): HeldToken | null {
    return this.#held;
  }

  /** A token valid for at least the margin (or half its lifetime, if shorter), renewing if needed. */
  async current(): Promise<HeldToken> {
    const held = this.#held;
    if (held !== null && this.#clock.nowMs() < held.renewAtMs) return held;
    return this.renew();
  }

  /**
   * A new token now. Concurrent callers share one login (the venue meters logins per account,
   * docs/api.md: 10 then one every 6 s), and a caller that saw `stale` refused gets a new one even
   * when another caller already renewed it meanwhile.
   */
  renew(stale?: string): Promise<HeldToken> {
    const held = this.#held;
    if (stale !== undefined && held !== null && held.token !== stale) return Promise.resolve(held);
    if (this.#inFlight === null) {
      this.#inFlight = this.#login().finally(() => {
        this.#inFlight = null;
      });
    }
    return this.#inFlight;
  }

  /** Forgets the token (after revocation or logout). */
  clear(): void {
    this.#held = null;
  }

  async #login(): Promise<HeldToken> {
    const sentAtMs = this.#clock.nowMs();
    const response = await this.#issue();
    const lifetimeMs = response.expires_in * 1000;
    // A margin larger than half the lifetime would renew on every call; cap it for short tokens.
    const margin = Math.min(this.#marginMs, lifetimeMs / 2);
    const expiresAtMs = sentAtMs + lifetimeMs;
    const held: HeldToken = {
      token: response.access_token,
      accountId: response.account_id,
      expiresAtMs,
      renewAtMs: expiresAtMs - margin,
    };
    this.#held = held;
    return held;
  }
}
