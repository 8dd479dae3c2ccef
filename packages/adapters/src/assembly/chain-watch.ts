import { RootMirror } from '../chain/root-mirror.ts';
import { GovernanceWatch } from '../enclave/governance-watch.ts';
import { ConsumedNoteWatch } from '../settlement/consumed-note-watch.ts';
import type { NoteUseTags } from '../settlement/consumed-notes.ts';
import type { NoteOpenings } from '../settlement/note-openings.ts';
import type { SettlementChain } from '../settlement/settlement-chain.ts';
import type { ChainReads } from '../venue/ports.ts';
import type { VenuePorts } from './venue-ports.ts';
import type { VenueBody } from './venue-server.ts';

/**
 * What the venue watches on the chain's beat. The root mirror hands the core the chain's recent-root
 * windows after every slot or reorg. A settling venue with an enclave also watches final governance
 * (shared fate: governance naming another build or signer pauses new trading on every market), on
 * the settlement chain's beat, when its view is fresh. Returns the unsubscribe function.
 */
export function watchChain(
  server: VenueBody,
  ports: VenuePorts,
  treeCount: number,
  settles: boolean,
): { readonly detach: () => void; readonly mirror: RootMirror } {
  const mirror = new RootMirror(server.engine, ports.roots, treeCount);
  mirror.refresh();
  const detachMirror = ports.chain?.onBeat(() => mirror.refresh()) ?? (() => {});
  const settlement = ports.chain?.settlement;
  if (!settles || settlement === undefined || ports.enclave === undefined) {
    return { detach: detachMirror, mirror };
  }
  const { enclave } = ports;
  const attested = { measurement: enclave.measurement, settlementSigner: enclave.settlementSigner.publicKey };
  const governance = new GovernanceWatch(server.gates, settlement.governance, attested, {
    attestationHolds: () => enclave.attestationHolds(),
    transparency: enclave,
    nowMs: () => ports.clock.nowMs(),
  });
  governance.check();
  const detachGovernance = settlement.chain.onBeat(() => governance.check());
  return {
    detach: () => {
      detachMirror();
      detachGovernance();
    },
    mirror,
  };
}

/**
 * Tree reads that answer only with roots the core already accepts: once the chain has answered, the
 * root mirror hands the core the chain's windows (it records a change only), and then the answer
 * leaves. A deposit mints a root within the slot, and the mirror otherwise hears of it on the next
 * beat: a client that read that root (GET /tree/root or /tree/inclusion), proved against it and
 * placed at once was refused with 1031 until then. A chain over JSON-RPC admits the root into its
 * polled windows first (the CLI's ChainLink.admit), so the refresh here finds it there.
 */
export function mirroredReads(reads: ChainReads, refresh: () => void): ChainReads {
  return {
    roots: async () => {
      const roots = await reads.roots();
      refresh();
      return roots;
    },
    inclusion: async (treeId, commitment) => {
      const proof = await reads.inclusion(treeId, commitment);
      refresh();
      return proof;
    },
    leaves: (treeId, from, limit) => reads.leaves(treeId, from, limit),
    settlementStatus: (lookup) => reads.settlementStatus(lookup),
  };
}

/**
 * On a settling venue: orders resting on notes the chain consumed are cancelled (spec 3.2), on each
 * withdraw or merge an in-process chain tells, and on the settlement chain's beat for any chain
 * (consumed-note-watch.ts). Returns the unsubscribe function.
 */
export function watchConsumedNotes(
  server: VenueBody,
  chain: SettlementChain,
  openings: NoteOpenings,
  tags: NoteUseTags,
): () => void {
  const watch = new ConsumedNoteWatch(server.engine, chain, openings, tags);
  const detachBeat = chain.onBeat(() => watch.check());
  const detachConsumed = chain.onConsumed?.((noteUseTags) => watch.consumed(noteUseTags)) ?? (() => {});
  return () => {
    detachBeat();
    detachConsumed();
  };
}
