import { existsSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { DEFAULT_CHAIN_RPC } from '../commands/context.ts';
import { CliError, type CliIo, jsonText } from '../commands/output.ts';
import { collectMintDecimals, parseHttpUrl, parseIntegerIn, parsePortNumber } from '../commands/parsers.ts';
import { announceReady } from '../commands/ready-file.ts';
import { createSigningKeyFile, loadSigningKeyFile } from '../commands/signing-key-file.ts';
import { loadServerPart } from '../server-parts.ts';

/**
 * `venue chain start | setup | govern`: a development chain for `venue serve` as commands
 * (docs/operations.md, "From an empty folder to a settled trade"). `start` runs the chain simulator
 * as its own process; `setup` creates what serve's config names (mints, oracle and market accounts);
 * `govern` signs the governance action naming a served venue's build and settlement signer.
 */
export function registerChainCommands(program: Command, io: CliIo): void {
  const chain = program
    .command('chain')
    .description('A development chain for venue serve: start it, set up markets, sign governance.');

  chain
    .command('start')
    .description(
      'Run the chain simulator (JSON-RPC over HTTP) until SIGINT or SIGTERM; its state lives in memory.',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'JSON-RPC port; 0 picks a free one', parsePortNumber, 8899)
    .option('--slot-ms <ms>', 'slot length, 10 to 10000', (v: string) => parseIntegerIn(v, 10, 10_000), 400)
    .option(
      '--finality-depth <slots>',
      'slots until a slot is final, 1 to 150',
      (v: string) => parseIntegerIn(v, 1, 150),
      32,
    )
    .option(
      '--authority-file <file>',
      'the governance authority key; created (0600) when missing',
      '.state/chain/authority.json',
    )
    .addOption(
      new Option('--match-proofs <mode>', 'how settlement batches are checked')
        .choices(['groth16', 'stand-in'])
        .default('groth16'),
    )
    .option('--ready-file <file>', 'also write the ready line to this file')
    .action(async (flags: StartFlags) => {
      const authority = existsSync(flags.authorityFile)
        ? await loadSigningKeyFile(flags.authorityFile, 'chain-authority', '--authority-file')
        : await createSigningKeyFile(flags.authorityFile, 'chain-authority');
      const { createChainSimulator, startRpcServer } = await loadServerPart(
        () => import('@venue/chain-sim'),
        'chain start',
      );
      const simulator = await createChainSimulator({
        slotMs: flags.slotMs,
        finalityDepth: flags.finalityDepth,
        matchProofs: flags.matchProofs,
        clock: 'wall',
        governance: { authority: authority.publicKey },
      });
      const server = await startRpcServer(simulator, { port: flags.port, host: flags.host });
      simulator.start();
      announceReady(
        {
          rpc_url: server.url,
          authority: authority.publicKey,
          slot_ms: flags.slotMs,
          finality_depth: flags.finalityDepth,
          genesis_id: simulator.info().genesis_id,
        },
        flags.readyFile,
        io.stdout,
      );
      const stop = async () => {
        simulator.stop();
        await server.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
    });

  chain
    .command('setup')
    .description(
      "Create on the chain what a serve config names: each market's mints, oracle account and market account.",
    )
    .requiredOption('--config <file>', 'the venue serve configuration')
    .option(
      '--mint <symbol=decimals>',
      'decimals of a mint to describe, e.g. USDC=6 (repeat per mint)',
      collectMintDecimals,
    )
    .option('--chain-rpc <url>', "the chain's JSON-RPC (default: the config's chain.rpc_url)", parseHttpUrl)
    .action(
      async (flags: { config: string; mint?: Map<string, number>; chainRpc?: string }, command: Command) => {
        const [{ loadServeConfig, ServeConfigError }, { setupChain }] = await loadServerPart(
          () => Promise.all([import('../serve/serve-config.ts'), import('./chain-setup.ts')]),
          'chain setup',
        );
        let config: ReturnType<typeof loadServeConfig>;
        try {
          config = loadServeConfig(flags.config);
        } catch (error) {
          if (error instanceof ServeConfigError) throw new CliError(error.message);
          throw error;
        }
        const report = await setupChain(
          config,
          flags.chainRpc ?? config.chain.rpcUrl,
          flags.mint ?? new Map(),
        );
        const json = command.optsWithGlobals<{ json: boolean }>().json;
        io.stdout(
          json
            ? `${jsonText(report)}\n`
            : `${[
                `chain ${report.chain}`,
                ...report.mints.map(
                  (m) =>
                    `mint ${m.symbol} ${m.mint} (${m.decimals} decimals): ${m.created ? 'created' : 'already there'}`,
                ),
                ...report.oracles.map((o) => `oracle ${o.feed}: set from its publisher's signed update`),
                ...report.markets.map(
                  (m) => `market ${m.symbol} ${m.market_id}: ${m.created ? 'created' : 'already there'}`,
                ),
                'next: start venue serve with this config, then venue chain govern with its ready line',
              ].join('\n')}\n`,
        );
      },
    );

  chain
    .command('govern')
    .description(
      "Sign the governance action naming a served venue's measurement and settlement signer; waits until it is final.",
    )
    .requiredOption('--authority-file <file>', 'the governance authority key (venue chain start made it)')
    .option(
      '--serve-ready <file>',
      "venue serve's ready file (--ready-file): measurement and settlement_signer from it",
    )
    .option('--measurement <hex>', 'the code measurement to name (64 hex)')
    .option('--signer <hex>', 'the settlement signer to name (64 hex)')
    .option(
      '--chain-rpc <url>',
      "the chain's JSON-RPC (env VENUE_CHAIN_RPC)",
      parseHttpUrl,
      DEFAULT_CHAIN_RPC,
    )
    .option('--no-wait', 'return once proposed, without waiting for finality')
    .option(
      '--timeout-ms <ms>',
      'longest wait for finality, 1000 to 600000',
      (v: string) => parseIntegerIn(v, 1_000, 600_000),
      60_000,
    )
    .action(async (flags: GovernFlags, command: Command) => {
      const values = await governValues(flags);
      const authority = await loadSigningKeyFile(flags.authorityFile, 'chain-authority', '--authority-file');
      const { govern } = await import('./chain-govern.ts');
      const result = await govern(flags.chainRpc, authority, values, {
        untilFinal: flags.wait,
        timeoutMs: flags.timeoutMs,
      });
      const json = command.optsWithGlobals<{ json: boolean }>().json;
      io.stdout(
        json
          ? `${jsonText(result)}\n`
          : `governance ${result.sequence}: ${result.action === 'already_in_force' ? 'already in force' : result.final ? 'final, in force' : 'proposed'} (measurement ${result.measurement}, settlement signer ${result.settlement_signer})\n`,
      );
    });
}

interface StartFlags {
  host: string;
  port: number;
  slotMs: number;
  finalityDepth: number;
  authorityFile: string;
  matchProofs: 'groth16' | 'stand-in';
  readyFile?: string;
}

interface GovernFlags {
  authorityFile: string;
  serveReady?: string;
  measurement?: string;
  signer?: string;
  chainRpc: string;
  wait: boolean;
  timeoutMs: number;
}

const HEX32 = /^[0-9a-f]{64}$/;

async function governValues(flags: GovernFlags): Promise<{ measurement: string; settlement_signer: string }> {
  const fromFlags = flags.measurement !== undefined || flags.signer !== undefined;
  if (fromFlags === (flags.serveReady !== undefined)) {
    throw new CliError('name the venue either with --serve-ready FILE or with --measurement and --signer');
  }
  let measurement = flags.measurement;
  let signer = flags.signer;
  let where = '--measurement';
  if (flags.serveReady !== undefined) {
    const { readFileSync } = await import('node:fs');
    let ready: Record<string, unknown>;
    try {
      ready = JSON.parse(readFileSync(flags.serveReady, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(
        `--serve-ready ${flags.serveReady}: ${(error as Error).message}; pass the file venue serve --ready-file wrote`,
      );
    }
    measurement = typeof ready['measurement'] === 'string' ? ready['measurement'] : undefined;
    signer = typeof ready['settlement_signer'] === 'string' ? ready['settlement_signer'] : undefined;
    where = `--serve-ready ${flags.serveReady}: measurement`;
    if (ready['settles'] === false) {
      throw new CliError(
        `--serve-ready ${flags.serveReady}: this venue does not settle (chain.settle false); it needs no governance`,
      );
    }
  }
  if (measurement === undefined || !HEX32.test(measurement))
    throw new CliError(`${where}: expected 64 lowercase hex characters`);
  if (signer === undefined || !HEX32.test(signer)) {
    throw new CliError(
      `${where.replace('measurement', 'settlement_signer').replace('--measurement', '--signer')}: expected 64 lowercase hex characters`,
    );
  }
  return { measurement, settlement_signer: signer };
}
