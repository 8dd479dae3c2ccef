/**
 * The sealed accounts file, mirrored in the stream's object store beside the snapshots (object
 * `accounts`), so a standby on another machine takes over with the accounts the primary had: the
 * same sealed bytes as `accounts.sealed` on disk, which the brokers cannot open.
 */
import type { AccountsMirror } from '../../accounts/account-file.ts';
import { type JetStreamLink, whileElecting } from './jetstream-link.ts';

export const ACCOUNTS_OBJECT = 'accounts';

export function accountsMirrorOf(link: JetStreamLink): AccountsMirror {
  return {
    async put(bytes) {
      await link.snapshots.putBlob({ name: ACCOUNTS_OBJECT }, bytes);
    },
    get: () => whileElecting(() => link.snapshots.getBlob(ACCOUNTS_OBJECT)),
  };
}
