import { createRequire } from 'node:module';
import { type ArtifactName, artifactPath, loadArtifact } from './artifacts.ts';

/**
 * A circuit kept warm for proving: its witness WebAssembly instantiated once (re-instantiating it
 * costs about a third of a small proof) and its proving key in memory, both checked against their
 * pins before use. One instance computes one witness at a time: its callers serialise their proofs.
 */
export interface WarmCircuit {
  witness(input: object): Promise<Uint8Array>;
  readonly zkey: Buffer;
}

interface WitnessCalculator {
  calculateWTNSBin(input: object, sanityCheck: boolean): Promise<Uint8Array>;
}
type WitnessCalculatorBuilder = (code: Uint8Array) => Promise<WitnessCalculator>;

export async function warmCircuit(names: { wasm: ArtifactName; zkey: ArtifactName }): Promise<WarmCircuit> {
  const [wasm, zkey] = await Promise.all([loadArtifact(names.wasm), loadArtifact(names.zkey)]);
  await loadArtifact('witnessCalculator'); // checks the pin before the file is evaluated
  const builder = createRequire(import.meta.url)(
    artifactPath('witnessCalculator'),
  ) as WitnessCalculatorBuilder;
  const calculator = await builder(wasm);
  return { witness: (input) => calculator.calculateWTNSBin(input, true), zkey };
}
