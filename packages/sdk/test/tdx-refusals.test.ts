// Every refusal the pinned DCAP library (@phala/dcap-qvl) can raise has its own SDK reason: the
// test reads the library's verification sources and fails when a version bump brings a message the
// reason table does not know, instead of letting it fall through to a generic reason unnoticed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { DCAP_REFUSALS, dcapRefusalOf } from '../src/tdx/dcap-refusals.ts';

const LIBRARY_DIR = dirname(createRequire(import.meta.url).resolve('@phala/dcap-qvl'));

test("every message the library's verifier throws maps to a reason of its own", () => {
  const messages = ['verify.js', 'utils.js'].flatMap((file) =>
    [...readFileSync(join(LIBRARY_DIR, file), 'utf8').matchAll(/throw new Error\([`'"]([^`'"$]+)/g)].map(
      (m) => m[1] as string,
    ),
  );
  assert.ok(messages.length > 40, `read ${messages.length} messages; did the library's layout change?`);
  const unknown = messages.filter((message) => !DCAP_REFUSALS.some(([prefix]) => message.startsWith(prefix)));
  assert.deepEqual(unknown, [], 'messages without a reason: add them to DCAP_REFUSALS');
});

test('a message nobody listed is a malformed quote, never a pass', () => {
  assert.equal(dcapRefusalOf('error:0680007B:asn1 encoding routines::header too long'), 'malformed_quote');
  assert.equal(dcapRefusalOf('Certificate is revoked'), 'certificate_revoked');
  assert.equal(dcapRefusalOf('TCB status is invalid: Revoked'), 'tcb_status_refused');
});
