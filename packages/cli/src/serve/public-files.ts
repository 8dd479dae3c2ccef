import { mkdir, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { BootIdentityOptions } from '@venue/adapters';
import { CERT_FILE_NAME, PLATFORM_FILE_NAME } from '../dev/dev-defaults.ts';

/**
 * What `venue dev` and `venue serve` both publish for clients: this boot's certificate and the
 * attestation trust anchor (platform root and measurement), public values only, each written to a
 * temporary name and renamed so a reader never sees half a file. Also the certificate names and
 * URL host for the address the venue listens on.
 */

export { CERT_FILE_NAME, PLATFORM_FILE_NAME };

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', '::1', 'localhost']);

/** Certificate names for `host`: loopback always, plus the host itself when it is another name. */
export function identityNamesFor(host: string): BootIdentityOptions {
  const extraName = WILDCARD_HOSTS.has(host) || LOOPBACK_NAMES.has(host) ? undefined : host;
  if (extraName === undefined) return {};
  return isIP(extraName) !== 0
    ? { ipAddresses: ['127.0.0.1', '::1', extraName] }
    : { dnsNames: ['localhost', extraName] };
}

/** The host as it goes into a URL: wildcards are reached on loopback, IPv6 literals are bracketed. */
export function urlHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return '127.0.0.1';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The attestation trust anchor of this boot: public values only. */
export async function writePlatformRoot(dir: string, root: Record<string, string>): Promise<string> {
  return writePublic(dir, PLATFORM_FILE_NAME, `${JSON.stringify(root, null, 2)}\n`);
}

export async function writePublicCertificate(dir: string, certPem: string): Promise<string> {
  return writePublic(dir, CERT_FILE_NAME, certPem);
}

async function writePublic(dir: string, name: string, text: string): Promise<string> {
  const folder = resolve(dir);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, name);
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, text, { mode: 0o644 });
  await rename(partial, file);
  return file;
}
