import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { jsonText } from './output.ts';

/**
 * The ready line of a command that keeps running (`chain start`, `oracle publish`): one JSON line
 * `{"ready": {...}}` on stdout, and with `--ready-file` the same object written to a file first, so
 * a script that saw the line can read the file at once. `serve` prints its ready line as one of its
 * JSON log lines (a `ready` field) and writes the file with writeReadyFile. The values are public:
 * URLs, public keys, file names.
 */
export function announceReady(
  ready: Record<string, unknown>,
  readyFile: string | undefined,
  stdout: (text: string) => void,
): void {
  if (readyFile !== undefined) writeReadyFile(ready, readyFile);
  stdout(`${JSON.stringify({ ready }, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`);
}

/** Writes `ready` to `readyFile` whole, through a rename, so a reader never sees half of it. */
export function writeReadyFile(ready: Record<string, unknown>, readyFile: string): void {
  const file = resolve(readyFile);
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  writeFileSync(partial, `${jsonText(ready)}\n`);
  renameSync(partial, file);
}
