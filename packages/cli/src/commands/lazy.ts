import { createRequire } from 'node:module';
import type { SingleBar } from 'cli-progress';
import type Table from 'cli-table3';

/**
 * The heavy libraries, loaded when a command first needs them rather than when the CLI starts:
 * the SDK pulls in the protocol schemas and the proving stack (snarkjs, circomlibjs), which cost
 * far more than printing `venue --help` or `venue --version` should (bench `cli-start`). Command
 * modules import only types from them at the top and call these inside their actions.
 */
export const loadSdk = () => import('@venue/sdk');
export const loadNotes = () => import('@venue/notes');
export const loadTokenCache = () => import('./token-cache.ts');

const require = createRequire(import.meta.url);

/** cli-table3 (CommonJS), for the one call that draws a table. */
export function tableClass(): typeof Table {
  return require('cli-table3') as typeof Table;
}

/** cli-progress's bar (CommonJS), for the commands that show one. */
export function progressBarClass(): typeof SingleBar {
  return (require('cli-progress') as { SingleBar: typeof SingleBar }).SingleBar;
}
