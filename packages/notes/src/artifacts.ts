import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ARTIFACT_SHA256 } from './artifacts-pinned.ts';

/**
 * The committed circuit artifacts, VALID_INPUT's, the two VALID_MATCH circuits' and VALID_SPEND's
 * (docs/notes.md sections 6, 10.5 and 11). They are produced by scripts/build-circuit.ts and never rebuilt at run time; each is read
 * through `loadArtifact`, which refuses a file whose sha256 is not the pinned one, so a proving key, witness generator or
 * verification key that drifted from the others is never used.
 */
export type ArtifactName = keyof typeof ARTIFACT_SHA256;

const FILES: Record<ArtifactName, string> = {
  wasm: 'valid_input.wasm',
  witnessCalculator: 'witness_calculator.cjs',
  zkey: 'valid_input.zkey',
  vkey: 'valid_input.vkey.json',
  matchWasm: 'valid_match.wasm',
  matchZkey: 'valid_match.zkey',
  matchVkey: 'valid_match.vkey.json',
  matchWideWasm: 'valid_match_wide.wasm',
  matchWideZkey: 'valid_match_wide.zkey',
  matchWideVkey: 'valid_match_wide.vkey.json',
  spendWasm: 'valid_spend.wasm',
  spendZkey: 'valid_spend.zkey',
  spendVkey: 'valid_spend.vkey.json',
  poseidonWasm: 'poseidon.wasm',
};

/** The script that writes each artifact not written by scripts/build-circuit.ts. */
const BUILT_BY: Partial<Record<ArtifactName, string>> = { poseidonWasm: 'build-poseidon-wasm.ts' };

export { ARTIFACT_SHA256 };

/** Absolute path of an artifact in packages/notes/artifacts/. */
export function artifactPath(name: ArtifactName): string {
  return fileURLToPath(new URL(`../artifacts/${FILES[name]}`, import.meta.url));
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Thrown when an artifact's bytes are not the pinned ones: a broken install, never a client error. */
export class ArtifactDriftError extends Error {
  constructor(name: ArtifactName, actual: string) {
    super(
      `artifact ${FILES[name]} has sha256 ${actual}, pinned ${ARTIFACT_SHA256[name]}: ` +
        `rebuild with packages/notes/scripts/${BUILT_BY[name] ?? 'build-circuit.ts'} or restore the committed file`,
    );
    this.name = 'ArtifactDriftError';
  }
}

/** Returns the bytes when their sha256 is the pinned one for `name`; throws ArtifactDriftError otherwise. */
export function checkPinned<T extends Uint8Array>(name: ArtifactName, bytes: T): T {
  const actual = sha256Hex(bytes);
  if (actual !== ARTIFACT_SHA256[name]) throw new ArtifactDriftError(name, actual);
  return bytes;
}

/** Reads an artifact and checks it against its pin. */
export async function loadArtifact(name: ArtifactName): Promise<Buffer> {
  return checkPinned(name, await readFile(artifactPath(name)));
}

/** The Groth16 verification key as snarkjs exports it (decimal strings). */
export interface VerificationKeyJson {
  protocol: 'groth16';
  curve: 'bn128';
  nPublic: number;
  vk_alpha_1: string[];
  vk_beta_2: string[][];
  vk_gamma_2: string[][];
  vk_delta_2: string[][];
  IC: string[][];
}

/** The verification key of VALID_INPUT (`vkey`, the default) or of a VALID_MATCH circuit. */
export async function loadVerificationKey(
  name: 'vkey' | 'matchVkey' | 'matchWideVkey' | 'spendVkey' = 'vkey',
): Promise<VerificationKeyJson> {
  return JSON.parse((await loadArtifact(name)).toString('utf8')) as VerificationKeyJson;
}
