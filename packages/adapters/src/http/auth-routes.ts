import type {
  AccountListResponse,
  CreateAccountRequest,
  RevokeTokenResponse,
  TokenRequest,
} from '@venue/protocol';
import { accountStatusOf } from '../accounts/account-registry.ts';
import type { AuthService } from '../auth/auth-service.ts';
import type { VenueClock } from '../chain/clock.ts';
import { principalOf, type RouteContext, type RouteHandler } from './route-registrar.ts';

/**
 * spec 4.2 (issue tokens), 4.6 (revoke one's own token) and the account routes of 4.7, plus the
 * account list the operator console reads.
 */
type ApiKeyContext = RouteContext<{ api_key: string }>;

export function authRoutes(auth: AuthService, clock: VenueClock): RouteHandler[] {
  return [
    {
      method: 'POST',
      path: '/auth/token',
      handle: (context: RouteContext<unknown, unknown, TokenRequest>) =>
        auth.login(context.body, clock.nowMs(), context.request.ip),
    },
    {
      method: 'DELETE',
      path: '/auth/token',
      handle: (context: RouteContext) => {
        const body: RevokeTokenResponse = {
          revoked: true,
          denylisted_until_ms: auth.revoke(principalOf(context)),
        };
        return body;
      },
    },
    {
      method: 'GET',
      path: '/admin/accounts',
      handle: () => {
        const body: AccountListResponse = {
          accounts: auth.accounts.all().map((account) => ({
            ...accountStatusOf(account),
            ...(account.label === undefined ? {} : { label: account.label }),
          })),
        };
        return body;
      },
    },
    {
      method: 'POST',
      path: '/admin/accounts',
      handle: (context: RouteContext<unknown, unknown, CreateAccountRequest>) =>
        auth.createAccount(context.body),
    },
    {
      method: 'POST',
      path: '/admin/accounts/:api_key/disable',
      handle: async (context: ApiKeyContext) => accountStatusOf(await auth.disable(context.params.api_key)),
    },
    {
      method: 'POST',
      path: '/admin/accounts/:api_key/enable',
      handle: async (context: ApiKeyContext) => accountStatusOf(await auth.enable(context.params.api_key)),
    },
    {
      method: 'POST',
      path: '/admin/accounts/:api_key/revoke-tokens',
      handle: async (context: ApiKeyContext) =>
        accountStatusOf(await auth.revokeTokens(context.params.api_key, clock.nowMs())),
    },
  ];
}
