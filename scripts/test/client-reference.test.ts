// docs/client-reference.md states byte layouts and input lists that a client written from the
// documents relies on; this test reads them back from the page and compares them with the code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import {
  ATTESTATION_DOMAIN,
  ATTESTATION_PLATFORMS,
  ATTESTATION_REPORT_LAYOUT,
  DepositRequestSchema,
  MergeRequestSchema,
  WithdrawRequestSchema,
} from '@venue/protocol';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGE = readFileSync(join(ROOT, 'docs/client-reference.md'), 'utf8');

/** The rows of the first table after `heading`, as arrays of trimmed cells (header row dropped). */
function tableAfter(heading: string): string[][] {
  const from = PAGE.indexOf(heading);
  assert.ok(from >= 0, `docs/client-reference.md has no "${heading}"`);
  const lines = PAGE.slice(from).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows.slice(2);
}

const unquote = (cell: string) => cell.replaceAll('`', '');

test('the attestation report table is the layout the venue signs, to the byte', () => {
  const rows = tableAfter("## 5. The attestation report's signed bytes");
  assert.equal(rows.length, ATTESTATION_REPORT_LAYOUT.fields.length);
  ATTESTATION_REPORT_LAYOUT.fields.forEach((field, i) => {
    const [offset, bytes, name] = rows[i] ?? [];
    assert.equal(Number(offset), field.offset, `${field.name} offset`);
    assert.equal(unquote(name ?? ''), field.name, `row ${i} names ${field.name}`);
    const next = ATTESTATION_REPORT_LAYOUT.fields[i + 1]?.offset ?? ATTESTATION_REPORT_LAYOUT.size;
    assert.equal(Number(bytes), next - field.offset, `${field.name} width`);
  });
  assert.match(PAGE, new RegExp(`these ${ATTESTATION_REPORT_LAYOUT.size} bytes`));
  assert.match(PAGE, new RegExp(`the ASCII text \`${ATTESTATION_DOMAIN}\`, then one zero byte`));
  assert.match(PAGE, new RegExp(ATTESTATION_PLATFORMS.map((p) => `\`${p}\``).join(', ')));
});

test('the VALID_INPUT table lists the circuit inputs in declaration order, with their sizes', () => {
  const circuit = readFileSync(join(ROOT, 'packages/notes/circuits/valid_input.circom'), 'utf8');
  const depth = Number(/ValidInput\((\d+)\);/.exec(circuit)?.[1]);
  const template = circuit.slice(circuit.indexOf('template ValidInput'));
  const inputs = [...template.matchAll(/signal input (\w+)(\[depth\])?;/g)].map((m) => ({
    name: m[1] ?? '',
    count: m[2] === undefined ? 1 : depth,
  }));
  const rows = tableAfter('## 6. The VALID_INPUT proof a place carries');
  assert.deepEqual(
    rows.map(([name, , count]) => ({ name: unquote(name ?? ''), count: Number(count) })),
    inputs,
  );
  // The witness wires the page gives follow from that order (wire 0 is the constant 1).
  const wires = new Map<string, number>();
  let wire = 1;
  for (const input of inputs) {
    wires.set(input.name, wire);
    wire += input.count;
  }
  assert.match(PAGE, new RegExp(`wires 10 to ${(wires.get('path_bits') ?? 0) - 1}\\s+\`path_siblings`));
  assert.match(PAGE, new RegExp(`wires ${wires.get('path_bits')} to ${wire - 1} \`path_bits`));
});

test("the chain actions' parameters are the request schemas' fields", () => {
  const rows = new Map(
    tableAfter("## 7. The chain's note actions").map((row) => [unquote(row[0] ?? ''), row[1] ?? '']),
  );
  for (const [method, schema] of [
    ['deposit', DepositRequestSchema],
    ['withdraw', WithdrawRequestSchema],
    ['merge', MergeRequestSchema],
  ] as const) {
    const cell = rows.get(method);
    assert.ok(cell !== undefined, `a row for ${method}`);
    for (const field of Object.keys(schema.properties)) {
      assert.ok(cell.includes(`\`${field}\``), `${method} names ${field}`);
    }
  }
  const authority = readFileSync(join(ROOT, 'packages/notes/src/spend-authority.ts'), 'utf8');
  const tag = /SPEND_AUTHORITY_TAG = '([^']+)\\u0000'/.exec(authority)?.[1];
  assert.ok(tag !== undefined && PAGE.includes(`the ASCII text \`${tag}\`, one\nzero byte`));
});
