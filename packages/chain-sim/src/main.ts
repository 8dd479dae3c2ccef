import { parseArgs } from 'node:util';
import { createChainSimulator } from './chain.ts';
import { MATCH_PROOF_MODES, type MatchProofMode } from './match-proofs.ts';
import { startRpcServer } from './rpc-server.ts';

/**
 * The simulator as its own process:
 *   node --import tsx packages/chain-sim/src/main.ts --port 0 [--manual] [--slot-ms 400]
 *     [--finality-depth 32] [--shards 4] [--root-window 64]
 *     [--authority <hex>] [--signer <hex>] [--measurement <hex>]
 *     [--match-proofs groth16|stand-in]   (or VENUE_CHAIN_MATCH_PROOFS; default groth16)
 * Prints one line `READY <url>` once it listens (a parent process waits for it), then serves
 * JSON-RPC until SIGINT or SIGTERM.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    manual: { type: 'boolean', default: false },
    'slot-ms': { type: 'string' },
    'finality-depth': { type: 'string' },
    shards: { type: 'string' },
    'root-window': { type: 'string' },
    authority: { type: 'string' },
    signer: { type: 'string' },
    measurement: { type: 'string' },
    'match-proofs': { type: 'string' },
  },
  strict: true,
});

const integer = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number.parseInt(text, 10);

const governance = {
  ...(values.authority === undefined ? {} : { authority: values.authority }),
  ...(values.signer === undefined ? {} : { settlement_signer: values.signer }),
  ...(values.measurement === undefined ? {} : { measurement: values.measurement }),
};
const options = Object.fromEntries(
  Object.entries({
    slotMs: integer(values['slot-ms']),
    finalityDepth: integer(values['finality-depth']),
    shards: integer(values.shards),
    rootWindow: integer(values['root-window']),
  }).filter(([, value]) => value !== undefined),
);

const matchProofs = values['match-proofs'] ?? process.env['VENUE_CHAIN_MATCH_PROOFS'] ?? 'groth16';
if (!(MATCH_PROOF_MODES as readonly string[]).includes(matchProofs)) {
  process.stderr.write(
    `--match-proofs: expected one of ${MATCH_PROOF_MODES.join(', ')}; received ${matchProofs}\n`,
  );
  process.exit(2);
}

const chain = await createChainSimulator({
  ...options,
  matchProofs: matchProofs as MatchProofMode,
  clock: values.manual ? 'manual' : 'wall',
  governance,
});
const server = await startRpcServer(chain, { port: Number.parseInt(values.port, 10), host: values.host });
chain.start();
process.stdout.write(`READY ${server.url}\n`);

const stop = async (): Promise<void> => {
  chain.stop();
  await server.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
