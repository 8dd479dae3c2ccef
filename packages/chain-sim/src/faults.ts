import type { SettlementFailureReason } from '@venue/protocol';

/**
 * Faults armed by tests (docs/chain-sim.md section 7). Nothing here fires by chance: each fault is
 * armed explicitly and fires once, on the next settlement it matches (any market when market_id is
 * absent), so a run is reproducible.
 */
export type ArmedFault =
  | { readonly kind: 'fail'; readonly reason: SettlementFailureReason; readonly market_id?: string }
  | { readonly kind: 'delay'; readonly slots: bigint; readonly market_id?: string };

export class FaultQueue {
  private armed: ArmedFault[] = [];
  /** Ticks still to be swallowed by a stall (Infinity: until resumed). */
  stallTicks = 0;

  arm(fault: ArmedFault): void {
    this.armed.push(fault);
  }

  /** Removes and returns the first armed fault of this kind matching the market. */
  take<K extends ArmedFault['kind']>(
    kind: K,
    marketId: string,
  ): Extract<ArmedFault, { kind: K }> | undefined {
    const index = this.armed.findIndex(
      (fault) => fault.kind === kind && (fault.market_id === undefined || fault.market_id === marketId),
    );
    if (index < 0) return undefined;
    const [fault] = this.armed.splice(index, 1);
    return fault as Extract<ArmedFault, { kind: K }> | undefined;
  }

  clear(): void {
    this.armed = [];
    this.stallTicks = 0;
  }
}
