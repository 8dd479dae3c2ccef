/**
 * Writes artifacts/poseidon.wasm and its pin in src/artifacts-pinned.ts (decisions D144).
 *
 *   node --import tsx packages/notes/scripts/build-poseidon-wasm.ts
 *
 * Run it after upgrading circomlibjs, wasmcurves or wasmbuilder; poseidon-wasm.test.ts fails until
 * then if their output changed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { artifactPath, sha256Hex } from '../src/artifacts.ts';
import { buildPoseidonWasmBytes } from './poseidon-wasm-builder.ts';

const bytes = await buildPoseidonWasmBytes();
writeFileSync(artifactPath('poseidonWasm'), bytes);
const pinned = fileURLToPath(new URL('../src/artifacts-pinned.ts', import.meta.url));
const pin = /(poseidonWasm: ')[0-9a-f]{64}(')/;
const source = readFileSync(pinned, 'utf8');
if (!pin.test(source)) throw new Error(`${pinned} has no poseidonWasm pin to update`);
writeFileSync(pinned, source.replace(pin, `$1${sha256Hex(bytes)}$2`));
process.stderr.write(`> artifacts/poseidon.wasm: ${bytes.length} bytes, sha256 ${sha256Hex(bytes)}\n`);
