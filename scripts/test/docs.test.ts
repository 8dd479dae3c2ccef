// Checks that the generated parts of docs/ match the code they describe: the error catalogue and
// the canonical byte layouts. A stale page fails here; `npm run docs` rewrites them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS } from '@venue/protocol';
import { ERRORS_DOC, errorsMarkdown, PROTOCOL_DOC, protocolMarkdown } from '../generate-docs.ts';

test('docs/errors.md is the catalogue as the code defines it', () => {
  assert.equal(
    readFileSync(ERRORS_DOC, 'utf8'),
    errorsMarkdown(),
    'run `npm run docs` and commit docs/errors.md',
  );
});

test('docs/errors.md lists every code, including the two the spec fixes', () => {
  const text = readFileSync(ERRORS_DOC, 'utf8');
  for (const { code } of Object.values(ERRORS)) assert.match(text, new RegExp(`\\| ${code} \\|`));
  assert.match(text, /\| 1102 \| 403 \| `BAD_SIGNATURE`/);
  assert.match(text, /\| 1402 \| 503 \| `AUTH_AT_CAPACITY`/);
});

test('the byte layouts in docs/protocol.md are the ones the encoder uses', () => {
  const text = readFileSync(PROTOCOL_DOC, 'utf8');
  assert.equal(text, protocolMarkdown(text), 'run `npm run docs` and commit docs/protocol.md');
  assert.match(text, /Total: 595 bytes\./);
});
