// `venue serve` and the state-against-chain check (docs/operations.md): the override that lets an
// operator trade on a state directory older than the chain is an explicit, checked config key,
// off unless set.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseServeConfig, ServeConfigError } from '../src/serve/serve-config.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = join(ROOT, 'config/venue.example.json');

function withChain(chain: Record<string, unknown>): string {
  const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
  return JSON.stringify({ ...example, chain: { ...(example['chain'] as object), ...chain } });
}

test('chain.accept_state_mismatch is off unless the file sets it', () => {
  assert.equal(parseServeConfig(withChain({}), EXAMPLE).chain.acceptStateMismatch, false);
  assert.equal(
    parseServeConfig(withChain({ accept_state_mismatch: true }), EXAMPLE).chain.acceptStateMismatch,
    true,
  );
});

test('chain.accept_state_mismatch takes only a boolean, and says so with its key', () => {
  for (const value of ['yes', 1, 'true']) {
    assert.throws(
      () => parseServeConfig(withChain({ accept_state_mismatch: value }), EXAMPLE),
      (error: unknown) => error instanceof ServeConfigError && error.key === 'chain.accept_state_mismatch',
    );
  }
});
