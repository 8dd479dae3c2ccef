import type { CoreEvent } from '@venue/core';
import { assert } from '@venue/protocol';
import { OracleMonitor } from '../oracle/oracle-monitor.ts';
import type { CheckStatus } from '../settlement/chain-state-check.ts';
import { type ChainReads, NO_SETTLEMENT } from '../venue/ports.ts';
import { mirroredReads, watchChain, watchConsumedNotes } from './chain-watch.ts';
import {
  coreWithMemo,
  createCompanions,
  durableCompanions,
  intakeProofs,
  type VenueCompanions,
} from './companions.ts';
import { createSettlementPipeline, type Settlement } from './create-settlement.ts';
import { openTreeChannel } from './tree-channel.ts';
import type { FrontPorts, HeadlessPorts, VenueOptions, VenuePorts } from './venue-ports.ts';
import { openVenueServer, type VenueBody, type VenueServer, type VenueServerParts } from './venue-server.ts';

/** A venue as `assembleVenue` wired it: the server, the companions both sides share, settlement. */
export interface AssembledVenue<Server extends VenueBody = VenueServer> {
  readonly server: Server;
  readonly companions: VenueCompanions;
  /** The pipeline and the state check, on a settling venue. */
  readonly settlement: Settlement | null;
  /** The oracle gates, when the venue has an oracle port. */
  readonly monitor: OracleMonitor | null;
  /** The state against the chain: `waiting`, then the verdict; `consistent` where nothing is checked. */
  readonly stateCheck: CheckStatus['state'];
  /** Drops every watch and the pipeline and leaves the server as it is (a simulated crash). */
  detach(): void;
  /** Stops the watches, the pipeline and the chain's beat, then closes the server. */
  stop(): Promise<void>;
}

/** Hears every event the engine lets out, from the first command after recovery (the simulator). */
type EventListener = (events: readonly CoreEvent[]) => void;

/**
 * The one way a venue is built (docs/architecture.md "One assembly"): `venue dev`, `venue serve`,
 * the test venues, the simulator and the benchmarks differ only in their ports and options. The
 * companions are created here and handed to the server (intake, the journal's state companions,
 * the metrics route) and to the settlement pipeline alike; the root mirror, the governance watch,
 * the oracle monitor, the tree channel and the state check are wired here when their ports exist.
 */
export async function assembleVenue(
  ports: VenuePorts & { readonly front: FrontPorts },
  options: VenueOptions,
): Promise<AssembledVenue<VenueServer>>;
export async function assembleVenue(
  ports: VenuePorts & { readonly headless: HeadlessPorts; readonly onEvents?: EventListener },
  options: VenueOptions,
): Promise<AssembledVenue<VenueBody>>;
export async function assembleVenue(
  ports: VenuePorts & {
    readonly front?: FrontPorts;
    readonly headless?: HeadlessPorts;
    readonly onEvents?: EventListener;
  },
  options: VenueOptions,
): Promise<AssembledVenue<VenueBody>> {
  const { settles } = options;
  assert(!settles || ports.chain?.settlement !== undefined, 'a settling venue needs a settlement chain port');
  assert(!settles || ports.hasher !== undefined, 'a settling venue needs the note hasher of its chain');
  const companions = createCompanions(settles ? ports.hasher : undefined);
  // The routes' tree reads refresh the root mirror, which exists once the server (its engine) does.
  let refreshMirror = () => {};
  const reads = ports.chain === undefined ? null : mirroredReads(ports.chain.reads, () => refreshMirror());
  const server = await openVenueServer(serverParts(ports, options, companions, reads), edgeOf(ports));
  if (ports.onEvents !== undefined) server.engine.onEvents(ports.onEvents);
  const watch = watchChain(server, ports, options.core.treeCount, settles);
  const detachChain = watch.detach;
  refreshMirror = () => watch.mirror.refresh();
  const monitor =
    ports.oracle === undefined
      ? null
      : new OracleMonitor(server.engine, options.markets, ports.oracle.publisherKeys);
  const oracleFeed = monitor === null ? null : (ports.oracle?.start(monitor) ?? null);
  const settlement = settles ? openSettlement(server, ports, options, companions) : null;
  server.metrics.attach({
    ...('verifier' in ports.proofs ? { proofs: ports.proofs.verifier } : {}),
    ...(monitor === null ? {} : { oracle: monitor }),
    ...(settlement === null ? {} : { settlement: companions.metrics, pipeline: settlement.pipeline }),
  });
  if (settlement !== null) {
    companions.metrics.onBatchFinal((marketId, slots) => server.metrics.batchFinal(marketId, slots));
  }
  const settlementChain = ports.chain?.settlement?.chain;
  const detachConsumed =
    settles && settlementChain !== undefined && companions.tags !== null
      ? watchConsumedNotes(server, settlementChain, companions.openings, companions.tags)
      : () => {};
  const detach = () => {
    settlement?.stop();
    detachConsumed();
    detachChain();
    oracleFeed?.stop();
  };
  let stopTrees = async () => {};
  try {
    if (ports.chain?.trees !== undefined) {
      stopTrees = await openTreeChannel(ports.chain, ports.chain.trees, server.stream);
    }
    // A prover that cannot load its pinned keys stops the boot here, not at the first batch.
    if (settlement !== null) await ports.chain?.settlement?.prover.ready();
  } catch (error) {
    detach();
    await server.close();
    throw error;
  }
  settlement?.reconcile();
  ports.chain?.start?.();
  return {
    server,
    companions,
    settlement,
    monitor,
    get stateCheck() {
      return settlement?.check?.status.state ?? 'consistent';
    },
    detach() {
      detach();
      void stopTrees();
    },
    async stop() {
      detach();
      await stopTrees();
      await ports.chain?.stop?.();
      await ports.chain?.settlement?.prover.close();
      await server.close();
    },
  };
}

function edgeOf(ports: { readonly front?: FrontPorts; readonly headless?: HeadlessPorts }) {
  if (ports.front !== undefined) return ports.front;
  assert(ports.headless !== undefined, 'a venue has a front or is headless');
  return ports.headless;
}

/** The server's parts: the companions on the server's side (intake, the journal, the metrics route). */
function serverParts(
  ports: VenuePorts,
  options: VenueOptions,
  companions: VenueCompanions,
  reads: ChainReads | null,
): VenueServerParts {
  return {
    clock: ports.clock,
    parameters: {
      settlementEnabled: options.settles,
      proofMode: options.proofMode,
      settlementBufferSlots: options.core.settlementBufferSlots,
      treeCount: options.core.treeCount,
    },
    core: coreWithMemo(options.core, ports.proofs, companions),
    markets: options.markets,
    proofs: intakeProofs(
      ports.proofs,
      companions,
      options.markets,
      options.settles,
      ports.chain?.settlement?.chain,
    ),
    ...(ports.signatures === undefined ? {} : { signatures: ports.signatures }),
    ...(ports.auth === undefined ? {} : { auth: ports.auth }),
    chain: reads,
    attestation: ports.enclave ?? null,
    settlement: options.settles ? companions.metrics : NO_SETTLEMENT,
    stream: options.stream ?? {},
    state: options.state ?? null,
    companions: durableCompanions(companions),
  };
}

/**
 * The settlement side, with the same companions: the pipeline, and on a venue with a state
 * directory the state check (a venue without one starts empty on purpose: nothing to check).
 */
function openSettlement(
  server: VenueBody,
  ports: VenuePorts,
  options: VenueOptions,
  companions: VenueCompanions,
): Settlement {
  const port = ports.chain?.settlement;
  assert(port !== undefined && ports.hasher !== undefined, 'settlement has its chain and hasher');
  return createSettlementPipeline({
    engine: server.engine,
    chain: port.chain,
    prover: port.prover,
    ...(port.fillSaltKey === undefined ? {} : { fillSaltKey: port.fillSaltKey }),
    ...(port.turnBudgetMs === undefined ? {} : { turnBudgetMs: port.turnBudgetMs }),
    ...(port.work === undefined ? {} : { work: port.work }),
    roots: ports.roots,
    ...(ports.log === undefined ? {} : { log: ports.log }),
    hasher: ports.hasher,
    openings: companions.openings,
    facts: companions.facts,
    clock: ports.clock,
    metrics: companions.metrics,
    publisher: server.stream,
    ...(options.state === undefined
      ? {}
      : {
          stateCheck: {
            landed: companions.landed,
            pause: (reason) => server.gates.set(reason, true),
            log: ports.log ?? (() => {}),
            ...(options.acceptStateMismatch === undefined
              ? {}
              : { acceptMismatch: options.acceptStateMismatch }),
          },
        }),
  });
}
