/**
 * The few parts of snarkjs, ffjavascript, wasmbuilder and circomlibjs this package uses (the last two
 * only to build and check artifacts/poseidon.wasm). None of them ships type declarations; these
 * describe exactly the calls made here and nothing more.
 */

declare module 'ffjavascript' {
  /** A field of the curve (Fr or Fq); elements are Montgomery-form byte buffers. */
  export interface WasmField {
    readonly n8: number;
    readonly zero: Uint8Array;
    readonly one: Uint8Array;
    e(value: bigint | number | string): Uint8Array;
    toObject(element: Uint8Array): bigint;
    fromObject(value: bigint): Uint8Array;
  }

  /** A group of the curve; points are Montgomery-form buffers (affine or Jacobian). */
  export interface WasmGroup {
    readonly F: WasmField;
    readonly zero: Uint8Array;
    readonly g: Uint8Array;
    fromObject(coordinates: readonly unknown[]): Uint8Array;
    toJacobian(point: Uint8Array): Uint8Array;
    toObject(point: Uint8Array): unknown[];
    toAffine(point: Uint8Array): Uint8Array;
    fromRprUncompressed(bytes: Uint8Array, offset: number): Uint8Array;
    toRprUncompressed(bytes: Uint8Array, offset: number, point: Uint8Array): void;
    timesScalar(point: Uint8Array, scalar: bigint | Uint8Array): Uint8Array;
    timesFr(point: Uint8Array, scalar: Uint8Array): Uint8Array;
    add(a: Uint8Array, b: Uint8Array): Uint8Array;
    neg(point: Uint8Array): Uint8Array;
    eq(a: Uint8Array, b: Uint8Array): boolean;
    isZero(point: Uint8Array): boolean;
    isValid(point: Uint8Array): boolean;
    multiExpAffine(
      points: Uint8Array,
      scalars: Uint8Array,
      logger?: unknown,
      name?: string,
    ): Promise<Uint8Array>;
  }

  export interface Curve {
    readonly name: string;
    readonly r: bigint;
    readonly q: bigint;
    readonly Fr: WasmField;
    readonly G1: WasmGroup;
    readonly G2: WasmGroup;
    readonly Gt: {
      readonly one: Uint8Array;
      mul(a: Uint8Array, b: Uint8Array): Uint8Array;
      eq(a: Uint8Array, b: Uint8Array): boolean;
    };
    pairingEq(...pointsAndOptionalTarget: Uint8Array[]): Promise<boolean>;
    prepareG1(point: Uint8Array): Uint8Array;
    prepareG2(point: Uint8Array): Uint8Array;
    millerLoop(preparedG1: Uint8Array, preparedG2: Uint8Array): Uint8Array;
    finalExponentiation(value: Uint8Array): Uint8Array;
    terminate(): Promise<void>;
  }

  export function buildBn128(singleThread?: boolean): Promise<Curve>;
}

/** wasmbuilder's module builder, as scripts/poseidon-wasm-builder.ts drives it. */
declare module 'wasmbuilder' {
  export class ModuleBuilder {
    /** The first byte above the static data allocated so far. */
    free: number;
    setMemory(pages: number): void;
    build(): number[];
  }
}

declare module 'circomlibjs' {
  export interface PoseidonWasm {
    (inputs: readonly bigint[]): Uint8Array;
    readonly F: { toObject(element: Uint8Array): bigint };
  }
  /**
   * Not called through the entry point, which loads a native addon (docs/notes.md section 10.6): the
   * builder and the test import src/poseidon_wasm.js itself.
   */
  export function buildPoseidon(): Promise<PoseidonWasm>;
}

declare module 'snarkjs' {
  export interface SnarkjsProof {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  }
  export type Logger = {
    info(message: string): void;
    warn(message: string): void;
    error(message: string): void;
    debug(message: string): void;
  };
  /** A file name or an in-memory buffer in the shape snarkjs's fastfile accepts. */
  export type FileSource = string | { type: 'mem'; data: Uint8Array };

  export const groth16: {
    prove(
      zkey: FileSource,
      witness: FileSource,
      logger?: Logger,
      options?: { singleThread?: boolean },
    ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
    fullProve(
      input: Record<string, unknown>,
      wasm: FileSource,
      zkey: FileSource,
      logger?: Logger,
      witnessOptions?: unknown,
      proverOptions?: { singleThread?: boolean },
    ): Promise<{ proof: SnarkjsProof; publicSignals: string[] }>;
    verify(
      verificationKey: unknown,
      publicSignals: readonly string[],
      proof: SnarkjsProof,
      logger?: Logger,
    ): Promise<boolean>;
  };
  export const powersOfTau: {
    newAccumulator(curve: unknown, power: number, fileName: string, logger?: Logger): Promise<unknown>;
    contribute(
      oldPtau: string,
      newPtau: string,
      name: string,
      entropy: string,
      logger?: Logger,
    ): Promise<unknown>;
    beacon(
      oldPtau: string,
      newPtau: string,
      name: string,
      beaconHashHex: string,
      iterationsExp: number,
      logger?: Logger,
    ): Promise<unknown>;
    preparePhase2(oldPtau: string, newPtau: string, logger?: Logger): Promise<unknown>;
  };
  export const zKey: {
    newZKey(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<unknown>;
    contribute(
      oldZkey: string,
      newZkey: string,
      name: string,
      entropy: string,
      logger?: Logger,
    ): Promise<unknown>;
    beacon(
      oldZkey: string,
      newZkey: string,
      name: string,
      beaconHashHex: string,
      iterationsExp: number,
      logger?: Logger,
    ): Promise<unknown>;
    exportVerificationKey(zkey: FileSource, logger?: Logger): Promise<unknown>;
  };
  export const curves: {
    getCurveFromName(
      name: string,
      options?: { singleThread?: boolean },
    ): Promise<{ terminate(): Promise<void> }>;
  };
}
