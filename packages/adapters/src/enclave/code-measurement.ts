import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The code measurement of this venue build: sha256 over every production source file of the
 * workspace (packages/{name}/src), each as its relative path, a zero byte, its length and its bytes,
 * in sorted path order. A real TEE measures the enclave image instead; what matters to a client is
 * the same: one hash that changes whenever the code does, to check against an allow-list.
 */
const PACKAGES_DIR = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|mjs|cjs|js)$/.test(entry)) found.push(path);
  }
  return found;
}

export function measureCode(packagesDir: string = PACKAGES_DIR): string {
  const hash = createHash('sha256');
  const files = readdirSync(packagesDir)
    .sort()
    .flatMap((pkg) => {
      const src = join(packagesDir, pkg, 'src');
      try {
        return statSync(src).isDirectory() ? sourceFiles(src) : [];
      } catch {
        return [];
      }
    })
    .sort();
  for (const file of files) {
    const bytes = readFileSync(file);
    const header = Buffer.from(`${relative(packagesDir, file)}\u0000${bytes.length}\u0000`, 'utf8');
    hash.update(header).update(bytes);
  }
  return hash.digest('hex');
}
