import {
  AuthService,
  bootEngine,
  type CredentialHash,
  createSettlementPipeline,
  inlineSignatureChecks,
  LandedBatches,
  MatchFacts,
  NoteOpenings,
  OrderIntake,
  type Recovery,
  RootMirror,
  rememberingProofChecks,
  type Settlement,
  StreamServer,
  TokenService,
  TradingRateLimiter,
  type VenueClock,
  type VenueEngine,
} from '@venue/adapters';
import { type ChainSimulator, settlementChainOf } from '@venue/chain-sim';
import type { CoreConfig, CoreEvent, MarketConfig } from '@venue/core';
import type { NoteHasher } from '@venue/notes';
import type { TradingKey } from '@venue/protocol';
import { testListing } from '../venue-fixture.ts';
import type { SimClient } from './sim-client.ts';
import type { SimDisk } from './sim-disk.ts';

/**
 * One boot of the real venue inside the simulator: the sequencer (VenueEngine) recovered by the
 * real boot path (bootEngine: recoverJournal, snapshot, FileJournal with group commit) from the
 * simulated disk; the settlement pipeline with its note openings (a state companion of the
 * journal) over the chain simulator; the root mirror; the account layer with its token service;
 * order intake with real signature checks; and the stream server, whose sessions the simulated
 * clients reach through in-memory sockets. A crash throws the whole boot away; the next one starts
 * from what the disk kept.
 *
 * Proofs are stubs (the simulator runs no prover) and logins skip the scrypt check of the API
 * secret (80 ms each; the REST tests cover it): a login is a token from the real TokenService.
 */
export const SIM_STATE_DIRECTORY = '/sim-state';
/** A snapshot every this many journal records, so recovery uses snapshots often. */
export const SIM_SNAPSHOT_INTERVAL_RECORDS = 64;
/** The stream's heartbeat is wall time; the simulator keeps it out of the run. */
const HEARTBEAT_NEVER_MS = 2 ** 31 - 1;
/** A credential that never verifies: simulated clients get their tokens without the scrypt check. */
const NO_CREDENTIAL = '$scrypt$ln=1,r=1,p=1$AA$AA' as CredentialHash;

export interface SimVenueOptions {
  readonly config: CoreConfig;
  readonly markets: readonly MarketConfig[];
  readonly clock: VenueClock;
  readonly chain: ChainSimulator;
  readonly signer: TradingKey;
  readonly hasher: NoteHasher;
  readonly disk: SimDisk;
  readonly sealingKey: Uint8Array;
  readonly sessionId: string;
  readonly clients: readonly SimClient[];
  /** Stream faults (a frame that fails inside the venue) are recorded here. */
  readonly onFault: (fault: unknown) => void;
  /** Hears every event the engine lets out, from the first command after recovery. */
  readonly onEvents: (events: readonly CoreEvent[]) => void;
  /**
   * The state-against-chain check refused this boot (docs/durability.md). The simulated disk only
   * ever loses what was never durable, so a refusal here is a false alarm: the simulator fails on it.
   */
  readonly onStateRefused: (line: string) => void;
  /**
   * Keep each match's counterparts as a state companion, as `venue serve` does. Without them a
   * restart hands the pipeline a market's pending matches as one group (the fallback path).
   */
  readonly matchFacts: boolean;
}

export class SimVenue {
  private constructor(
    readonly engine: VenueEngine,
    readonly recovery: Recovery | null,
    readonly openings: NoteOpenings,
    readonly settlement: Settlement,
    readonly auth: AuthService,
    readonly tokens: TokenService,
    readonly stream: StreamServer,
    readonly sessionId: string,
    private readonly detachMirror: () => void,
  ) {}

  static async boot(options: SimVenueOptions): Promise<SimVenue> {
    const { config, clock, chain, hasher, disk } = options;
    const openings = new NoteOpenings();
    const landed = new LandedBatches();
    const facts = options.matchFacts ? new MatchFacts() : null;
    const { engine, recovery } = await bootEngine({
      config,
      clock,
      sessionId: options.sessionId,
      markets: options.markets.map((market) => testListing(market)),
      state: {
        directory: SIM_STATE_DIRECTORY,
        sealingKey: options.sealingKey,
        files: disk,
        snapshotIntervalRecords: SIM_SNAPSHOT_INTERVAL_RECORDS,
        // Every record stays, so the whole journal can be replayed from scratch as a check.
        pruneSegments: false,
      },
      companions: facts === null ? [openings, landed] : [openings, facts, landed],
    });
    engine.onEvents(options.onEvents);
    const mirror = new RootMirror(engine, chain, config.treeCount);
    mirror.refresh();
    const detachMirror = chain.onEvent((event) => {
      if (event.kind !== 'settlement') mirror.refresh();
    });
    const tokens = new TokenService();
    const auth = new AuthService({ tokens });
    for (const client of options.clients) {
      auth.accounts.add({
        accountId: client.accountId,
        apiKey: client.apiKey,
        role: 'trader',
        credential: NO_CREDENTIAL,
      });
    }
    const intake = new OrderIntake({
      engine,
      limiter: new TradingRateLimiter(),
      signatures: inlineSignatureChecks,
      proofs: rememberingProofChecks({ check: async () => {} }, openings),
      clock,
    });
    const stream = new StreamServer({
      auth,
      intake,
      engine,
      clock,
      heartbeatIntervalMs: HEARTBEAT_NEVER_MS,
      log: { error: (object) => options.onFault(object) },
    });
    const settlement = createSettlementPipeline({
      engine,
      chain: settlementChainOf(chain, options.signer),
      hasher,
      openings,
      clock,
      publisher: stream,
      ...(facts === null ? {} : { facts }),
      stateCheck: {
        landed,
        pause: (reason) => options.onStateRefused(`trading paused: ${reason}`),
        log: options.onStateRefused,
      },
    });
    settlement.reconcile();
    return new SimVenue(
      engine,
      recovery,
      openings,
      settlement,
      auth,
      tokens,
      stream,
      options.sessionId,
      detachMirror,
    );
  }

  /** The process dies: nothing of this boot acts again (its pending promises never resolve). */
  async kill(): Promise<void> {
    this.settlement.stop();
    this.detachMirror();
    await this.stream.close();
  }

  /** A login as a bot would do it: a fresh token for the account (see the class comment). */
  async issueToken(client: SimClient, nowMs: number) {
    const account = this.auth.accounts.byId(client.accountId);
    if (account === undefined) throw new Error(`no account ${client.accountId}`);
    return this.tokens.issue(
      { accountId: account.accountId, role: account.role, generation: account.tokenGeneration },
      nowMs,
    );
  }
}
