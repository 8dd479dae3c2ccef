import type { Command } from 'commander';
import { withContext } from './context.ts';
import { loadTokenCache } from './lazy.ts';
import type { CliIo } from './output.ts';

/**
 * `logout`: revokes the account's cached token on the venue (spec 4.6) and removes it from the
 * token cache, so the next command logs in afresh. The cache goes even when the venue cannot be
 * reached: a logout must never leave a usable token behind on this machine.
 */
export function registerSessionCommands(program: Command, io: CliIo): void {
  program
    .command('logout')
    .description('Revoke the cached login token of --account on --venue and delete it from the cache.')
    .action((_flags: unknown, command: Command) =>
      withContext(command, io, async (context) => {
        const name = context.options.account ?? 'alice';
        const credentials = context.credentials(name);
        const cache = await context.tokenCache(credentials);
        let revoked = false;
        try {
          const client = await context.connect();
          const binding = (await loadTokenCache()).bootBindingOf(client);
          // A token of another boot is already dead there (tokens do not survive a restart).
          const cached = cache.read(binding, client.clock.nowMs());
          if (cached !== null) {
            client.resumeLogin(credentials, cached);
            await client.logout();
            revoked = true;
          }
        } finally {
          cache.clear();
        }
        context.out.result({ account: name, revoked, cache_cleared: true }, () =>
          revoked
            ? `${name}: token revoked and removed from the cache`
            : `${name}: no live cached token; cache cleared`,
        );
      }),
    );
}
