import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type AttestationPlatform,
  checkTsmInterface,
  createSimulatedPlatform,
  createTdxPlatform,
} from '@venue/adapters';
import { generateTradingKey, seedOf, tradingKeyFromSeed } from '@venue/protocol';
import type { ServeConfig } from './serve-config.ts';

/**
 * The simulated attestation platform of a served venue, kept across restarts. A real TEE keeps its
 * root key and fused secret in hardware; here both live in one owner-only file that the operator
 * keeps outside the state directory (the state is sealed under a key derived from the secret, so
 * losing the file loses the state, and a copy of it opens the state). Created on first start with
 * O_EXCL, never overwritten.
 */
export const PLATFORM_SECRET_FORMAT = 'venue-simulated-platform-v1';

/**
 * The configured platform. On `intel-tdx` the secret file's fused secret seeds the sealing key (a
 * key broker's job on real hardware, docs/enclave.md section 9) and its root seed is unused; a
 * machine without the configfs TSM interface is refused here, before anything else opens.
 */
export async function openPlatform(
  config: ServeConfig['platform'],
): Promise<{ platform: AttestationPlatform; created: boolean }> {
  if (config.kind === 'intel-tdx') await checkTsmInterface(config.configfsRoot);
  const simulated = loadOrCreatePlatform(config.secretFile);
  if (config.kind === 'simulated') return simulated;
  const secret = JSON.parse(readFileSync(config.secretFile, 'utf8')) as { fused_secret: string };
  const rootCertificatePem =
    config.rootCertificateFile === null ? undefined : await readFile(config.rootCertificateFile, 'utf8');
  const platform = await createTdxPlatform({
    sealingSecret: Buffer.from(secret.fused_secret, 'hex'),
    configfsRoot: config.configfsRoot,
    ...(rootCertificatePem === undefined ? {} : { rootCertificatePem }),
  });
  return { platform, created: simulated.created };
}

export function loadOrCreatePlatform(file: string): { platform: AttestationPlatform; created: boolean } {
  let created = false;
  try {
    statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    create(file);
    created = true;
  }
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new Error(
      `platform.secret_file ${file} is open to other users (mode ${mode.toString(8)}); run chmod 600 on it`,
    );
  }
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const root = json['root_seed'];
  const secret = json['fused_secret'];
  if (
    json['format'] !== PLATFORM_SECRET_FORMAT ||
    typeof root !== 'string' ||
    typeof secret !== 'string' ||
    !/^[0-9a-f]{64}$/.test(root) ||
    !/^[0-9a-f]{64}$/.test(secret)
  ) {
    throw new Error(
      `platform.secret_file ${file}: not a ${PLATFORM_SECRET_FORMAT} file (root_seed and fused_secret, 64 hex each)`,
    );
  }
  const platform = createSimulatedPlatform(
    tradingKeyFromSeed(Buffer.from(root, 'hex')),
    Buffer.from(secret, 'hex'),
  );
  return { platform, created };
}

function create(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify({
    format: PLATFORM_SECRET_FORMAT,
    root_seed: Buffer.from(seedOf(generateTradingKey())).toString('hex'),
    fused_secret: randomBytes(32).toString('hex'),
  })}\n`;
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
