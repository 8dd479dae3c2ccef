import { setTimeout as sleep } from 'node:timers/promises';
import type { TradingKey } from '@venue/protocol';
import { CliError } from '../commands/output.ts';
import { chainCaller } from './chain-setup.ts';

/**
 * `venue chain govern`: the governance action that lets a served venue settle. Serve's ready line
 * names its code `measurement` and its `settlement_signer`; until the chain's final governance names
 * both, every market stays paused. The action is signed with the chain's authority key and takes
 * effect once its slot is final, which this waits for (a bounded number of slots).
 */
export interface GovernResult {
  readonly sequence: bigint;
  readonly measurement: string;
  readonly settlement_signer: string;
  /** `proposed` now, or `already_in_force` when the final governance named both already. */
  readonly action: 'proposed' | 'already_in_force';
  readonly final: boolean;
}

export async function govern(
  rpcUrl: string,
  authority: TradingKey,
  values: { measurement: string; settlement_signer: string },
  wait: { untilFinal: boolean; timeoutMs: number },
): Promise<GovernResult> {
  const { signGovernance } = await import('@venue/protocol');
  const call = chainCaller(rpcUrl);
  const view = await call('getGovernance', {});
  const inForce = (v: typeof view) =>
    v.effective.measurement === values.measurement &&
    v.effective.settlement_signer === values.settlement_signer;
  if (inForce(view))
    return { sequence: view.next_sequence - 1n, ...values, action: 'already_in_force', final: true };
  if (view.authority !== authority.publicKey) {
    throw new CliError(
      `--authority-file: the chain's governance authority is ${view.authority}, this key is ${authority.publicKey}; use the file the chain was started with`,
    );
  }
  const sequence = view.next_sequence;
  await call('proposeGovernance', signGovernance({ sequence, ...values }, authority));
  if (!wait.untilFinal) return { sequence, ...values, action: 'proposed', final: false };
  const deadline = Date.now() + wait.timeoutMs;
  while (Date.now() < deadline) {
    if (inForce(await call('getGovernance', {})))
      return { sequence, ...values, action: 'proposed', final: true };
    await sleep(100);
  }
  throw new CliError(
    `governance action ${sequence} was proposed but not final after ${wait.timeoutMs} ms; the chain's slots may be stalled (venue chain govern --timeout-ms raises the wait)`,
  );
}
