/**
 * `venue --version` and `venue --help`: how long a person waits for the CLI to answer (issue 24
 * asks for under 300 ms). Each figure is a fresh process, timed from spawn to exit:
 *   - built: the published CLI, `node packages/cli/dist/main.js` (what `npm install @venue/cli`
 *     runs; built first if dist/ is missing), against the baseline
 *   - workspace: the repository's `bin/venue.mjs`, which compiles the TypeScript sources through tsx
 *     on every start (the 1.6 s the issue measured).
 * Plain `node -e 0` is the floor any Node CLI pays on this machine; each built figure is printed a
 * second time beside it, so the ratio says what the CLI itself adds.
 * Then what every command that opens a key file or a wallet pays first, the note hasher (D144): the
 * built `loadNoteHasher` (the prebuilt Poseidon module) against circomlibjs building the same
 * Poseidon at run time, each a fresh process hashing once; and `venue keys show` on the built CLI,
 * which reads a key file and derives its owner commitment.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Figure, figure, type Sampled, summarise } from './harness.ts';

const ROOT = resolve(import.meta.dirname, '..');
const BUILT = join(ROOT, 'packages/cli/dist/main.js');
const WORKSPACE = join(ROOT, 'packages/cli/bin/venue.mjs');

/** Poseidon(1, 2), circomlib's published vector: both hashers must print it. */
const POSEIDON_1_2 = '115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a';
const HASHER_PREBUILT = `const { loadNoteHasher } = await import(${JSON.stringify(
  pathToFileURL(join(ROOT, 'packages/notes/dist/hash.js')).href,
)});
const hex = (await loadNoteHasher()).poseidon([1n, 2n]).toString(16);
if (hex !== '${POSEIDON_1_2}') throw new Error(hex);`;
const HASHER_CIRCOMLIBJS = `const { buildPoseidon } = await import(${JSON.stringify(
  pathToFileURL(join(ROOT, 'node_modules/circomlibjs/src/poseidon_wasm.js')).href,
)});
const poseidon = await buildPoseidon();
const hex = poseidon.F.toObject(poseidon([1n, 2n])).toString(16);
if (hex !== '${POSEIDON_1_2}') throw new Error(hex);`;

function wallMs(args: readonly string[], runs: number, cwd = ROOT): Sampled {
  const samples: number[] = [];
  for (let run = 0; run <= runs; run += 1) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, [...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    if (run > 0) samples.push(ms); // the first run warms the file cache
  }
  return summarise(samples);
}

export async function run(quick: boolean): Promise<Figure[]> {
  if (!existsSync(BUILT)) {
    process.stderr.write('cli-start: building the published packages first\n');
    const { buildPackages } = (await import('../scripts/build-packages.mjs')) as {
      buildPackages: () => void;
    };
    buildPackages();
  }
  const runs = quick ? 3 : 7;
  const figures: Figure[] = [];
  // Node's own start, measured first in the same run: what the built CLI adds above it is its own cost.
  const floor = wallMs(['-e', '0'], runs);
  figures.push(figure('cli-start', 'node_empty_process', 'ms', 'lower', floor, null));
  const nodeStart = { name: 'node_empty_process', value: Math.round(floor.median) };
  for (const flag of ['--version', '--help']) {
    const name = flag.slice(2);
    const workspace = wallMs([WORKSPACE, flag], runs);
    const built = wallMs([BUILT, flag], runs);
    figures.push(
      figure('cli-start', `built_dist_${name}`, 'ms', 'lower', built, {
        name: `workspace_tsx_${name}`,
        value: Math.round(workspace.median),
      }),
      // The same samples beside node's start: the ratio is how many node starts `venue <flag>` costs.
      figure('cli-start', `built_dist_${name}_vs_node`, 'ms', 'lower', built, nodeStart),
    );
  }
  const circomlibjs = wallMs(['--input-type=module', '-e', HASHER_CIRCOMLIBJS], runs);
  figures.push(
    figure(
      'cli-start',
      'note_hasher_prebuilt_module_process',
      'ms',
      'lower',
      wallMs(['--input-type=module', '-e', HASHER_PREBUILT], runs),
      { name: 'circomlibjs_run_time_build_process', value: Math.round(circomlibjs.median) },
    ),
  );
  // A key file in a folder of its own: `keys show` reads it (owner-only) and prints public parts.
  const folder = mkdtempSync(join(tmpdir(), 'cli-start-'));
  try {
    const keyFile = join(folder, 'key.json');
    const made = spawnSync(process.execPath, [BUILT, '--key-file', keyFile, 'keys', 'generate'], {
      cwd: folder,
    });
    if (made.status !== 0) throw new Error(`keys generate exited ${made.status}: ${made.stderr}`);
    const show = wallMs([BUILT, '--key-file', keyFile, 'keys', 'show'], runs, folder);
    figures.push(figure('cli-start', 'built_dist_keys_show_vs_node', 'ms', 'lower', show, nodeStart));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return figures;
}
