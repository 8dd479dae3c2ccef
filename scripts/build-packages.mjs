// Builds the published packages (protocol, notes, sdk, cli) to JavaScript with type declarations in
// each package's dist/. The workspace itself never needs this: it runs the TypeScript sources through
// tsx (the root tsconfig's `paths` point @venue/* at them). Order matters: each package is compiled
// against the declarations of the ones it imports, so a dependency is built before its dependents.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PUBLISHED_PACKAGES = ['protocol', 'notes', 'sdk', 'cli'];

const ROOT = resolve(import.meta.dirname, '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export function buildPackages() {
  for (const name of PUBLISHED_PACKAGES) {
    const dir = join(ROOT, 'packages', name);
    rmSync(join(dir, 'dist'), { recursive: true, force: true }); // no stale module survives a rename
    const result = spawnSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.build.json')], {
      cwd: dir,
      stdio: 'inherit',
    });
    if (result.status !== 0) throw new Error(`tsc failed for packages/${name} (exit ${result.status})`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) buildPackages();
