import type { AttestationError, VenueApiError } from '@venue/sdk';
import { progressBarClass, tableClass } from './lazy.ts';

/**
 * How commands print: tables and short lines for people, or one JSON document per result with
 * `--json` for scripts (u64 values as decimal strings, so no precision is lost). Data goes to
 * stdout; progress and errors go to stderr, so a script can pipe stdout alone.
 */

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress bars are drawn only there). */
  readonly interactive: boolean;
}

export const PROCESS_IO: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

export class Output {
  readonly json: boolean;
  readonly io: CliIo;

  constructor(io: CliIo, json: boolean) {
    this.io = io;
    this.json = json;
  }

  /** A result: JSON with --json, else the human `text` (lines). */
  result(value: unknown, text: () => string): void {
    this.io.stdout(this.json ? `${jsonText(value)}\n` : `${text()}\n`);
  }

  /** A list: JSON array with --json, else a table of `columns` (header -> cell of a row). */
  table<T>(rows: readonly T[], columns: Record<string, (row: T) => string>, empty: string): void {
    if (this.json) {
      this.io.stdout(`${jsonText(rows)}\n`);
      return;
    }
    if (rows.length === 0) {
      this.io.stdout(`${empty}\n`);
      return;
    }
    const Table = tableClass();
    const table = new Table({ head: Object.keys(columns), style: { head: [], border: [] } });
    for (const row of rows) table.push(Object.values(columns).map((cell) => cell(row)));
    this.io.stdout(`${table.toString()}\n`);
  }

  /** A progress bar on stderr for long work; silent when stderr is not a terminal or with --json. */
  progress(label: string): { update(done: number, total: number): void; stop(): void } {
    if (this.json || !this.io.interactive) return { update() {}, stop() {} };
    const SingleBar = progressBarClass();
    const bar = new SingleBar({ format: `${label} [{bar}] {value}/{total}`, stream: process.stderr });
    let started = false;
    return {
      update(done, total) {
        if (!started) bar.start(total, done);
        started = true;
        bar.setTotal(total);
        bar.update(done);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
}

/** JSON for scripts: bigint as a decimal string. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2);
}

/** A failure the user can act on: printed as one line, exit status 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * One line per failure, saying what failed. A venue refusal shows the venue's code and message
 * (and the request id to quote to the operator); with --json the same fields go out as JSON.
 */
export function describeFailure(error: unknown, json: boolean): string {
  if (isNamed<VenueApiError>(error, 'VenueApiError')) {
    if (json) {
      return `${jsonText({ error: { code: error.code, status: error.status, message: error.message, request_id: error.requestId ?? null } })}\n`;
    }
    const where = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    return `venue: error ${error.code} (HTTP ${error.status}): ${error.message}${where}\n`;
  }
  const message = error instanceof Error ? error.message : String(error);
  const kind = isNamed<AttestationError>(error, 'AttestationError') ? error.failure : 'cli';
  if (json) return `${jsonText({ error: { kind, message } })}\n`;
  const code = (error as NodeJS.ErrnoException).code;
  const hint =
    code === 'EADDRINUSE' ? ' (another process holds the port; pass --port 0 to pick a free one)' : '';
  return `venue: ${message}${hint}\n`;
}

/**
 * The SDK's error classes, recognised by name: this module must not load the SDK just to describe a
 * failure (lazy.ts), and the SDK sets each class's `name`.
 */
function isNamed<T extends Error>(error: unknown, name: string): error is T {
  return error instanceof Error && error.name === name;
}
