import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type DevVenueProcess, REPO_ROOT, runToEnd, startDevVenueProcess } from './dev-venue-process.ts';

/**
 * The published packages work outside this repository: protocol, notes, sdk and cli are packed with
 * `npm pack` (scripts/run-tests.mjs builds their dist/ first), installed from the tarballs into an
 * empty folder under the system's temporary directory (their third-party dependencies come from the
 * npm registry or its local cache), and examples/first-trade.mjs runs there with plain `node`, no
 * TypeScript loader, against a dev venue: attest, log in, deposit, place, read the fill memo, cancel.
 */
const PUBLISHED = ['protocol', 'notes', 'sdk', 'cli'];

let app: string;
let venue: DevVenueProcess | undefined;
let packed: Array<{ name: string; filename: string; files: Array<{ path: string }> }>;

before(async () => {
  app = mkdtempSync(join(tmpdir(), 'venue-pack-app-'));
  const starting = startDevVenueProcess();
  starting.catch(() => {}); // reported by the await below
  const tarballs = join(app, 'tarballs');
  mkdirSync(tarballs);
  const pack = await runToEnd(
    'npm',
    [
      'pack',
      '--json',
      '--ignore-scripts',
      '--pack-destination',
      tarballs,
      ...PUBLISHED.flatMap((p) => ['-w', `packages/${p}`]),
    ],
    { cwd: REPO_ROOT },
  );
  assert.equal(pack.code, 0, pack.stderr);
  packed = JSON.parse(pack.stdout);
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'venue-pack-app', private: true, type: 'module' })}\n`,
  );
  const install = await runToEnd(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--ignore-scripts',
      ...packed.map((p) => join(tarballs, p.filename)),
    ],
    { cwd: app, timeoutMs: 300_000 },
  );
  assert.equal(install.code, 0, `npm install of the tarballs failed:\n${install.stderr}`);
  venue = await starting;
});

after(async () => {
  await venue?.stop();
  rmSync(app, { recursive: true, force: true });
});

test('each tarball holds JavaScript, declarations and what it needs at run time, never the TypeScript sources', () => {
  const files = (name: string) =>
    new Set(packed.find((p) => p.name === `@venue/${name}`)?.files.map((f) => f.path));
  for (const name of PUBLISHED) {
    const contents = files(name);
    assert.ok(contents.has('dist/index.js') && contents.has('dist/index.d.ts'), `@venue/${name} ships dist/`);
    assert.ok(![...contents].some((path) => path.startsWith('src/')), `@venue/${name} ships no src/`);
  }
  // The SDK proves VALID_INPUT (orders) and VALID_SPEND (withdrawals) with the notes package's artifacts.
  for (const artifact of [
    'valid_input.wasm',
    'valid_input.zkey',
    'valid_spend.wasm',
    'valid_spend.zkey',
    'witness_calculator.cjs',
  ]) {
    assert.ok(files('notes').has(`artifacts/${artifact}`), `@venue/notes ships artifacts/${artifact}`);
  }
  assert.ok(files('cli').has('bin/venue.mjs'));
});

test('an example run with plain node from the installed packages attests, trades, sees its fill and cancels', async () => {
  assert.ok(venue !== undefined);
  for (const file of ['first-trade.mjs', 'dev-venue.mjs'])
    copyFileSync(join(REPO_ROOT, 'examples', file), join(app, file));
  const run = await runToEnd(process.execPath, ['first-trade.mjs'], {
    cwd: app,
    env: { ...venue.env, TRADERS_DIR: join(app, 'traders'), NODE_OPTIONS: '' },
  });
  assert.equal(run.code, 0, `first-trade.mjs failed:\n${run.stdout}\n${run.stderr}`);
  const summary = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
  assert.equal(summary.example, 'first-trade');
  assert.ok(BigInt(summary.fill_quantity) > 0n, 'alice received a fill memo');
  assert.equal(summary.cancel, 'cancelled');
});

test('the installed CLI answers --version, and says where `venue dev` runs instead of crashing', async () => {
  const bin = join(app, 'node_modules', '.bin', 'venue');
  const version = await runToEnd(bin, ['--version'], { cwd: app });
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\s*$/);
  const dev = await runToEnd(bin, ['dev'], { cwd: app });
  assert.equal(dev.code, 1);
  assert.match(dev.stderr, /not part of the installed CLI/);
});

test('the declarations type-check a client written against the installed packages', async () => {
  writeFileSync(
    join(app, 'client.ts'),
    [
      "import { connectVenue, KeyFile, nominalCost, type TrustAnchors, type VenueClient } from '@venue/sdk';",
      "import { createValidInputProver } from '@venue/notes';",
      "import { ERRORS } from '@venue/protocol';",
      'export async function open(url: string, trust: TrustAnchors): Promise<VenueClient> {',
      '  const keys: KeyFile = await KeyFile.load("key.json");',
      '  void keys; void createValidInputProver; void ERRORS; void nominalCost;',
      '  return connectVenue({ url, trust });',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
      },
      files: ['client.ts'],
    }),
  );
  const tsc = await runToEnd(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', app],
    { cwd: app },
  );
  assert.equal(tsc.code, 0, `tsc in the installed folder failed:\n${tsc.stdout}${tsc.stderr}`);
});
