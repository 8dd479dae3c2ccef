/**
 * A copy of the venue's state kept by reading the journal stream (docs/operations.md, "Hot
 * standby"). It restores the newest snapshot in the object store, applies every record after it,
 * then keeps reading as the primary appends, a few milliseconds behind: its own core and its own
 * state companions (built by name from the replica's registry), fed exactly what recovery would
 * feed them, with the same checks (next number, hash chain, seal).
 *
 * The primary announces `{seq, stateHash}` in its lease; the follower compares its own state hash
 * when it applies that record, so a standby that diverged says so long before it would take over.
 */
import { type CoreConfig, VenueCore } from '@venue/core';
import type { JetStreamLink } from '../journal/jetstream/jetstream-link.ts';
import {
  readJournalStream,
  readJournalStreamTo,
  recoverFromJetStream,
  STREAM_READ_STALL_MS,
} from '../journal/jetstream/jetstream-recovery.ts';
import type { JournalPosition } from '../journal/journal.ts';
import type { Annotations, JournalRecord } from '../journal/journal-record.ts';
import { recordHash, ZERO_HASH } from '../journal/record-format.ts';
import { JournalRecoveryError } from '../journal/recovery.ts';
import { createCompanion } from '../replica/companion-registry.ts';
import { loadCompanions, parseSnapshot, type StateCompanion } from '../venue/state-companion.ts';

export interface StreamFollowerOptions {
  readonly link: JetStreamLink;
  readonly sealingKey: Uint8Array;
  readonly config: CoreConfig;
  /** Names of the state companions to keep (replica/companion-registry.ts). */
  readonly companionNames: readonly string[];
  /** How long a read to the stream's end may go without a message (STREAM_READ_STALL_MS). */
  readonly stallMs?: number;
}

/** A state hash the primary announced for the state after record `seq`. */
export interface AnnouncedState {
  readonly seq: bigint;
  readonly stateHash: string;
}

export class StateDivergedError extends Error {
  constructor(seq: bigint, announced: string, own: string) {
    super(
      `after record ${seq} the primary announced state hash ${announced} but this standby holds ${own}: the standby diverged and must not take over; restart it so it rebuilds from the stream`,
    );
    this.name = 'StateDivergedError';
  }
}

/** Ends a following read that was stopped while it still had messages in hand. */
class FollowingStoppedError extends Error {}

export class StreamFollower {
  readonly #options: StreamFollowerOptions;
  #core: VenueCore;
  readonly #companions: StateCompanion[];
  #position: JournalPosition = { seq: 0n, hash: ZERO_HASH };
  #snapshotSeq = 0n;
  #following: { readonly abort: AbortController; readonly done: Promise<unknown> } | null = null;
  /** Announcements not yet reached, in seq order. */
  readonly #announced: AnnouncedState[] = [];
  #verified: AnnouncedState | null = null;
  #failure: Error | null = null;
  readonly #onFailure: (error: Error) => void;

  private constructor(options: StreamFollowerOptions, onFailure: (error: Error) => void) {
    this.#options = options;
    this.#core = new VenueCore(options.config);
    this.#companions = options.companionNames.map((name) => createCompanion(name));
    this.#onFailure = onFailure;
  }

  /** Recovers from the broker, then keeps following (unless `follow` is false: a primary's boot). */
  static async open(
    options: StreamFollowerOptions,
    follow: boolean,
    onFailure: (error: Error) => void = () => {},
  ): Promise<StreamFollower> {
    const follower = new StreamFollower(options, onFailure);
    const recovery = await recoverFromJetStream({
      link: options.link,
      sealingKey: options.sealingKey,
      ...(options.stallMs === undefined ? {} : { stallMs: options.stallMs }),
      onSnapshot: (text, seq, hash) => {
        const snapshot = parseSnapshot(text);
        follower.#core = VenueCore.restore(options.config, snapshot.core);
        loadCompanions(follower.#companions, snapshot.parts);
        follower.#position = { seq, hash };
        follower.#snapshotSeq = seq;
      },
      onCommand: (command, seq, annotations) => follower.#apply(command, seq, annotations),
      onRecord: (frame, _key, seq, message) => follower.#advance(frame, seq, message),
    });
    follower.#position = recovery.position;
    if (follow) follower.#follow();
    return follower;
  }

  get position(): JournalPosition {
    return this.#position;
  }

  /** The newest snapshot the follower started from (0n for none). */
  get snapshotSeq(): bigint {
    return this.#snapshotSeq;
  }

  get core(): VenueCore {
    return this.#core;
  }

  /** A broken chain, a record that does not apply, or a divergence: the follower stopped. */
  get failure(): Error | null {
    return this.#failure;
  }

  /** The newest announcement this follower reached and matched. */
  get verified(): AnnouncedState | null {
    return this.#verified;
  }

  /** The companions' parts, to load into the live venue's companions at takeover. */
  companionParts(): Record<string, unknown> {
    const parts: Record<string, unknown> = {};
    for (const companion of this.#companions) parts[companion.name] = companion.save();
    return parts;
  }

  /** Notes a state hash the primary announced; checked when the follower applies its record. */
  announce(state: AnnouncedState): void {
    if (state.seq <= this.#position.seq) {
      // Reached already: only the very record can be checked, so check it if it is the current one.
      if (state.seq === this.#position.seq) this.#check(state);
      return;
    }
    const last = this.#announced.at(-1);
    if (last !== undefined && last.seq >= state.seq) return;
    this.#announced.push(state);
  }

  /**
   * Stops following and reads every record the stream holds now: after this the core is the
   * stream's whole state. Throws if the follower failed or the chain does not check, or if reads
   * keep stalling (`readJournalStreamTo`), so that a takeover gives the lease back instead of
   * holding it while reading nothing.
   */
  async catchUp(): Promise<JournalPosition> {
    await this.stop();
    if (this.#failure !== null) throw this.#failure;
    const info = await this.#options.link.manager.streams.info(this.#options.link.settings.stream);
    const until = BigInt(info.state.last_seq);
    if (until > (this.#position.message ?? 0n)) {
      await readJournalStreamTo({
        link: this.#options.link,
        sealingKey: this.#options.sealingKey,
        after: this.#position,
        until,
        ...(this.#options.stallMs === undefined ? {} : { stallMs: this.#options.stallMs }),
        onCommand: (command, seq, annotations) => this.#apply(command, seq, annotations),
        onRecord: (frame, _key, seq, message) => this.#advance(frame, seq, message),
      });
    }
    if (this.#failure !== null) throw this.#failure;
    return this.#position;
  }

  /**
   * Stops reading (the state stays as it is). A read that does not end within the stall time is
   * left behind: it can no longer change the state (`#follow`'s fence), and the caller reads on from
   * the position it reached.
   */
  async stop(): Promise<void> {
    const following = this.#following;
    this.#following = null;
    if (following === null) return;
    following.abort.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      following.done,
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.#options.stallMs ?? STREAM_READ_STALL_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  #follow(): void {
    const abort = new AbortController();
    const following = {
      abort,
      done: readJournalStream({
        link: this.#options.link,
        sealingKey: this.#options.sealingKey,
        after: this.#position,
        signal: abort.signal,
        onCommand: (command, seq, annotations) => {
          // The fence: once stopped, this read applies nothing more (a record's command comes before
          // its position moves, so a read stopped here leaves the two in step).
          if (this.#following !== following) throw new FollowingStoppedError();
          this.#apply(command, seq, annotations);
        },
        onRecord: (frame, _key, seq, message) => this.#advance(frame, seq, message),
      }).catch((error: unknown) => {
        if (error instanceof FollowingStoppedError) return;
        this.#fail(error instanceof Error ? error : new Error(String(error)));
      }),
    };
    this.#following = following;
  }

  #apply(command: JournalRecord['command'], seq: bigint, annotations: Annotations): void {
    let events: ReturnType<VenueCore['apply']>;
    try {
      events = this.#core.apply(command);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new JournalRecoveryError(
        `record ${seq} (a ${command.type} command) does not apply to the standby's state (${detail}); the standby runs other rules or another configuration than the primary`,
      );
    }
    for (const companion of this.#companions) companion.follow({ command, annotations }, events);
  }

  #advance(frame: Buffer, seq: bigint, message: bigint): void {
    this.#position = { seq, hash: recordHash(frame), message };
    while (this.#announced.length > 0 && (this.#announced[0] as AnnouncedState).seq <= seq) {
      const next = this.#announced.shift() as AnnouncedState;
      if (next.seq === seq) this.#check(next);
    }
  }

  #check(state: AnnouncedState): void {
    const own = this.#core.stateHash();
    if (own !== state.stateHash) {
      this.#fail(new StateDivergedError(state.seq, state.stateHash, own));
      return;
    }
    this.#verified = state;
  }

  #fail(error: Error): void {
    if (this.#failure !== null) return;
    this.#failure = error;
    this.#following?.abort.abort();
    this.#onFailure(error);
  }
}
