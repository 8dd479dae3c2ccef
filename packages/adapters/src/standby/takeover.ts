/**
 * Becoming the primary of a journal stream (docs/operations.md, "Primary and hot standby").
 *
 * A standby follows the stream (StreamFollower) and watches the lease. When the lease is gone (the
 * primary's renewals stopped and the key expired, or the primary released it on a clean stop), it
 * creates the key, which NATS grants to exactly one contender. It then stops following, reads the
 * stream to its end, and checks that its state matches the newest state hash the old primary
 * announced for a record it holds. The caller boots the venue on the result
 * (`StateDirectory.stream`): the boot's first append is the fence, refused if anyone appended after
 * the end the standby read.
 *
 * A primary starting cold does the same without the waiting: it takes the lease at once or refuses
 * to start while another instance holds it.
 */
import type { VenueCore } from '@venue/core';
import {
  type JetStreamLease,
  JetStreamLease as Lease,
  LeaseHeldError,
  type LeaseHolder,
  type LeaseTimings,
} from '../journal/jetstream/jetstream-lease.ts';
import type { JetStreamLink } from '../journal/jetstream/jetstream-link.ts';
import type { JournalPosition } from '../journal/journal.ts';
import { warmUpFront } from './front-warm-up.ts';
import type { AnnouncedState, StreamFollower as Follower } from './stream-follower.ts';
import { StreamFollower } from './stream-follower.ts';

export interface TakeoverOptions {
  readonly link: JetStreamLink;
  readonly sealingKey: Uint8Array;
  readonly config: ConstructorParameters<typeof VenueCore>[0];
  readonly companionNames: readonly string[];
  /** This instance's name in the lease (an operator reads it). */
  readonly holder: string;
  readonly timings: LeaseTimings;
  /** How often a standby looks at the lease. Default: a twentieth of the lease's time to live. */
  readonly pollMs?: number;
  /** Operating lines: following, lease seen free, taking over. */
  readonly log?: (line: string) => void;
  /** Called once if this instance later loses the lease (it must stop taking orders). */
  readonly onLeaseLost: (reason: string) => void;
  readonly signal?: AbortSignal;
  /** A standby is following the stream (recovered from it, reading on): it can take over from now. */
  readonly onFollowing?: (position: JournalPosition) => void;
  /** How long the takeover's read to the stream's end may go without a message (tests shorten it). */
  readonly stallMs?: number;
}

/** What a takeover hands to the boot. */
export interface Takeover {
  readonly follower: Follower;
  readonly lease: JetStreamLease;
  /** The stream's last record when the follower finished reading. */
  readonly position: JournalPosition;
  /** The newest announced state this instance checked its own against (null: none to check). */
  readonly verified: AnnouncedState | null;
  /** Sets what each renewal of the lease announces, once the venue runs. */
  announceWith(announce: () => AnnouncedState): void;
  /** When the lease was seen free (ms, Date.now), for the failover figures. */
  readonly leaseFreeAtMs: number;
}

/** Takes the lease now, or throws LeaseHeldError: the start of a primary. */
export async function startAsPrimary(options: TakeoverOptions): Promise<Takeover> {
  const follower = await StreamFollower.open(followerOptions(options), false);
  const hooks = leaseHooks(options);
  const lease = await Lease.acquire({ ...hooks.options, link: options.link });
  return finish(options, follower, lease, hooks, Date.now());
}

/** Follows the stream until the lease is free, then takes over. Rejects if `signal` aborts. */
export async function standBy(options: TakeoverOptions): Promise<Takeover> {
  const log = options.log ?? (() => {});
  const follower = await StreamFollower.open(followerOptions(options), true, (error) =>
    log(`standby: stopped following the journal: ${error.message}`),
  );
  log(`standby: following stream ${options.link.settings.stream} from record ${follower.position.seq}`);
  options.onFollowing?.(follower.position);
  // Building the HTTPS front the first time is most of a takeover's boot: do it once now, while
  // waiting, so the boot after the takeover runs warm code. A failure here costs only that speed.
  const warming = warmUpFront().catch((error: unknown) =>
    log(
      `standby: could not warm up the HTTPS front: ${error instanceof Error ? error.message : String(error)}`,
    ),
  );
  const hooks = leaseHooks(options);
  // A look is one key read; looking often cuts the time between the expiry and the takeover.
  const pollMs = options.pollMs ?? Math.max(20, Math.floor(options.timings.ttlMs / 20));
  try {
    for (;;) {
      if (options.signal?.aborted === true) throw new Error('the standby was stopped before it took over');
      if (follower.failure !== null) throw follower.failure;
      const holder = await Lease.holder(options.link, options.timings).catch(() => undefined);
      if (holder === null) {
        const freeAt = Date.now();
        try {
          const lease = await Lease.acquire({ ...hooks.options, link: options.link });
          log("standby: the primary's lease expired; this instance holds it now and takes over");
          const takeover = await finish(options, follower, lease, hooks, freeAt);
          await warming;
          return takeover;
        } catch (error) {
          if (!(error instanceof LeaseHeldError)) throw error;
          // Another standby was quicker: keep following.
        }
      } else if (holder !== undefined) announced(holder, follower);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } catch (error) {
    await warming;
    await follower.stop();
    throw error;
  }
}

function followerOptions(options: TakeoverOptions) {
  return {
    link: options.link,
    sealingKey: options.sealingKey,
    config: options.config,
    companionNames: options.companionNames,
    ...(options.stallMs === undefined ? {} : { stallMs: options.stallMs }),
  };
}

/**
 * What each lease renewal announces, with the state hash computed only when the journal moved since
 * the last announcement: a renewal every second would otherwise hash a large book every second for
 * nothing. Every change to the core is a journaled command, so one record number means one state.
 */
export function announceOnMove(lastSeq: () => bigint, stateHash: () => string): () => AnnouncedState {
  let last: AnnouncedState | null = null;
  return () => {
    const seq = lastSeq();
    if (last === null || last.seq !== seq) last = { seq, stateHash: stateHash() };
    return last;
  };
}

/** The lease's callbacks point at hooks the venue fills in once it runs. */
function leaseHooks(options: TakeoverOptions) {
  const hooks = {
    announce: null as (() => AnnouncedState) | null,
    options: {
      holder: options.holder,
      timings: options.timings,
      onLost: (reason: string) => options.onLeaseLost(reason),
      announce: () => {
        const state = hooks.announce?.();
        return state === undefined ? {} : { seq: state.seq.toString(), stateHash: state.stateHash };
      },
    },
  };
  return hooks;
}

async function finish(
  options: TakeoverOptions,
  follower: Follower,
  lease: JetStreamLease,
  hooks: ReturnType<typeof leaseHooks>,
  leaseFreeAtMs: number,
): Promise<Takeover> {
  try {
    const position = await follower.catchUp();
    options.log?.(
      `takeover: read the journal to record ${position.seq}${follower.verified === null ? '' : `; state matches the hash announced after record ${follower.verified.seq}`}`,
    );
    return {
      follower,
      lease,
      position,
      verified: follower.verified,
      leaseFreeAtMs,
      announceWith(announce) {
        hooks.announce = announce;
      },
    };
  } catch (error) {
    // Holding the lease while unable to serve would keep every other standby waiting: give it back.
    options.log?.(`takeover: gave the lease back: ${error instanceof Error ? error.message : String(error)}`);
    await lease.release();
    throw error;
  }
}

function announced(holder: LeaseHolder, follower: Follower): void {
  if (holder.seq === undefined || holder.stateHash === undefined || !/^\d{1,20}$/.test(holder.seq)) return;
  follower.announce({ seq: BigInt(holder.seq), stateHash: holder.stateHash });
}
