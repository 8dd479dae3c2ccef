/**
 * The `journal` key of `venue serve --config` (issue 22): absent, the journal stays in the state
 * directory; `jetstream` names the cluster, and every mistake names its key and what to fix.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseServeConfig, ServeConfigError } from '../src/serve/serve-config.ts';

const ROOT = join(import.meta.dirname, '../../..');
const FILE = '/etc/venue/venue.json';
const example = JSON.parse(readFileSync(join(ROOT, 'config/venue.example.json'), 'utf8')) as Record<
  string,
  unknown
>;

function parse(journal: unknown) {
  return parseServeConfig(JSON.stringify({ ...example, journal }), FILE);
}

describe('serve config: journal', () => {
  test('without the key, or with kind file, the journal is the state directory’s (no broker needed)', () => {
    assert.deepEqual(parseServeConfig(JSON.stringify(example), FILE).journal, { kind: 'file' });
    assert.deepEqual(parse({ kind: 'file' }).journal, { kind: 'file' });
  });

  test('jetstream: servers and defaults; a relative credentials file is relative to the config file', () => {
    const parsed = parse({
      kind: 'jetstream',
      servers: ['nats://10.0.0.1:4222', 'tls://10.0.0.2:4222'],
      credentials_file: 'secrets/venue.creds',
    }).journal;
    assert.deepEqual(parsed, {
      kind: 'jetstream',
      servers: ['nats://10.0.0.1:4222', 'tls://10.0.0.2:4222'],
      stream: 'venue',
      replicas: 3,
      credentialsFile: '/etc/venue/secrets/venue.creds',
      role: 'primary',
      lease: { ttlMs: 3000, renewEveryMs: 1000 },
    });
  });

  test('a standby names its role; everything else is as the primary has it', () => {
    const parsed = parse({ kind: 'jetstream', servers: ['nats://10.0.0.1:4222'], role: 'standby' }).journal;
    assert.equal(parsed.kind === 'jetstream' ? parsed.role : null, 'standby');
  });

  test('each mistake names its key', () => {
    const servers = ['nats://127.0.0.1:4222'];
    const cases: [unknown, string, RegExp][] = [
      [{ kind: 'kafka' }, 'journal.kind', /expected one of file, jetstream/],
      [{ kind: 'file', servers }, 'journal.servers', /unknown key/],
      [{ kind: 'jetstream' }, 'journal.servers', /array of 1 to 16/],
      [{ kind: 'jetstream', servers: ['http://x:1'] }, 'journal.servers[0]', /nats:\/\/10\.0\.0\.1:4222/],
      [{ kind: 'jetstream', servers, stream: 'a.b' }, 'journal.stream', /letters, digits/],
      [{ kind: 'jetstream', servers, replicas: 2 }, 'journal.replicas', /1, 3 or 5/],
      [{ kind: 'jetstream', servers, role: 'follower' }, 'journal.role', /primary, standby/],
      [
        { kind: 'jetstream', servers, lease: { ttl_ms: 1000, renew_ms: 800 } },
        'journal.lease.renew_ms',
        /half/,
      ],
      [{ kind: 'jetstream', servers, lease: { ttl: 1 } }, 'journal.lease.ttl', /unknown key/],
    ];
    for (const [journal, key, message] of cases) {
      assert.throws(
        () => parse(journal),
        (error: unknown) => error instanceof ServeConfigError && error.key === key && message.test(error.fix),
        `${JSON.stringify(journal)} should be refused at ${key}`,
      );
    }
  });
});
