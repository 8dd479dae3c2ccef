// Builds the operator console (packages/console) into packages/console/dist, which the venue serves
// at /console/. The build output is not committed: `npm start` (prestart), `npm run build` and the
// test runner call this, and it rebuilds only when the console's sources changed since the last
// build (a hash of them is kept next to the output), so a fresh clone and CI always serve a console
// that matches its source, and an unchanged one costs a few file reads.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
export const CONSOLE_DIR = join(ROOT, 'packages', 'console');
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');
const STAMP = join(CONSOLE_DIST, '.source-hash');

function filesUnder(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((entry) => filesUnder(join(path, entry)));
}

/** Everything the build reads from the repository, and the bundler's version. */
export function consoleSourceHash() {
  const hash = createHash('sha256');
  const inputs = ['index.html', 'vite.config.ts', 'package.json', 'src'].map((name) =>
    join(CONSOLE_DIR, name),
  );
  for (const file of inputs.flatMap(filesUnder).sort()) {
    hash.update(relative(CONSOLE_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vite', 'package.json'), 'utf8')).version);
  return hash.digest('hex');
}

/** Builds unless the output matches the sources; returns whether it built. */
export async function ensureConsoleBuilt({ force = false } = {}) {
  const wanted = consoleSourceHash();
  if (!force && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === wanted) return false;
  console.log('build-console: building packages/console into packages/console/dist');
  const { build } = await import('vite');
  await build({ root: CONSOLE_DIR, configFile: join(CONSOLE_DIR, 'vite.config.ts'), logLevel: 'warn' });
  writeFileSync(STAMP, wanted);
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await ensureConsoleBuilt({ force: process.argv.includes('--force') });
}
