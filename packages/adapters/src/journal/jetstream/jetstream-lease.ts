/**
 * The primary's lease: one key (`primary`) in the key-value bucket `<stream>-lease`, whose entries
 * expire `ttlMs` after their last write (the bucket's max age). The primary creates the key
 * (refused if it exists: someone holds the lease) and renews it every `renewEveryMs` with an update
 * that names the revision it last wrote (refused if anyone else wrote in between). A primary that
 * cannot renew within `ttlMs` counts its lease as lost, and a standby may create the key once it
 * expired. NATS's own replication decides every one of these writes; nothing here votes.
 *
 * The lease says who should be primary; it is not what keeps two writers apart. That is the
 * journal's expected-last-sequence check on every append (jetstream-journal.ts): a primary whose
 * lease lapsed without its noticing still cannot append once the new primary has.
 */
import { randomBytes } from 'node:crypto';
import { JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { type JetStreamLink, openLeaseBucket } from './jetstream-link.ts';
import { isPassingBrokerError } from './passing-errors.ts';

export const LEASE_KEY = 'primary';

export interface LeaseTimings {
  /** How long a lease lives without renewal. */
  readonly ttlMs: number;
  /** How often the holder renews it; well under ttlMs (a third is usual). */
  readonly renewEveryMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { ttlMs: 3000, renewEveryMs: 1000 };

/** What the lease key holds: who holds it and since when. Not secret. */
export interface LeaseHolder {
  readonly holder: string;
  readonly sinceMs: number;
  /** The record the holder's state hash was taken after (decimal), when it announces one. */
  readonly seq?: string;
  /** The holder's `VenueCore.stateHash()` after record `seq`: what a standby checks its copy against. */
  readonly stateHash?: string;
  /**
   * Random per acquisition: lets the holder recognise its own write when the answer to it was lost
   * (a renewal that timed out but was stored), instead of taking it for someone else's.
   */
  readonly token?: string;
}

export class LeaseHeldError extends Error {
  constructor(readonly current: LeaseHolder | null) {
    super(
      `the journal's lease is held by ${current?.holder ?? 'another instance'}; this instance may not write the journal until it expires`,
    );
    this.name = 'LeaseHeldError';
  }
}

export interface LeaseOptions {
  readonly link: JetStreamLink;
  /** This instance's name, stored in the lease for operators. */
  readonly holder: string;
  readonly timings?: LeaseTimings;
  /** Called once when the lease is lost (refused renewal, or none possible within ttlMs). */
  readonly onLost: (reason: string) => void;
  readonly nowMs?: () => number;
  /** Extra fields each write of the lease carries: the primary's announced state (hot standby). */
  readonly announce?: () => Pick<LeaseHolder, 'seq' | 'stateHash'>;
}

export class JetStreamLease {
  readonly #kv: KV;
  readonly #options: LeaseOptions;
  readonly #timings: LeaseTimings;
  readonly #now: () => number;
  readonly #token: string;
  #revision: number;
  #renewedAtMs: number;
  #timer: NodeJS.Timeout | null = null;
  #lost = false;
  #renewing = false;

  private constructor(kv: KV, options: LeaseOptions, revision: number, now: () => number, token: string) {
    this.#kv = kv;
    this.#token = token;
    this.#options = options;
    this.#timings = options.timings ?? DEFAULT_LEASE_TIMINGS;
    this.#now = now;
    this.#revision = revision;
    this.#renewedAtMs = now();
    this.#timer = setInterval(() => void this.#renew(), this.#timings.renewEveryMs);
    this.#timer.unref();
  }

  /** Takes the lease if nobody holds it; throws LeaseHeldError when somebody does. */
  static async acquire(options: LeaseOptions): Promise<JetStreamLease> {
    const timings = options.timings ?? DEFAULT_LEASE_TIMINGS;
    const now = options.nowMs ?? Date.now;
    const kv = await openLeaseBucket(options.link, timings.ttlMs);
    const token = randomBytes(16).toString('hex');
    const value = encodeHolder({ holder: options.holder, sinceMs: now(), ...options.announce?.(), token });
    let revision: number;
    try {
      revision = await kv.create(LEASE_KEY, value);
    } catch {
      // Our own create may have been stored with its answer lost (a leader election): then it is ours.
      const current = await readEntry(kv);
      if (current === null || current.holder.token !== token)
        throw new LeaseHeldError(current?.holder ?? null);
      revision = current.revision;
    }
    return new JetStreamLease(kv, options, revision, now, token);
  }

  /** Who holds the lease now, or null when nobody does (expired or released). */
  static async holder(
    link: JetStreamLink,
    timings: LeaseTimings = DEFAULT_LEASE_TIMINGS,
  ): Promise<LeaseHolder | null> {
    return await readHolder(await openLeaseBucket(link, timings.ttlMs));
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** The revision of the last renewal (tests, and the standby's reports). */
  get revision(): number {
    return this.#revision;
  }

  /** Stops renewing and deletes the key if it is still ours, so a standby need not wait for it to expire. */
  async release(): Promise<void> {
    this.#stop();
    if (this.#lost) return;
    this.#lost = true;
    await this.#kv.delete(LEASE_KEY, { previousSeq: this.#revision }).catch(() => undefined);
  }

  async #renew(): Promise<void> {
    if (this.#lost || this.#renewing) return;
    this.#renewing = true;
    try {
      const value = encodeHolder({
        holder: this.#options.holder,
        sinceMs: this.#renewedAtMs,
        ...this.#options.announce?.(),
        token: this.#token,
      });
      const startedAtMs = this.#now();
      this.#revision = await this.#kv.update(LEASE_KEY, value, this.#revision, this.#timings.renewEveryMs);
      this.#renewedAtMs = startedAtMs;
    } catch (error) {
      if (error instanceof JetStreamApiError && (await this.#adoptOwnWrite())) return;
      const detail = error instanceof Error ? error.message : String(error);
      // The stream's refusal means someone else wrote the key: the lease is gone at once. Anything
      // else (a timeout, no responders during a leader election, a lost connection) only counts once
      // the lease would have expired anyway.
      if (error instanceof JetStreamApiError && !isPassingBrokerError(error))
        this.#lose(`renewal refused (${detail})`);
      else if (this.#now() - this.#renewedAtMs >= this.#timings.ttlMs)
        this.#lose(`not renewed for ${this.#timings.ttlMs} ms (${detail})`);
    } finally {
      this.#renewing = false;
    }
  }

  /**
   * After a refused renewal: true when the key holds our own latest write after all (an earlier
   * renewal timed out but was stored), whose revision the next renewal then names.
   */
  async #adoptOwnWrite(): Promise<boolean> {
    const current = await readEntry(this.#kv);
    if (current === null || current.holder.token !== this.#token) return false;
    this.#revision = current.revision;
    return true;
  }

  #lose(reason: string): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#stop();
    this.#options.onLost(reason);
  }

  #stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

function encodeHolder(holder: LeaseHolder): string {
  return JSON.stringify(holder);
}

async function readHolder(kv: KV): Promise<LeaseHolder | null> {
  return (await readEntry(kv))?.holder ?? null;
}

async function readEntry(kv: KV): Promise<{ holder: LeaseHolder; revision: number } | null> {
  const entry = await kv.get(LEASE_KEY).catch(() => null);
  if (entry === null || entry.operation !== 'PUT') return null;
  try {
    return { holder: entry.json<LeaseHolder>(), revision: entry.revision };
  } catch {
    return null;
  }
}
