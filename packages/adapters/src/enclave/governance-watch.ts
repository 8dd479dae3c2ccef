import type { TradingGates } from '../venue/trading-gates.ts';

/**
 * Shared fate (spec 1 item 7): the chain's final governance names the code measurement and the
 * settlement signer it accepts. When either differs from what this boot attested, settling would
 * fail or, worse, the venue would run code the chain no longer trusts, so new trading pauses on every
 * market (`attestation_mismatch`, `signer_mismatch`); cancels, reads and settlement reconciliation
 * go on. When governance matches again (say, after a restart on the accepted build) trading reopens.
 * Only final governance counts: a change still within the finality depth can be reorganised away.
 */
export interface GovernanceSource {
  /** The governance in force: the newest action whose slot is final. */
  governanceValues(): { readonly measurement: string; readonly settlement_signer: string };
}

export class GovernanceWatch {
  readonly #gates: TradingGates;
  readonly #source: GovernanceSource;
  readonly #attested: { readonly measurement: string; readonly settlementSigner: string };

  constructor(
    gates: TradingGates,
    source: GovernanceSource,
    attested: { readonly measurement: string; readonly settlementSigner: string },
  ) {
    this.#gates = gates;
    this.#source = source;
    this.#attested = attested;
  }

  /** Re-checks on each chain slot (or reorg). */
  check(): void {
    const governance = this.#source.governanceValues();
    this.#gates.set('attestation_mismatch', governance.measurement !== this.#attested.measurement);
    this.#gates.set('signer_mismatch', governance.settlement_signer !== this.#attested.settlementSigner);
  }
}
