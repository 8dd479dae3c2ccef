import type { TradingGates } from '../venue/trading-gates.ts';

/**
 * Shared fate (spec 1 item 7: an attestation, signer or finalized-governance mismatch pauses new
 * trading on every market). Each of the three causes has its own venue pause reason, so an operator
 * reading /system/status knows which one to fix:
 * - `governance_mismatch`: the chain's final governance names another code measurement than this
 *   boot attested. The chain no longer trusts this build; restart on the accepted one.
 * - `signer_mismatch`: final governance names another settlement signer. Every batch this boot
 *   signed would be refused.
 * - `attestation_mismatch`: the venue's own re-check of the attestation it serves failed (the
 *   report no longer verifies under the platform root, or no longer binds this boot's session and
 *   TLS key). Clients would refuse it; trading must not go on behind it.
 * Cancels, reads and settlement reconciliation go on. Each reason lifts as soon as its cause is
 * gone (say, governance returns to this build). Only final governance counts: a change still within
 * the finality depth can be reorganised away.
 */
export interface GovernanceSource {
  /** The governance in force: the newest action whose slot is final. */
  governanceValues(): { readonly measurement: string; readonly settlement_signer: string };
  finalizedSlot(): bigint;
}

/** Where governance changes are published (the enclave's transparency log). */
export interface GovernanceRecorder {
  recordGovernance(entry: {
    readonly measurement: string;
    readonly settlement_signer: string;
    readonly governance_slot: bigint;
    readonly time_ms: number;
  }): void;
}

export interface GovernanceWatchOptions {
  /** Re-verifies the attestation this boot serves; false closes trading (`attestation_mismatch`). */
  readonly attestationHolds?: () => boolean;
  /** Receives each final governance the watch sees change (and the first one it sees). */
  readonly transparency?: GovernanceRecorder;
  /** Wall clock for transparency entries. */
  readonly nowMs?: () => number;
}

export class GovernanceWatch {
  readonly #gates: TradingGates;
  readonly #source: GovernanceSource;
  readonly #attested: { readonly measurement: string; readonly settlementSigner: string };
  readonly #options: GovernanceWatchOptions;
  #lastSeen: string | null = null;

  constructor(
    gates: TradingGates,
    source: GovernanceSource,
    attested: { readonly measurement: string; readonly settlementSigner: string },
    options: GovernanceWatchOptions = {},
  ) {
    this.#gates = gates;
    this.#source = source;
    this.#attested = attested;
    this.#options = options;
  }

  /** Re-checks on each chain slot (or reorg). */
  check(): void {
    const governance = this.#source.governanceValues();
    this.#publish(governance);
    this.#gates.set('governance_mismatch', governance.measurement !== this.#attested.measurement);
    this.#gates.set('signer_mismatch', governance.settlement_signer !== this.#attested.settlementSigner);
    const holds = this.#options.attestationHolds?.() ?? true;
    this.#gates.set('attestation_mismatch', !holds);
  }

  #publish(governance: { readonly measurement: string; readonly settlement_signer: string }): void {
    const seen = `${governance.measurement}/${governance.settlement_signer}`;
    if (seen === this.#lastSeen) return;
    this.#lastSeen = seen;
    this.#options.transparency?.recordGovernance({
      measurement: governance.measurement,
      settlement_signer: governance.settlement_signer,
      governance_slot: this.#source.finalizedSlot(),
      time_ms: (this.#options.nowMs ?? Date.now)(),
    });
  }
}
