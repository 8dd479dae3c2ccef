import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ValidInputProver } from '@venue/notes';
import type { Credentials, KeyFile, NoteWallet, Trader, TrustAnchors, VenueClient } from '@venue/sdk';
import type { Command } from 'commander';
import { ACCOUNTS_FILE_NAME, PLATFORM_FILE_NAME } from '../dev/dev-defaults.ts';
import { loadNotes, loadSdk, loadTokenCache } from './lazy.ts';
import { CliError, type CliIo, Output } from './output.ts';
import type { TokenCache } from './token-cache.ts';
import { MarketUnits, type MintInfo } from './units.ts';

/**
 * What every command shares: the global options, the attested connection, the account login from
 * a credentials file, and the local key file with the state kept beside it. Secrets are read from
 * files and never printed.
 */

export interface GlobalOptions {
  venue: string;
  credentials: string;
  account?: string;
  trust?: string;
  keyFile: string;
  walletDir?: string;
  json: boolean;
  /** Amounts and prices in tokens (units.ts); raw integers without it. */
  human: boolean;
  /** A sub-command's own --chain-rpc, when it has one. */
  chainRpc?: string;
}

export const DEFAULT_VENUE_URL = 'https://127.0.0.1:8443';
/** The dev venue's chain simulator JSON-RPC (`venue dev --chain-port`), unless VENUE_CHAIN_RPC says otherwise. */
export const DEFAULT_CHAIN_RPC = process.env['VENUE_CHAIN_RPC'] ?? 'http://127.0.0.1:8899/';
export const DEFAULT_CREDENTIALS_FILE = `.state/dev/${ACCOUNTS_FILE_NAME}`;
export const DEFAULT_KEY_FILE = '.venue/key.json';
/** In the wallet folder: which chain (getChainInfo genesis_id, at which URL) its notes live on. */
export const CHAIN_RECORD_FILE = 'chain.json';
/** A read of the chain's metadata or identity gives up after this long. */
const CHAIN_READ_TIMEOUT_MS = 3_000;

export class CommandContext {
  readonly options: GlobalOptions;
  readonly out: Output;
  readonly #opened: Array<() => Promise<void> | void> = [];

  constructor(options: GlobalOptions, io: CliIo) {
    this.options = options;
    this.out = new Output(io, options.json);
  }

  /** The global options of the root program, as seen from any sub-command. */
  static of(command: Command, io: CliIo): CommandContext {
    return new CommandContext(command.optsWithGlobals<GlobalOptions>(), io);
  }

  /**
   * The trust anchors: the platform root and measurement file (the dev venue writes
   * platform-root.json beside its credentials file). Public values only.
   */
  trust(): TrustAnchors {
    const file = resolve(this.options.trust ?? join(dirname(this.options.credentials), PLATFORM_FILE_NAME));
    const json = readJson(file, 'trust file (--trust)') as Record<string, unknown>;
    const keyId = json['root_key_id'];
    const rootKey = json['root_public_key'];
    const measurement = json['measurement'];
    if (typeof keyId !== 'string' || typeof rootKey !== 'string' || typeof measurement !== 'string') {
      throw new CliError(`${file}: expected root_key_id, root_public_key and measurement (hex strings)`);
    }
    return { roots: new Map([[keyId, rootKey]]), measurements: new Set([measurement]) };
  }

  /** Attests the venue (the SDK checks the report and pins the certificate) without logging in. */
  async connect(): Promise<VenueClient> {
    const client = await (await loadSdk()).connectVenue({ url: this.options.venue, trust: this.trust() });
    this.#opened.push(() => client.close());
    return client;
  }

  /**
   * Attests the venue and logs in as `--account` (or `fallbackAccount`) of the credentials file,
   * reusing the token an earlier command cached for this boot of this venue while it is valid
   * (token-cache.ts). A token the venue refuses as invalid, expired or revoked is replaced by one
   * fresh login inside the SDK; whichever token the command ends with is cached for the next one.
   */
  async login(fallbackAccount = 'alice'): Promise<VenueClient> {
    const credentials = this.credentials(this.options.account ?? fallbackAccount);
    const client = await this.connect();
    const cache = await this.tokenCache(credentials);
    const binding = (await loadTokenCache()).bootBindingOf(client);
    const cached = cache.read(binding, client.clock.nowMs());
    let stored: string | undefined;
    if (cached !== null) {
      client.resumeLogin(credentials, cached);
      stored = cached.token;
    } else {
      await client.login(credentials);
    }
    const keep = () => {
      const held = client.token;
      if (held === null || held.token === stored) return;
      stored = held.token;
      try {
        cache.write({ ...held, binding });
      } catch (error) {
        // A cache that cannot be written costs a login per command, never the command itself.
        this.out.io.stderr(`venue: token not cached (${(error as Error).message})\n`);
      }
    };
    keep();
    this.#opened.push(keep);
    return client;
  }

  /** The token cache of account `credentials` on `--venue`, beside the key file. */
  async tokenCache(credentials: Credentials): Promise<TokenCache> {
    const { TokenCache } = await loadTokenCache();
    return new TokenCache(dirname(resolve(this.options.keyFile)), {
      origin: new URL(this.options.venue).origin,
      ...credentials,
    });
  }

  /** The chain simulator's JSON-RPC: the command's --chain-rpc, else VENUE_CHAIN_RPC or the dev default. */
  chainRpcUrl(): string {
    return this.options.chainRpc ?? DEFAULT_CHAIN_RPC;
  }

  #mints: Promise<Map<string, MintInfo>> | undefined;

  /** The chain's mint metadata (symbol, decimals), read once per command. */
  mintInfos(): Promise<Map<string, MintInfo>> {
    this.#mints ??= (async () => {
      const url = this.chainRpcUrl();
      try {
        const { mints } = await (await loadSdk()).chainRpcCall(url, 'listMints', {}, CHAIN_READ_TIMEOUT_MS);
        return new Map(mints.map((mint) => [mint.mint, mint]));
      } catch (error) {
        throw new CliError(
          `--human needs the mints' decimals from the chain, and the chain at ${url} did not give them ` +
            `(${(error as Error).message}); point --chain-rpc or VENUE_CHAIN_RPC at it, or drop --human`,
        );
      }
    })();
    return this.#mints;
  }

  /** The units of the market named `symbol`, when --human asks for them (null otherwise). */
  async unitsOf(client: VenueClient, symbol: string): Promise<MarketUnits | null> {
    if (!this.options.human) return null;
    return new MarketUnits(await client.instrument(symbol), await this.mintInfos());
  }

  credentials(name: string): Credentials {
    const file = resolve(this.options.credentials);
    const accounts = readJson(file, 'credentials file (--credentials)') as Record<string, unknown>;
    const entry = accounts[name] as Record<string, unknown> | undefined;
    if (entry === undefined) {
      throw new CliError(`${file} has no account "${name}"; it has ${Object.keys(accounts).join(', ')}`);
    }
    const { api_key: apiKey, api_secret: apiSecret, passphrase } = entry;
    if (typeof apiKey !== 'string' || typeof apiSecret !== 'string' || typeof passphrase !== 'string') {
      throw new CliError(`${file}: account "${name}" needs api_key, api_secret and passphrase`);
    }
    return { apiKey, apiSecret, passphrase };
  }

  async keyFile(): Promise<KeyFile> {
    try {
      return await (await loadSdk()).KeyFile.load(resolve(this.options.keyFile));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new CliError(`no key file at ${this.options.keyFile}; run \`venue keys generate\` first`);
      }
      throw error;
    }
  }

  /** Where the order log, note log and nonce reservations live: beside the key file by default. */
  stateDir(): string {
    return resolve(this.options.walletDir ?? dirname(this.options.keyFile));
  }

  /**
   * Runs `body` with a Trader for the key file's trading key that holds the wallet beside the key
   * file, and a prover when the venue checks proofs (GET /info proof_mode groth16); closes both
   * after. One Trader per key at a time (its nonce file is locked): see openWalletTrader.
   */
  async withTrader<T>(body: (parts: WalletTrader) => Promise<T>): Promise<T> {
    const keys = await this.keyFile();
    await this.checkChainIdentity();
    const client = await this.login();
    const prover =
      client.info.proof_mode === 'stub'
        ? null
        : await (await loadNotes()).createValidInputProver({ singleThread: true });
    try {
      const { trader, wallet } = await openWalletTrader(client, keys, this.stateDir(), {
        ...(prover === null ? {} : { prover }),
      });
      try {
        return await body({ trader, client, keys, prover });
      } catch (error) {
        throw this.#chainResetHint(error);
      } finally {
        trader.close();
        wallet.close();
      }
    } finally {
      await prover?.close();
    }
  }

  /**
   * 1305 (note not found) for a note the wallet recorded as a leaf almost always means the chain
   * it knew is gone: a dev venue keeps its chain in memory and starts again from genesis on every
   * restart. Say that, and what to do, instead of the bare code.
   */
  #chainResetHint(error: unknown): unknown {
    if (
      !(
        error instanceof Error &&
        error.name === 'VenueApiError' &&
        (error as { code?: number }).code === 1305
      )
    ) {
      return error;
    }
    const dir = this.stateDir();
    return new CliError(
      `the venue's chain does not hold a note your wallet recorded (error 1305: ${error.message}). ` +
        'If the venue restarted from a fresh chain (venue dev always does), the notes your wallet knew ' +
        `are gone: move notes.log, orders.log and ${CHAIN_RECORD_FILE} out of ${dir} (or pass --wallet-dir with a new folder), ` +
        'then deposit again',
    );
  }

  /**
   * A dev chain lives in memory and starts again from genesis on every boot, taking the wallet's
   * notes with it. The wallet folder records the identity (getChainInfo genesis_id) of the chain
   * its first deposit went to; each command that uses the wallet compares it with the chain's
   * current one and, on a mismatch, stops with what to do instead of a later 1305. `record`
   * (deposit) writes the record when there is none. A chain that cannot be reached is not judged.
   */
  async checkChainIdentity(options: { record?: boolean } = {}): Promise<void> {
    const file = join(this.stateDir(), CHAIN_RECORD_FILE);
    let recorded: { genesis_id?: unknown; chain_rpc?: unknown } | null = null;
    try {
      recorded = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new CliError(`${file} is not readable JSON`);
    }
    if (recorded === null && options.record !== true) return;
    const url =
      options.record === true || typeof recorded?.chain_rpc !== 'string'
        ? this.chainRpcUrl()
        : recorded.chain_rpc;
    const { chainRpcCall } = await loadSdk();
    const read = () => chainRpcCall(url, 'getChainInfo', {}, CHAIN_READ_TIMEOUT_MS);
    let genesisId: string;
    try {
      // Read twice at most: a connection kept from before a restart fails once, then a new one answers.
      genesisId = (await read().catch(read)).genesis_id;
    } catch {
      return; // unreachable or not a chain simulator: nothing to compare with
    }
    if (recorded === null) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${JSON.stringify({ genesis_id: genesisId, chain_rpc: url })}\n`, { mode: 0o600 });
      return;
    }
    if (recorded.genesis_id !== genesisId) {
      const dir = this.stateDir();
      throw new CliError(
        `the chain at ${url} was reset: your wallet in ${dir} was made on chain ${String(recorded.genesis_id)}, ` +
          `and that chain now reports ${genesisId} (a dev venue starts a new chain on every boot). ` +
          'The notes your wallet knew are gone with the old chain. Start a fresh wallet (pass --wallet-dir ' +
          `with a new folder, or move notes.log, orders.log and ${CHAIN_RECORD_FILE} out of ${dir}), then deposit again`,
      );
    }
  }

  async wallet(keys: KeyFile): Promise<NoteWallet> {
    await this.checkChainIdentity();
    const wallet = await (await loadSdk()).NoteWallet.open(keys, this.stateDir());
    this.#opened.push(() => wallet.close());
    return wallet;
  }

  /** Closes what the command opened, last first. */
  async close(): Promise<void> {
    for (const close of this.#opened.reverse()) await close();
  }
}

/** A Trader holding the wallet, with the connection, key file and prover it was opened with. */
export interface WalletTrader {
  readonly trader: Trader;
  readonly client: VenueClient;
  readonly keys: KeyFile;
  /** Null on a venue that takes stub proofs (GET /info proof_mode stub). */
  readonly prover: ValidInputProver | null;
}

/** How long a command waits for another command of the same key to finish with its state. */
export const KEY_BUSY_WAIT_MS_MAX = 60_000;
const KEY_BUSY_POLL_MS = 100;

/**
 * Opens the wallet and a Trader of the key file from the state folder, as they are on disk now.
 * The Trader takes the key's lock, so commands of one key (place, cancel, modify, watch applying
 * an event) change the order and note logs one at a time, each starting from what the last one
 * wrote; while another holds the lock this waits, up to KEY_BUSY_WAIT_MS_MAX.
 */
export async function openWalletTrader(
  client: VenueClient,
  keys: KeyFile,
  stateDir: string,
  options: { prover?: ValidInputProver } = {},
): Promise<{ trader: Trader; wallet: NoteWallet }> {
  const deadline = Date.now() + KEY_BUSY_WAIT_MS_MAX;
  for (;;) {
    const { NoteWallet, Trader } = await loadSdk();
    const wallet = await NoteWallet.open(keys, stateDir);
    try {
      return { trader: Trader.open(client, keys, stateDir, { wallet, ...options }), wallet };
    } catch (error) {
      wallet.close();
      const busy = /in use by process|already open in this process/.test((error as Error).message);
      if (!busy || Date.now() > deadline) throw error;
    }
    await sleep(KEY_BUSY_POLL_MS);
  }
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the ${what} ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`the ${what} ${file} is not JSON`);
  }
}

/** Runs `body` with a context and closes everything it opened, even on failure. */
export async function withContext(
  command: Command,
  io: CliIo,
  body: (context: CommandContext) => Promise<void>,
): Promise<void> {
  const context = CommandContext.of(command, io);
  try {
    await body(context);
  } finally {
    await context.close();
  }
}
