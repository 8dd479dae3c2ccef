/**
 * circomlib's Poseidon over BN254 as a prebuilt WebAssembly module (artifacts/poseidon.wasm,
 * decisions D144). circomlibjs generates the same code at run time: it builds the whole BN254 curve
 * (pairing included) and converts its 24,060 constants to Montgomery form, 0.6 s of CPU on a quiet
 * core and 1.3 to 1.8 s on a loaded one, in every thread that hashes. The module is built once by
 * scripts/build-poseidon-wasm.ts from circomlibjs's own generator (its Poseidon code and constants
 * over wasmcurves' Montgomery field) and loaded here in about 35 ms; a test rebuilds it and
 * compares the bytes, and checks it against circomlibjs's `buildPoseidon`.
 */

/** Pages (64 KiB) of the module's memory: its constants take about 0.8 MB. */
export const POSEIDON_WASM_PAGES = 16;

/** Bytes of one field element in the module's memory: four little-endian 64-bit limbs. */
const ELEMENT_BYTES = 32;
/** Most inputs circomlib's Poseidon takes. */
export const POSEIDON_INPUTS_MAX = 16;
/**
 * The scratch the calls use, at the top of the memory, above the module's static data (the build
 * script checks that they do not meet): the initial state, the inputs and one output.
 */
export const POSEIDON_SCRATCH_BYTES = ELEMENT_BYTES * (1 + POSEIDON_INPUTS_MAX + 1);

interface PoseidonExports {
  poseidon(pInitState: number, pIn: number, n: number, pOut: number, nOut: number): void;
  frm_toMontgomery(pIn: number, pOut: number): void;
  frm_fromMontgomery(pIn: number, pOut: number): void;
}

/**
 * The permutation's digest of 1 to 16 field elements (callers check that each input is below the
 * modulus: the module reduces nothing). Synchronous; one instance per thread, not reentrant.
 */
export type PoseidonPermutation = (inputs: readonly bigint[]) => bigint;

/** The part of the WebAssembly global used here (the project's lib settings leave it undeclared). */
interface WebAssemblyApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer };
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: unknown } }>;
}
const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WebAssemblyApi };

export async function instantiatePoseidon(bytes: Uint8Array): Promise<PoseidonPermutation> {
  const memory = new wasmApi.Memory({ initial: POSEIDON_WASM_PAGES, maximum: POSEIDON_WASM_PAGES });
  const { instance } = await wasmApi.instantiate(bytes, { env: { memory } });
  const wasm = instance.exports as PoseidonExports;
  // The module never grows its memory, so this view stays valid.
  const view = new DataView(memory.buffer);
  const pState = memory.buffer.byteLength - POSEIDON_SCRATCH_BYTES;
  const pIn = pState + ELEMENT_BYTES;
  const pOut = pIn + ELEMENT_BYTES * POSEIDON_INPUTS_MAX;

  const write = (at: number, value: bigint): void => {
    let rest = value;
    for (let limb = 0; limb < 4; limb += 1) {
      view.setBigUint64(at + 8 * limb, BigInt.asUintN(64, rest), true);
      rest >>= 64n;
    }
  };
  const read = (at: number): bigint => {
    let value = 0n;
    for (let limb = 3; limb >= 0; limb -= 1) value = (value << 64n) | view.getBigUint64(at + 8 * limb, true);
    return value;
  };

  // The initial state is zero (zero in Montgomery form too); the module copies it, never writes it.
  write(pState, 0n);
  return (inputs) => {
    for (let i = 0; i < inputs.length; i += 1) {
      const at = pIn + ELEMENT_BYTES * i;
      write(at, inputs[i] as bigint);
      wasm.frm_toMontgomery(at, at);
    }
    wasm.poseidon(pState, pIn, inputs.length, pOut, 1);
    wasm.frm_fromMontgomery(pOut, pOut);
    return read(pOut);
  };
}
