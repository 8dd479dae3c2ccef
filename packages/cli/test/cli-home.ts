/**
 * A CLI user's home for tests against a TestVenue: a temporary folder holding the accounts file
 * (owner-only, as dev mode writes it) and the published platform root the CLI attests against, and
 * a runner of `venue <args>` in process with this venue's global options and captured output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestVenue } from '@venue/testing';
import { runCli } from '../src/index.ts';

export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliHome {
  readonly dir: string;
  /** `venue <args>` with the venue URL, the accounts file and `keyFile` (default keys/key.json). */
  run(
    args: readonly string[],
    options?: { keyFile?: string; onStderr?: (all: string) => void },
  ): Promise<CliRun>;
  remove(): void;
}

export function cliHome(venue: TestVenue, accounts: Record<string, unknown>, prefix: string): CliHome {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'dev-accounts.json'), JSON.stringify(accounts), { mode: 0o600 });
  assert.ok(venue.platform !== undefined && venue.enclave !== undefined, 'the CLI needs an attested venue');
  writeFileSync(
    join(dir, 'platform-root.json'),
    JSON.stringify({
      root_key_id: venue.platform.rootKeyId,
      root_public_key: venue.platform.rootPublicKey,
      measurement: venue.enclave.measurement,
    }),
  );
  return {
    dir,
    async run(args, options = {}) {
      let stdout = '';
      let stderr = '';
      const status = await runCli(
        [
          '--venue',
          `https://127.0.0.1:${venue.port}`,
          '--credentials',
          join(dir, 'dev-accounts.json'),
          '--key-file',
          options.keyFile ?? join(dir, 'keys', 'key.json'),
          ...args,
        ],
        {
          stdout: (t) => {
            stdout += t;
          },
          stderr: (t) => {
            stderr += t;
            options.onStderr?.(stderr);
          },
          interactive: false,
        },
      );
      return { status, stdout, stderr };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
