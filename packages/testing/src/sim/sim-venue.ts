import { createHash } from 'node:crypto';
import {
  type AssembledVenue,
  AuthService,
  assembleVenue,
  type CredentialHash,
  inlineSignatureChecks,
  type NoteOpenings,
  type ProofChecks,
  type Recovery,
  type StreamServer,
  TokenService,
  type VenueBody,
  type VenueClock,
  type VenueEngine,
} from '@venue/adapters';
import { type ChainSimulator, venueChainPortsOf } from '@venue/chain-sim';
import type { CoreConfig, CoreEvent, MarketConfig } from '@venue/core';
import type { MatchProver, NoteHasher } from '@venue/notes';
import type { TradingKey } from '@venue/protocol';
import { testListing } from '../venue-fixture.ts';
import type { SimClient } from './sim-client.ts';
import type { SimDisk } from './sim-disk.ts';

/**
 * One boot of the real venue inside the simulator, built by the same assembly as `venue serve`
 * (assembleVenue): the sequencer recovered by the real boot path (recoverJournal, snapshot,
 * FileJournal with group commit) from the simulated disk; the companions the journal keeps; the
 * settlement pipeline and the state check over the chain simulator; the root mirror and the tree
 * channel; the account layer; order intake with real signature checks; and the stream server. Its
 * ports are the simulated world's: no HTTPS front (the clients reach the stream through in-memory
 * sockets), no enclave (so no governance watch), the seeded clock, disk and hasher. A crash throws
 * the whole boot away; the next one starts from what the disk kept.
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
  /** Proves settlement legs: the stand-in (notes match-stand-in.ts) unless a seed runs the circuit. */
  readonly prover: MatchProver;
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
}

/** The fills' salts derived from the boot's (seeded) session, so a seed replays the same batches. */
function seededSalts<P extends { settlement: object }>(ports: P, sessionId: string): P {
  const fillSaltKey = createHash('sha256').update(`sim-fill-salts-${sessionId}`).digest();
  return { ...ports, settlement: { ...ports.settlement, fillSaltKey } };
}

export class SimVenue {
  private constructor(
    private readonly assembled: AssembledVenue<VenueBody>,
    readonly tokens: TokenService,
    readonly sessionId: string,
  ) {}

  get engine(): VenueEngine {
    return this.assembled.server.engine;
  }

  get recovery(): Recovery | null {
    return this.assembled.server.recovery;
  }

  get openings(): NoteOpenings {
    return this.assembled.companions.openings;
  }

  get auth(): AuthService {
    return this.assembled.server.auth;
  }

  get stream(): StreamServer {
    return this.assembled.server.stream;
  }

  static async boot(options: SimVenueOptions): Promise<SimVenue> {
    const { chain } = options;
    const tokens = new TokenService();
    const assembled = await assembleVenue(
      {
        clock: options.clock,
        proofs: { checks: STUB_PROOFS },
        signatures: inlineSignatureChecks,
        hasher: options.hasher,
        auth: simAuth(tokens, options.clients),
        roots: chain,
        chain: seededSalts(venueChainPortsOf(chain, options.signer, options.prover), options.sessionId),
        log: options.onStateRefused,
        headless: {
          sessionId: options.sessionId,
          streamLog: { error: (object) => options.onFault(object) },
        },
        onEvents: options.onEvents,
      },
      {
        core: options.config,
        markets: options.markets.map((market) => testListing(market)),
        settles: true,
        proofMode: 'stub',
        state: {
          directory: SIM_STATE_DIRECTORY,
          sealingKey: options.sealingKey,
          files: options.disk,
          snapshotIntervalRecords: SIM_SNAPSHOT_INTERVAL_RECORDS,
          // Every record stays, so the whole journal can be replayed from scratch as a check.
          pruneSegments: false,
        },
        stream: { heartbeatIntervalMs: HEARTBEAT_NEVER_MS },
      },
    );
    return new SimVenue(assembled, tokens, options.sessionId);
  }

  /** The process dies: nothing of this boot acts again (its pending promises never resolve). */
  async kill(): Promise<void> {
    this.assembled.detach();
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

/** Proofs are stubs: the simulator runs no prover. */
const STUB_PROOFS: ProofChecks = { check: async () => {} };

/** The simulated clients' accounts, in memory, logging in without the scrypt check (see above). */
function simAuth(tokens: TokenService, clients: readonly SimClient[]): AuthService {
  const auth = new AuthService({ tokens });
  for (const client of clients) {
    auth.accounts.add({
      accountId: client.accountId,
      apiKey: client.apiKey,
      role: 'trader',
      credential: NO_CREDENTIAL,
    });
  }
  return auth;
}
