import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The kernel side of the configfs TSM report interface, for a TD-less machine: a plain directory
 * the venue's TDX platform is pointed at, and a small poller that plays the kernel. For every entry
 * directory the venue makes it adds `provider` and `generation`; for every 64-byte `inblob` written
 * it writes `outblob` (the quote `quoteFor` builds for that report data) and then bumps `generation`,
 * which is how the reader knows the quote is ready. The real kernel does all this synchronously
 * inside the writes and reads; the producer's code is the same for both.
 */
export interface FakeTsm {
  readonly root: string;
  /** Quotes written so far. */
  readonly quotes: number;
  /** Replace how quotes are built (say, the TD's registers changed under the venue). */
  setQuoteFor(quoteFor: (reportData: Uint8Array) => Uint8Array): void;
  stop(): void;
}

export const FAKE_TSM_POLL_MS = 2;

export function startFakeTsm(
  root: string,
  quoteFor: (reportData: Uint8Array) => Uint8Array,
  options: { readonly provider?: string } = {},
): FakeTsm {
  mkdirSync(root, { recursive: true });
  let build = quoteFor;
  let quotes = 0;
  const tick = () => {
    for (const name of readdirSync(root)) {
      const entry = join(root, name);
      if (!statSync(entry).isDirectory()) continue;
      if (!existsSync(join(entry, 'generation'))) {
        put(join(entry, 'provider'), `${options.provider ?? 'tdx_guest'}\n`);
        put(join(entry, 'generation'), '0\n');
      }
      const inblob = join(entry, 'inblob');
      // A write in progress shows fewer bytes; the venue writes all 64 at once.
      if (!existsSync(inblob) || statSync(inblob).size !== 64) continue;
      const reportData = new Uint8Array(readFileSync(inblob));
      unlinkSync(inblob);
      put(join(entry, 'outblob'), build(reportData));
      const generation = Number(readFileSync(join(entry, 'generation'), 'utf8'));
      put(join(entry, 'generation'), `${generation + 1}\n`);
      quotes += 1;
    }
  };
  const timer = setInterval(tick, FAKE_TSM_POLL_MS);
  return {
    root,
    get quotes() {
      return quotes;
    },
    setQuoteFor: (next) => {
      build = next;
    },
    stop: () => clearInterval(timer),
  };
}

/** Whole-file replacement, so the reader never sees a half-written attribute (the kernel's are atomic). */
function put(path: string, data: string | Uint8Array): void {
  writeFileSync(`${path}.part`, data);
  renameSync(`${path}.part`, path);
}
