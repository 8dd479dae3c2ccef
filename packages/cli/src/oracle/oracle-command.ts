import { readFileSync, statSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { DEFAULT_CHAIN_RPC } from '../commands/context.ts';
import { CliError, type CliIo, jsonText } from '../commands/output.ts';
import { parseBase58Address, parseHttpUrl, parseIntegerIn, parsePortNumber } from '../commands/parsers.ts';
import { announceReady } from '../commands/ready-file.ts';
import { createSigningKeyFile, loadSigningKeyFile } from '../commands/signing-key-file.ts';
import { loadServerPart } from '../server-parts.ts';

/**
 * `venue oracle keygen` and `venue oracle publish`: the oracle publisher `venue serve` polls
 * (docs/operations.md, "Operator commands for a development chain and an oracle feed"). A feed's publisher signs each update with its own
 * Ed25519 key; serve's config names the public half in `oracle.feeds[].publisher_key`.
 */
export function registerOracleCommands(program: Command, io: CliIo): void {
  const oracle = program
    .command('oracle')
    .description('Oracle publisher for venue serve: keys and signed price updates.');

  oracle
    .command('keygen')
    .description("Create a feed publisher's Ed25519 key file (0600) and print its public key.")
    .requiredOption('--out <file>', 'the key file to create; an existing file is never replaced')
    .action(async (flags: { out: string }, command: Command) => {
      const key = await createSigningKeyFile(flags.out, 'oracle-publisher');
      const json = command.optsWithGlobals<{ json: boolean }>().json;
      io.stdout(
        json ? `${jsonText({ key_file: flags.out, public_key: key.publicKey })}\n` : `${key.publicKey}\n`,
      );
    });

  oracle
    .command('publish')
    .description(
      "Sign and serve one feed's price updates (GET /feeds/<feed>), one per chain slot, from a JSON URL, stdin lines or a recorded series; runs until SIGINT or SIGTERM.",
    )
    .requiredOption(
      '--feed <address>',
      "the feed's base58 address (the markets' oracle_feed)",
      parseBase58Address,
    )
    .requiredOption('--publisher-key-file <file>', 'the publisher key (venue oracle keygen)')
    .option(
      '--source-url <url>',
      'relay: GET answers {"price": ..., "confidence": ...} in the price scale',
      parseHttpUrl,
    )
    .option('--stdin', 'relay: read lines "PRICE" or "PRICE CONFIDENCE" from standard input', false)
    .option('--replay <file>', 'replay a recorded price series (step,symbol,price,confidence CSV)')
    .option('--symbol <symbol>', 'with --replay: the market symbol whose rows to publish')
    .addOption(
      new Option('--end <mode>', 'with --replay: at the end, loop or hold (stop publishing)')
        .choices(['loop', 'hold'])
        .default('loop'),
    )
    .option(
      '--chain-rpc <url>',
      "the chain's JSON-RPC, read for the slot to stamp (env VENUE_CHAIN_RPC)",
      parseHttpUrl,
      DEFAULT_CHAIN_RPC,
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'HTTP port; 0 picks a free one', parsePortNumber, 9400)
    .option(
      '--poll-ms <ms>',
      'how often the chain slot is read, 50 to 60000',
      (v: string) => parseIntegerIn(v, 50, 60_000),
      200,
    )
    .option(
      '--slot-lag <slots>',
      'stamp updates this many slots behind the chain, 0 to 20',
      (v: string) => parseIntegerIn(v, 0, 20),
      2,
    )
    .option('--ready-file <file>', 'also write the ready line to this file')
    .action(async (flags: PublishFlags) => {
      const sources = [flags.sourceUrl !== undefined, flags.stdin, flags.replay !== undefined].filter(
        Boolean,
      ).length;
      if (sources !== 1) {
        throw new CliError(
          `choose exactly one price source: --source-url URL, --stdin or --replay FILE (received ${sources})`,
        );
      }
      if ((flags.replay === undefined) !== (flags.symbol === undefined)) {
        throw new CliError('--replay and --symbol go together: the series may hold several markets');
      }
      const key = await loadSigningKeyFile(
        flags.publisherKeyFile,
        'oracle-publisher',
        '--publisher-key-file',
      );
      const [{ startOraclePublisher }, sources_] = await Promise.all([
        import('./oracle-publisher.ts'),
        import('./price-sources.ts'),
      ]);
      const log = (line: string) => io.stderr(`venue oracle: ${line}\n`);
      let source: import('./price-sources.ts').PriceSource;
      if (flags.replay !== undefined && flags.symbol !== undefined) {
        source = sources_.replaySource(
          flags.replay,
          await loadSeries(flags.replay, flags.symbol),
          flags.symbol,
          flags.end,
        );
      } else if (flags.sourceUrl !== undefined) {
        source = sources_.urlSource(flags.sourceUrl, Math.max(1_000, flags.pollMs * 5));
      } else {
        source = sources_.lineSource(process.stdin, log, () =>
          log('stdin closed: no new prices; the feed goes stale'),
        );
      }
      const publisher = await startOraclePublisher({
        feed: flags.feed,
        key,
        chainRpc: flags.chainRpc,
        source,
        pollMs: flags.pollMs,
        slotLag: BigInt(flags.slotLag),
        host: flags.host,
        port: flags.port,
        report: log,
      });
      announceReady(
        { url: publisher.url, feed: flags.feed, publisher_key: key.publicKey, source: source.name },
        flags.readyFile,
        io.stdout,
      );
      const stop = async () => {
        await publisher.stop();
        log(`stopped after ${publisher.published()} updates`);
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
    });
}

interface PublishFlags {
  feed: string;
  publisherKeyFile: string;
  sourceUrl?: string;
  stdin: boolean;
  replay?: string;
  symbol?: string;
  end: 'loop' | 'hold';
  chainRpc: string;
  host: string;
  port: number;
  pollMs: number;
  slotLag: number;
  readyFile?: string;
}

async function loadSeries(file: string, symbol: string) {
  const { PRICE_SERIES_BYTES_MAX, parsePriceSeries } = await loadServerPart(
    () => import('@venue/adapters'),
    'oracle publish --replay',
  );
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new CliError(`--replay ${file}: no such file`);
  }
  // Checked before reading, so a wrong path to a huge file fails fast.
  if (size > PRICE_SERIES_BYTES_MAX)
    throw new CliError(`--replay ${file}: larger than ${PRICE_SERIES_BYTES_MAX} bytes; split the recording`);
  try {
    const text = readFileSync(file, 'utf8');
    // A recording may hold several markets; the parser checks every row against the symbols named.
    const named = new Set(
      text
        .split(/\r?\n/)
        .map((line) => line.split(',')[1]?.trim() ?? '')
        .filter((s) => /^[A-Za-z0-9-]+$/.test(s) && s !== 'symbol'),
    );
    const series = parsePriceSeries(text, named.add(symbol), `--replay ${file}`);
    if (!series.symbols.has(symbol)) throw new Error(`--replay ${file}: no row for ${symbol}`);
    return series;
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
