/**
 * What a client pays to verify an Intel TDX attestation (issue 26): the SDK's verifyTdxQuote on the
 * public sample quote with offline collateral (the whole DCAP chain, our CRL and chain checks, the
 * TCB policy and the allow-list), against the DCAP library's verify alone on the same quote and
 * collateral in the same run. Collateral fetching is not measured: it is a network round trip to
 * the PCCS, once per connect. One connect verifies one quote, so this bounds connects per second.
 */
import { readFileSync } from 'node:fs';
import { type Collateral, QuoteVerifier } from '@phala/dcap-qvl';
import { verifyTdxQuote } from '../packages/sdk/src/index.ts';
import { type Figure, figure, type Sampled, summarise } from './harness.ts';

const FIXTURES = new URL('../packages/sdk/test/fixtures/tdx/', import.meta.url);
const SAMPLE_TD = {
  mrtd: '91eb2b44d141d4ece09f0c75c2c53d247a3c68edd7fafe8a3520c942a604a407de03ae6dc5f87f27428b2538873118b7',
  rtmr0: '44c0197b39157fdd7a4dcc44767f9d6b0bb3977c7a8e347b8492f827fe9d9e5c48aca29b220b80b6a540cf994b9bc9c0',
  rtmr1: '0084452c01668329d4bc06acdf58a7205c26743304509973949e5619bf81a6a7aea8c323c173019b3093d54e579e9378',
  rtmr2: 'd833feef2cd945148aa38ead2c53e9b7f138190aaaebfc551dccd829fc207aa3ba80b70870d7330733642e01d48c3132',
  rtmr3: '0'.repeat(96),
};
const VERIFIED_AT_MS = Date.parse('2025-07-01T00:00:00Z');

async function opsPerSecondAsync(
  operation: () => Promise<unknown>,
  opsPerRun: number,
  runs: number,
): Promise<Sampled> {
  for (let i = 0; i < opsPerRun; i++) await operation();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < opsPerRun; i++) await operation();
    samples.push(opsPerRun / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return summarise(samples);
}

export async function run(quick: boolean): Promise<Figure[]> {
  process.stderr.write(
    `tdx-verify: the SDK's TDX quote verification against the DCAP library alone${quick ? ' (quick)' : ''}\n`,
  );
  const quote = new Uint8Array(readFileSync(new URL('tdx-quote.bin', FIXTURES)));
  const collateral = JSON.parse(
    readFileSync(new URL('tdx-quote-collateral.json', FIXTURES), 'utf8'),
  ) as Collateral;
  const trust = {
    measurements: [SAMPLE_TD],
    collateral: { offline: collateral },
    nowMs: () => VERIFIED_AT_MS,
  };
  const [opsPerRun, runs] = quick ? [10, 3] : [40, 5];
  const library = await opsPerSecondAsync(
    async () => QuoteVerifier.newProd().verify(quote, collateral, VERIFIED_AT_MS / 1000),
    opsPerRun,
    runs,
  );
  const ours = await opsPerSecondAsync(() => verifyTdxQuote(quote, trust), opsPerRun, runs);
  return [
    figure('tdx-verify', 'verify_tdx_quote_offline_collateral', 'quotes/s', 'higher', ours, {
      name: 'dcap-qvl verify alone',
      value: Math.round(library.median * 100) / 100,
    }),
  ];
}
