/**
 * Generates artifacts/poseidon.wasm (decisions D144): circomlibjs's Poseidon code and round
 * constants (its src/poseidon_wasm.js `buildPoseidonWasm`) over wasmcurves' Montgomery field of
 * BN254's scalar field, under the same `frm` prefix circomlibjs's curve gives it, without the rest
 * of the curve. The output depends only on those packages' versions, so a test rebuilds it and
 * compares the bytes with the committed file.
 */
import { createRequire } from 'node:module';
import type { ModuleBuilder } from 'wasmbuilder';
import { FIELD_MODULUS } from '../src/field.ts';
import { POSEIDON_SCRATCH_BYTES, POSEIDON_WASM_PAGES } from '../src/poseidon-wasm.ts';

const require = createRequire(import.meta.url);

export async function buildPoseidonWasmBytes(): Promise<Uint8Array> {
  const { ModuleBuilder } = await import('wasmbuilder');
  const { buildF1m } = require('wasmcurves') as {
    buildF1m: (module: ModuleBuilder, q: bigint, prefix: string) => string;
  };
  // circomlibjs exports only its entry point, which loads a native addon we never want (hash.ts).
  const source = new URL('./src/poseidon_wasm.js', import.meta.resolve('circomlibjs'));
  const { buildPoseidonWasm } = (await import(source.href)) as {
    buildPoseidonWasm: (module: ModuleBuilder) => void;
  };
  const module = new ModuleBuilder();
  module.setMemory(POSEIDON_WASM_PAGES);
  buildF1m(module, FIELD_MODULUS, 'frm');
  buildPoseidonWasm(module);
  const top = POSEIDON_WASM_PAGES * 65536 - POSEIDON_SCRATCH_BYTES;
  if (module.free > top) {
    throw new Error(
      `Poseidon's static data ends at ${module.free}, above the scratch at ${top}: raise the pages`,
    );
  }
  return Uint8Array.from(module.build());
}
