import {
  type AccountResponse,
  AccountResponseSchema,
  type AccountSettings,
  DeadManStatusSchema,
  OrderRecordSchema,
  toWire,
} from '@venue/protocol';
import type { AuthService } from '../auth/auth-service.ts';
import type { OrderIntake } from '../venue/order-intake.ts';
import { principalOf, type RouteContext, type RouteHandler } from './route-registrar.ts';

/**
 * spec 4.1 and 4.3: the order routes and the account reads. Handlers only translate HTTP to the
 * intake, which the stream shares (spec 4.8 rule 1).
 */
type OrderIdContext = RouteContext<{ order_id: string }>;

export function orderRoutes(intake: OrderIntake, auth: AuthService): RouteHandler[] {
  return [
    {
      method: 'POST',
      path: '/orders',
      rawBody: true,
      handle: (context: RouteContext) =>
        intake.place(context.body, principalOf(context).account.accountId, null),
    },
    {
      method: 'DELETE',
      path: '/orders/:order_id',
      rawBody: true,
      handle: (context: OrderIdContext) =>
        intake.cancel(context.params.order_id, context.body, principalOf(context).account.accountId),
    },
    {
      method: 'PUT',
      path: '/orders/:order_id',
      rawBody: true,
      handle: (context: OrderIdContext) =>
        intake.modify(context.params.order_id, context.body, principalOf(context).account.accountId, null),
    },
    {
      method: 'GET',
      path: '/orders/:order_id',
      // Through the schema, so u64 fields such as match_id go out as decimal strings.
      handle: async (context: OrderIdContext) =>
        toWire(
          OrderRecordSchema,
          await intake.order(context.params.order_id, principalOf(context).account.accountId),
        ),
    },
    {
      method: 'GET',
      path: '/account',
      handle: async (context: RouteContext) => {
        const { account } = principalOf(context);
        const body: AccountResponse = {
          account_id: account.accountId,
          open_orders: await intake.openOrders(account.accountId),
          settings: { ...account.settings },
        };
        return toWire(AccountResponseSchema, body);
      },
    },
    {
      method: 'GET',
      path: '/account/dead-man',
      handle: async (context: RouteContext) =>
        toWire(DeadManStatusSchema, await intake.deadMan(principalOf(context).account.accountId)),
    },
    {
      method: 'POST',
      path: '/account/dead-man',
      rawBody: true,
      handle: async (context: RouteContext) =>
        toWire(
          DeadManStatusSchema,
          await intake.armDeadMan(context.body, principalOf(context).account.accountId),
        ),
    },
    {
      method: 'DELETE',
      path: '/account/dead-man',
      handle: async (context: RouteContext) =>
        toWire(DeadManStatusSchema, await intake.setDeadMan(null, principalOf(context).account.accountId)),
    },
    {
      method: 'GET',
      path: '/account/settings',
      handle: (context: RouteContext) => ({ ...principalOf(context).account.settings }),
    },
    {
      method: 'PUT',
      path: '/account/settings',
      // spec 2.9: PUT replaces the whole object; the schema requires every field.
      handle: (context: RouteContext<unknown, unknown, AccountSettings>) =>
        auth.updateSettings(principalOf(context).account, context.body),
    },
  ];
}
