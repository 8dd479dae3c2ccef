import type { CoreConfig } from '@venue/core';
import type { MatchProver, NoteHasher, ProofVerifier } from '@venue/notes';
import type { AuthService } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import type { RootSource } from '../chain/root-mirror.ts';
import type { BootIdentity } from '../enclave/boot-identity.ts';
import type { CodeSnapshot } from '../enclave/code-measurement.ts';
import type { Enclave } from '../enclave/enclave-attestation.ts';
import type { GovernanceSource } from '../enclave/governance-watch.ts';
import type { HttpServerOptions } from '../http/server.ts';
import type { OracleMonitor } from '../oracle/oracle-monitor.ts';
import type { TokenBucketPolicy } from '../rate-limit/token-bucket.ts';
import type { TreeUpdateSource } from '../settlement/remote-tree-feed.ts';
import type { SettlementChain } from '../settlement/settlement-chain.ts';
import type { TreeSource } from '../settlement/tree-feed.ts';
import type { StateDirectory } from '../venue/engine-boot.ts';
import type { ProofChecks, SignatureChecks } from '../venue/intake-checks.ts';
import type { MarketListing } from '../venue/market-listing.ts';
import type { ChainReads } from '../venue/ports.ts';
import type { SettlementWork } from '../workers/settlement-work.ts';

/**
 * What a venue is built from. Each entry point builds these for its world (an in-process chain
 * simulator, a chain reached over JSON-RPC, the simulated world) and hands them to `assembleVenue`;
 * everything else (companions, settlement, watches) the assembly wires the same way for all.
 */
export interface VenuePorts {
  readonly clock: VenueClock;
  /**
   * A verifier gets the commitment memo (the core then reads the note commitments its workers
   * derived); fixed checks (tests, the simulator) are used as they are.
   */
  readonly proofs: { readonly verifier: ProofVerifier } | { readonly checks: ProofChecks };
  /** Signature checks; by default a pool of worker threads. */
  readonly signatures?: SignatureChecks;
  /** The note hash the chain's trees use; settlement needs it. */
  readonly hasher?: NoteHasher;
  /** The account layer; by default accounts kept in the state directory (or in memory without one). */
  readonly auth?: AuthService;
  /** Attestation, the settlement signer's build and the transparency log; absent in the simulator. */
  readonly enclave?: Enclave;
  /** The recent-root windows the core checks orders against (spec 2.1 merkle_root). */
  readonly roots: RootSource;
  readonly chain?: ChainPorts;
  readonly oracle?: OraclePort;
  /** Operating lines an operator reads (the state check's verdict, a chain that stops answering). */
  readonly log?: (line: string) => void;
}

/** The chain the venue follows, and settles on when it can. */
export interface ChainPorts {
  /** Tree and settlement reads for the REST routes. */
  readonly reads: ChainReads;
  /** Slots and reorgs as this link sees them: the root mirror looks again on each. */
  onBeat(listener: () => void): () => void;
  /**
   * Present when the venue can settle here: the pipeline's port, the governance it answers to, and
   * the prover of its VALID_MATCH proofs (of the kind the chain verifies). The assembly owns the
   * prover from then on: it waits for it at boot and closes it when the venue stops.
   */
  readonly settlement?: {
    readonly chain: SettlementChain;
    readonly governance: GovernanceSource;
    readonly prover: MatchProver;
    /** The key fill salts are derived from (settlement-pipeline.ts); default: fresh per boot. */
    readonly fillSaltKey?: Uint8Array;
    /**
     * The pipeline's work per event-loop turn (turn-budget.ts): a venue that serves users passes
     * SETTLEMENT_TURN_BUDGET_MS; left out, each beat does all its work at once, as the
     * deterministic simulator and the settlement tests want.
     */
    readonly turnBudgetMs?: number;
    /**
     * The settlement worker (workers/settlement-pool.ts) for leg hashing and memo sealing; the
     * caller owns it (and passes it to its chain port for batch signing and JSON-RPC text).
     */
    readonly work?: SettlementWork;
  };
  /** The stream's tree channel. */
  readonly trees?: TreeChannel;
  /** Starts the chain's beat once everything listens to it (a simulator's slots, a poll). */
  start?(): void;
  /** Stops the beat; resolves once no write to the chain is in flight. */
  stop?(): Promise<void>;
}

/**
 * Where the tree channel reads the chain: synchronously on every settlement beat (an in-process
 * chain), or by polling a chain over the network, which names itself in the error of a first read
 * that fails.
 */
export type TreeChannel =
  | { readonly reads: TreeSource }
  | {
      readonly updates: TreeUpdateSource;
      readonly pollMs: number;
      readonly name: string;
      readonly onProblem: (message: string) => void;
      /** Takes a root into the venue's root windows before the channel announces it (RemoteTreeFeed). */
      readonly admit?: (treeId: number, root: string) => Promise<void>;
    };

/** Signed oracle prices: the publishers' keys, and a feed that hands updates to the monitor. */
export interface OraclePort {
  readonly publisherKeys: ReadonlyMap<string, string>;
  start(monitor: OracleMonitor): { stop(): void };
}

/** The HTTPS front: REST and the stream's upgrade on one port, driven by wall-clock timers. */
export interface FrontPorts {
  readonly identity: BootIdentity;
  readonly log?: HttpServerOptions['log'];
  /** Connection bounds apart from the defaults: `venue serve`'s per-address cap, tests' short timeouts. */
  readonly transport?: HttpServerOptions['transport'];
  /** The code snapshot behind the attested measurement, served under /evidences (spec 4.4). */
  readonly evidences?: CodeSnapshot;
  /** The built operator console served at /console/; defaults to this repository's build. */
  readonly consoleDirectory?: string;
}

/** A venue without a front (the simulator): its clients reach the stream through in-memory sockets. */
export interface HeadlessPorts {
  readonly sessionId: string;
  /** Faults inside the stream (a frame that failed in the venue). */
  readonly streamLog: { error(object: unknown, message: string): void };
}

export interface VenueOptions {
  /** The core's configuration; a verifier's derivations are put in front of its `noteCommitment`. */
  readonly core: CoreConfig;
  readonly markets: readonly MarketListing[];
  /** Whether matches settle on the chain (needs `chain.settlement` and `hasher`). */
  readonly settles: boolean;
  /** What GET /info says about proofs. */
  readonly proofMode: 'groth16' | 'stub';
  /**
   * Journal, snapshots and accounts live here; a settling venue then checks its recovered state
   * against the chain before it settles. Without it the venue starts empty on purpose.
   */
  readonly state?: StateDirectory;
  /** chain.accept_state_mismatch: the operator accepts a state the chain contradicts. */
  readonly acceptStateMismatch?: boolean;
  readonly stream?: StreamOverrides;
}

/** Stream limits a test or the simulator sets apart from the defaults (undefined keeps a default). */
export interface StreamOverrides {
  /** The per-account send buffer (tests make a slow consumer cheaply). */
  readonly accountBufferBytesMax?: number | undefined;
  /** The heartbeat interval (tests find a dead peer quickly; the simulator never beats). */
  readonly heartbeatIntervalMs?: number | undefined;
  /**
   * The read budget of every socket, before and after login (tests that flood on purpose lift it
   * to reach the send bounds; the default is STREAM_READ_BUCKET and STREAM_LOGIN_READ_BUCKET).
   */
  readonly readBucket?: TokenBucketPolicy | undefined;
  /** How long a socket may stay open without logging in (default STREAM_LOGIN_TIMEOUT_MS). */
  readonly loginTimeoutMs?: number | undefined;
}
