import { createHash, hkdfSync, X509Certificate } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Quote } from '@phala/dcap-qvl';
import { assert, INTEL_SGX_ROOT_CA_PEM, TDX_QUOTE_BYTES_MAX, TDX_REPORT_DATA_BYTES } from '@venue/protocol';
import { TDX_ATTRIBUTE_WAIT_MS_MAX } from '../config/limits.ts';
import type { AttestationPlatform, PlatformEvidence } from './simulated-platform.ts';

/**
 * The Intel TDX attestation provider (docs/enclave.md section 9). Inside a TD the Linux kernel
 * exposes quote generation as a configfs TSM report directory: make an entry, write the 64-byte
 * report data to its `inblob`, read the quote from `outblob`. `provider` names the TEE (`tdx_guest`)
 * and `generation` counts writes, so a reader can tell that nobody rewrote `inblob` between its
 * write and its read. The report data is tdxReportDataOf(report): the hardware then signs, on the
 * venue's behalf, the digest of the report that binds the session, TLS key, code measurement,
 * settlement signer and sealing key.
 *
 * TDX has no hardware sealing. Until a key broker releases the sealing key only against a quote
 * with the expected registers (what remains to be done on hardware), the sealing key is derived as on
 * the simulated platform from an operator-held secret.
 */
export const TSM_REPORT_ROOT_DEFAULT = '/sys/kernel/config/tsm/report';
/** The entry this venue uses; reused across quotes and restarts (generation detects a concurrent writer). */
export const TSM_REPORT_ENTRY_DEFAULT = 'venue';
/** What `provider` reads on a TD. */
export const TSM_PROVIDER_TDX = 'tdx_guest';

/** The machine cannot produce TDX quotes: not a TD, configfs not mounted, or another TEE. */
export class TdxUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TdxUnavailableError';
  }
}

export interface TdxPlatformOptions {
  /** Stands in for a key broker: the secret the sealing key is derived from (keep it across restarts). */
  readonly sealingSecret: Uint8Array;
  /** The configfs TSM report directory; tests give a directory with a fake kernel side. */
  readonly configfsRoot?: string;
  readonly entryName?: string;
  /** PEM of the root the quotes chain to; Intel's SGX Root CA unless a test builds its own. */
  readonly rootCertificatePem?: string;
  readonly attributeWaitMsMax?: number;
}

/**
 * Refuses at once, with what to do, on a machine without the interface, and checks the provider is
 * TDX by creating the entry; the first quote is asked for when the enclave attests its report.
 */
export async function createTdxPlatform(options: TdxPlatformOptions): Promise<AttestationPlatform> {
  const root = options.configfsRoot ?? TSM_REPORT_ROOT_DEFAULT;
  const waitMsMax = options.attributeWaitMsMax ?? TDX_ATTRIBUTE_WAIT_MS_MAX;
  assert(options.sealingSecret.length === 32, 'sealingSecret must be 32 bytes');
  await checkTsmInterface(root);
  const entry = join(root, options.entryName ?? TSM_REPORT_ENTRY_DEFAULT);
  await mkdir(entry).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') {
      throw new TdxUnavailableError(
        `platform intel-tdx: cannot create the TSM report entry ${entry}: ${error.message}`,
        {
          cause: error,
        },
      );
    }
  });
  const provider = (await attribute(entry, 'provider', waitMsMax)).toString('utf8').trim();
  if (provider !== TSM_PROVIDER_TDX) {
    throw new TdxUnavailableError(
      `platform intel-tdx: the TSM provider of ${root} is "${provider}", not "${TSM_PROVIDER_TDX}": this is not an Intel TD`,
    );
  }
  const rootCertificate = new X509Certificate(options.rootCertificatePem ?? INTEL_SGX_ROOT_CA_PEM);
  const spki = rootCertificate.publicKey.export({ type: 'spki', format: 'der' });
  const fused = Buffer.from(options.sealingSecret);
  const quoteFor = (digest: Uint8Array) => requestQuote(entry, reportDataOf(digest), waitMsMax);
  return {
    platform: 'intel-tdx',
    rootPublicKey: spki.toString('hex'),
    rootKeyId: createHash('sha256').update(spki).digest('hex'),
    sealingKey: (measurement) =>
      new Uint8Array(
        hkdfSync('sha256', fused, Buffer.from(measurement, 'utf8'), 'venue enclave sealing key v1', 32),
      ),
    attest: async (digest) => {
      const quote = await quoteFor(digest);
      return { signature: quoteSignatureOf(quote), tdxQuote: quote };
    },
    recheck: async (digest, served) => sameTd(await quoteFor(digest), served),
  };
}

/** Refuses a machine without the configfs TSM report directory, saying what to do. */
export async function checkTsmInterface(root: string = TSM_REPORT_ROOT_DEFAULT): Promise<void> {
  try {
    if (!(await stat(root)).isDirectory()) throw new Error(`${root} is not a directory`);
  } catch (error) {
    throw new TdxUnavailableError(
      `platform intel-tdx: ${root} is missing, so this machine cannot produce TDX quotes (not a TD, a kernel without configfs-tsm, or configfs not mounted: mount -t configfs none /sys/kernel/config); run with platform.kind "simulated" off TDX hardware`,
      { cause: error },
    );
  }
}

/** The digest in the first 32 bytes, zeros after: tdxReportDataOf(report) for digest = sha256(report). */
function reportDataOf(digest: Uint8Array): Uint8Array {
  assert(digest.length === 32, 'the report digest is 32 bytes');
  const data = new Uint8Array(TDX_REPORT_DATA_BYTES);
  data.set(digest, 0);
  return data;
}

/**
 * One quote: note `generation`, write `inblob`, wait until `generation` has moved by exactly our
 * write, read `outblob`, and check `generation` did not move again while it was read.
 */
async function requestQuote(entry: string, reportData: Uint8Array, waitMsMax: number): Promise<Uint8Array> {
  const before = generationOf(await attribute(entry, 'generation', waitMsMax));
  await writeFile(join(entry, 'inblob'), reportData);
  const written = await waitFor(waitMsMax, `${entry}/generation to move past ${before}`, async () => {
    const now = generationOf(await readFile(join(entry, 'generation')));
    return now > before ? now : undefined;
  });
  const quote = new Uint8Array(await readFile(join(entry, 'outblob')));
  const after = generationOf(await readFile(join(entry, 'generation')));
  if (written !== before + 1 || after !== written) {
    throw new Error(
      `${entry} was written by someone else while the venue asked for its quote (generation ${before} to ${after}); no other process may use this entry`,
    );
  }
  if (quote.length === 0 || quote.length > TDX_QUOTE_BYTES_MAX) {
    throw new Error(
      `${entry}/outblob holds ${quote.length} bytes, not a TDX quote of at most ${TDX_QUOTE_BYTES_MAX}`,
    );
  }
  const parsed = parseQuote(quote);
  if (!Buffer.from(parsed.reportData).equals(Buffer.from(reportData))) {
    throw new Error(`${entry}/outblob is a quote for other report data than the venue wrote`);
  }
  return quote;
}

async function attribute(entry: string, name: string, waitMsMax: number): Promise<Buffer> {
  return waitFor(waitMsMax, `${entry}/${name}`, () => readFile(join(entry, name)).catch(() => undefined));
}

/** Polls `read` until it yields; on a TD it yields at the first call. */
async function waitFor<T>(waitMsMax: number, what: string, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + waitMsMax;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 50)) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new TdxUnavailableError(`platform intel-tdx: ${what} was not ready within ${waitMsMax} ms`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

function generationOf(text: Buffer): number {
  const value = Number(text.toString('utf8').trim());
  assert(Number.isSafeInteger(value) && value >= 0, 'the TSM generation attribute is a non-negative integer');
  return value;
}

interface ParsedTd {
  readonly reportData: Uint8Array;
  readonly registers: string;
  readonly signature: string;
}

/** The fields of a TDX quote the venue compares (the client verifies the rest with DCAP). */
export function parseQuote(quote: Uint8Array): ParsedTd {
  const parsed = Quote.parse(quote);
  const td = parsed.report.type === 'td15' ? parsed.report.asTd15()?.base : parsed.report.asTd10();
  if (td === null || td === undefined) throw new Error('the quote is not a TDX quote');
  return {
    reportData: td.reportData,
    registers: [td.mrTd, td.rtMr0, td.rtMr1, td.rtMr2, td.rtMr3]
      .map((r) => Buffer.from(r).toString('hex'))
      .join('/'),
    signature: Buffer.from(parsed.authData.intoV3().ecdsaSignature).toString('hex'),
  };
}

function quoteSignatureOf(quote: Uint8Array): string {
  return parseQuote(quote).signature;
}

/** A fresh quote vouches for the served one: same TD registers, same report data. */
function sameTd(fresh: Uint8Array, served: PlatformEvidence): boolean {
  if (served.tdxQuote === undefined) return false;
  const a = parseQuote(fresh);
  const b = parseQuote(served.tdxQuote);
  return a.registers === b.registers && Buffer.from(a.reportData).equals(Buffer.from(b.reportData));
}
