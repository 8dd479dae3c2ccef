import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * A development venue in its own process, started the way a reader starts it (`venue dev` from the
 * repository), for the tests that run examples and documents against it as separate programs.
 */
export const REPO_ROOT = resolve(import.meta.dirname, '../../..');
/** Generous: a healthy boot takes a few seconds, but 55 s was measured on a 2-core machine at load 18. */
const READY_TIMEOUT_MS = 180_000;

export interface DevVenueProcess {
  readonly restUrl: string;
  readonly chainRpcUrl: string;
  readonly stateDir: string;
  /** VENUE_URL, CHAIN_RPC and VENUE_STATE_DIR (the examples' settings), VENUE_CHAIN_RPC (the CLI's). */
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/** `stateDir`: where the venue writes its files (default: a fresh temporary folder). */
export async function startDevVenueProcess(
  stateDir = mkdtempSync(join(tmpdir(), 'venue-dev-')),
): Promise<DevVenueProcess> {
  const child = spawn(
    process.execPath,
    [
      join(REPO_ROOT, 'packages/cli/bin/venue.mjs'),
      'dev',
      '--port',
      '0',
      '--chain-port',
      '0',
      '--state-dir',
      stateDir,
    ],
    // A group of its own, so that a failed start or a stop takes everything it started along.
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const ready = await new Promise<{ rest_url: string; chain_rpc_url: string }>((done, fail) => {
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      fail(new Error(`venue dev not ready within ${READY_TIMEOUT_MS} ms; stderr:\n${err}`));
    }, READY_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('VENUE_READY '));
      if (line === undefined) return;
      clearTimeout(timer);
      done(JSON.parse(line.slice('VENUE_READY '.length)));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`venue dev exited with ${code} before it was ready; stderr:\n${err}`));
    });
  });
  return {
    restUrl: ready.rest_url,
    chainRpcUrl: ready.chain_rpc_url,
    stateDir,
    env: {
      VENUE_URL: ready.rest_url,
      CHAIN_RPC: ready.chain_rpc_url,
      VENUE_CHAIN_RPC: ready.chain_rpc_url,
      VENUE_STATE_DIR: stateDir,
    },
    stop: () => stopChild(child).finally(() => rmSync(stateDir, { recursive: true, force: true })),
  };
}

/** SIGTERM (the venue drains), SIGKILL after 10 s; then nothing of its group outlives it. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, 'SIGKILL');
    return Promise.resolve();
  }
  return new Promise((done) => {
    const kill = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      signalGroup(child, 'SIGKILL');
      done();
    });
    child.kill('SIGTERM');
  });
}

/** Signals the process group of a child started with `detached: true`. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // the whole group is gone already
  }
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program to its end and returns its exit code and output. After `timeoutMs` its whole
 * process group is killed (a `bash -c 'npx ...'` leaves the command behind otherwise, holding the
 * pipes open so that the run never ends) and stderr says so.
 */
export function runToEnd(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timeoutMs = options.timeoutMs ?? 180_000;
    const timer = setTimeout(() => {
      stderr += `\n(still running after ${timeoutMs} ms: its process group was killed)\n`;
      signalGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(timer);
      // Anything the program left in its group in the background goes with it.
      signalGroup(child, 'SIGKILL');
      done({ code, stdout, stderr });
    });
  });
}
