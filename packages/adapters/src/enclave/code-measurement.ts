import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assert,
  type CodeEvidenceManifest,
  codeEvidenceManifestOf,
  MEASURED_FILES_MAX,
  type MeasuredFile,
} from '@venue/protocol';
import { CODE_SNAPSHOT_BYTES_MAX } from '../config/limits.ts';

/**
 * The code measurement of this venue build (docs/enclave.md): the protocol's codeMeasurementOf over
 * - every production source file of the workspace (`packages/{name}/src/**`, .ts .mjs .cjs .js),
 * - each package's `package.json` (entry points, declared dependencies), and
 * - the root `package.json` and `package-lock.json`, whose integrity hashes pin every third-party
 *   package the venue loads.
 * The proving artifacts are covered through `packages/notes/src/artifacts-pinned.ts`: the loader
 * refuses an artifact whose sha256 differs from the pinned one. A real TEE measures its image
 * instead; what a client needs is the same: one hash that changes whenever the code does.
 *
 * The files are read once, at boot, and kept: the evidence served under /evidences is exactly the
 * bytes that were hashed, even if someone edits the checkout while the venue runs.
 */
const WORKSPACE_DIR = fileURLToPath(new URL('../../../../', import.meta.url));

const SOURCE_FILE = /\.(ts|mjs|cjs|js)$/;
const ROOT_FILES = ['package.json', 'package-lock.json'] as const;

export interface CodeSnapshot {
  readonly measurement: string;
  readonly manifest: CodeEvidenceManifest;
  /** Workspace-relative path to the bytes that were measured. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

function sourceFiles(dir: string, prefix: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path, `${prefix}/${entry}`));
    else if (SOURCE_FILE.test(entry)) found.push(`${prefix}/${entry}`);
  }
  return found;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Workspace-relative paths of everything measured, in no particular order. */
export function measuredPaths(workspaceDir: string = WORKSPACE_DIR): string[] {
  const paths: string[] = ROOT_FILES.filter((name) => isFile(join(workspaceDir, name)));
  const packagesDir = join(workspaceDir, 'packages');
  for (const pkg of isDirectory(packagesDir) ? readdirSync(packagesDir).sort() : []) {
    if (isFile(join(packagesDir, pkg, 'package.json'))) paths.push(`packages/${pkg}/package.json`);
    const src = join(packagesDir, pkg, 'src');
    if (isDirectory(src)) paths.push(...sourceFiles(src, `packages/${pkg}/src`));
  }
  return paths;
}

export function snapshotCode(workspaceDir: string = WORKSPACE_DIR): CodeSnapshot {
  const paths = measuredPaths(workspaceDir);
  assert(paths.length <= MEASURED_FILES_MAX, `the workspace has more than ${MEASURED_FILES_MAX} files`);
  const measured: MeasuredFile[] = [];
  let total = 0;
  for (const path of paths) {
    const bytes = new Uint8Array(readFileSync(join(workspaceDir, path)));
    total += bytes.length;
    assert(total <= CODE_SNAPSHOT_BYTES_MAX, `the measured code exceeds ${CODE_SNAPSHOT_BYTES_MAX} bytes`);
    measured.push({ path, bytes });
  }
  const manifest = codeEvidenceManifestOf(measured);
  return {
    measurement: manifest.measurement,
    manifest,
    files: new Map(measured.map((file) => [file.path, file.bytes])),
  };
}

export function measureCode(workspaceDir: string = WORKSPACE_DIR): string {
  return snapshotCode(workspaceDir).measurement;
}
