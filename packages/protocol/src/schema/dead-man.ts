import Type, { type Static } from 'typebox';
import { Strict, U64 } from './primitives.ts';

/**
 * The dead-man timer (cancel-all-after) of a trading account: POST /account/dead-man arms or
 * refreshes it, DELETE disarms it, GET reads it; the stream has `dead_man.arm` and
 * `dead_man.disarm`. The timer belongs to the account the bearer token names, like the account's
 * cancel-on-disconnect default (docs/api.md, "Dead-man timer"). When the chain reaches its deadline
 * slot the venue cancels every resting order of the account (cancel_reason `dead_man`).
 */
export const DeadManArmRequestSchema = Strict(
  {
    timeout_slots: U64({
      description:
        'Slots from the current slot to the deadline, 1 to 4500. Each call replaces the previous deadline.',
    }),
  },
  { title: 'DeadManArmRequest' },
);
export type DeadManArmRequest = Static<typeof DeadManArmRequestSchema>;

export const DeadManStatusSchema = Strict(
  {
    armed: Type.Boolean({ description: 'Whether a timer is running for the account.' }),
    timeout_slots: Type.Optional(
      U64({ description: 'While armed: the timeout of the last arm or refresh.' }),
    ),
    armed_slot: Type.Optional(U64({ description: 'While armed: slot of the last arm or refresh.' })),
    deadline_slot: Type.Optional(
      U64({
        description:
          'While armed: at the first tick of this slot, before its batch auctions, every resting order of the account is cancelled.',
      }),
    ),
  },
  { title: 'DeadManStatus' },
);
export type DeadManStatus = Static<typeof DeadManStatusSchema>;
