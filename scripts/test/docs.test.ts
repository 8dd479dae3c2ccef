// Checks that the generated parts of docs/ match the code they describe: the error catalogue and
// the canonical byte layouts. A stale page fails here; `npm run docs` rewrites them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { asyncApiDocument, ERRORS, openApiDocument, ROUTES } from '@venue/protocol';
import {
  ASYNCAPI_DOC,
  ERRORS_DOC,
  errorsMarkdown,
  jsonDocument,
  OPENAPI_DOC,
  PROTOCOL_DOC,
  protocolMarkdown,
} from '../generate-docs.ts';
import { SDK_INDEX, SDK_REFERENCE_DOC, sdkReferenceMarkdown } from '../generate-sdk-reference.ts';

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

test('docs/openapi.json and docs/asyncapi.json are generated from the current route catalogue', () => {
  assert.equal(readFileSync(OPENAPI_DOC, 'utf8'), jsonDocument(openApiDocument()), 'run `npm run docs`');
  assert.equal(readFileSync(ASYNCAPI_DOC, 'utf8'), jsonDocument(asyncApiDocument()), 'run `npm run docs`');
});

test('the OpenAPI document lists every route of the catalogue with its error statuses', () => {
  const doc = JSON.parse(readFileSync(OPENAPI_DOC, 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  for (const route of ROUTES) {
    const operation = doc.paths[route.path.replace(/:([a-z_]+)/g, '{$1}')]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path} is missing`);
    for (const name of route.errors)
      assert.ok(String(ERRORS[name].http) in operation.responses, `${route.path}: ${name}`);
  }
});

test('docs/sdk-reference.md documents every export of the SDK as the code declares it', () => {
  const text = readFileSync(SDK_REFERENCE_DOC, 'utf8');
  assert.equal(text, sdkReferenceMarkdown(), 'run `npm run docs` and commit docs/sdk-reference.md');
  // Every name the index exports has its own section (a name the walker skipped would be missing).
  const index = readFileSync(SDK_INDEX, 'utf8');
  for (const [, names] of index.matchAll(/export \{([^}]*)\}/g)) {
    for (const name of (names ?? '').split(',').map((n) => n.replace(/^\s*type\s+/, '').trim())) {
      if (name !== '') assert.match(text, new RegExp(`^### ${name}$`, 'm'), `${name} is not documented`);
    }
  }
});
